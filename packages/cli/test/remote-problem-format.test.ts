import { formatRefusal } from '../src/remote/problem-format';
import type { HttpAnswer } from '../src/remote/http-client';

const answer = (status: number, body: unknown): HttpAnswer => ({
  status,
  headers: new Headers({ 'Content-Type': 'application/problem+json' }),
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

const invalidPolicy = {
  type: 'urn:custos:problem:invalid_policy',
  title: 'Bad Request',
  status: 400,
  detail: 'the policy is not valid: 3 problems',
  code: 'invalid_policy',
  errors: [
    { message: 'element `equal` is not allowed here', line: 7, column: 9 },
    { message: 'a line without a column', line: 12 },
    { message: 'the policy was rejected' },
  ],
};

describe('formatRefusal', () => {
  it('points into the file the user sent, as compilers do', () => {
    expect(formatRefusal('pap', answer(400, invalidPolicy), 'policies/a.xml')).toEqual([
      'policies/a.xml:7:9: element `equal` is not allowed here',
      'policies/a.xml:12: a line without a column',
      'policies/a.xml: the policy was rejected',
    ]);
  });

  it('gives the detail with status and code, then each error with its path, when nothing is located', () => {
    const problem = {
      title: 'Bad Request',
      status: 400,
      detail: 'the component does not match the schema',
      code: 'invalid_component',
      errors: [{ message: 'must be one of PEP, PIP, PXP', path: 'id.componentType' }, { message: 'at least one URL' }],
    };
    expect(formatRefusal('pap', answer(400, problem), 'c.json')).toEqual([
      'pap: the component does not match the schema (400 invalid_component)',
      '  id.componentType: must be one of PEP, PIP, PXP',
      '  at least one URL',
    ]);
  });

  it('ignores locations when no file was sent', () => {
    expect(formatRefusal('pap', answer(400, invalidPolicy))[0]).toBe('pap: the policy is not valid: 3 problems (400 invalid_policy)');
  });

  it('asks for a new login when the token was not accepted', () => {
    const problem = { title: 'Unauthorized', status: 401, detail: 'the token has expired', code: 'invalid_token' };
    expect(formatRefusal('pdp', answer(401, problem))).toEqual([
      'pdp: the token has expired (401 invalid_token)',
      'the token was not accepted; run `custos login` again',
    ]);
  });

  it('says what came back when the answer is no problem at all', () => {
    expect(formatRefusal('pap', answer(502, '<html>Bad Gateway</html>\nmore'))).toEqual(['pap answered 502: <html>Bad Gateway</html>']);
    expect(formatRefusal('pap', answer(500, ''))).toEqual(['pap answered 500']);
  });
});
