import { ConsoleApi, requestToken, type Fetch } from '../src/web/logic/api';
import { ApiError, apiErrorOf, placeOf, problemLine } from '../src/web/logic/problem';

/** A stand-in for the browser's fetch that records each call and answers with `reply`. */
function recorder(reply: () => Response) {
  const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
  const fetchImpl: Fetch = (url, init) => {
    calls.push({ url, init });
    return Promise.resolve(reply());
  };
  return { calls, fetchImpl };
}

test('ids in paths are percent-encoded and the token goes along', async () => {
  const { calls, fetchImpl } = recorder(() => new Response('true', { headers: { 'Policy-Revision': '7' } }));
  const answer = await new ConsoleApi('tok', fetchImpl).deploy('policy', 'urn:policy:acme:a b');
  expect(answer).toEqual({ result: true, revision: 7 });
  expect(calls[0]?.url).toBe('/ws/policy/urn%3Apolicy%3Aacme%3Aa%20b/deploy');
  expect(calls[0]?.init?.method).toBe('POST');
  expect((calls[0]?.init?.headers as Record<string, string>).Authorization).toBe('Bearer tok');
  // A redirect would carry the token along: the browser is told to fail instead.
  expect(calls[0]?.init?.redirect).toBe('error');
});

test('a problem answer becomes an ApiError with its located errors', async () => {
  const problem = { type: 'urn:custos:problem:invalid_policy', status: 400, detail: 'the policy is not valid: 1 problem', code: 'invalid_policy', errors: [{ message: 'bad', line: 3, column: 5 }] };
  const { fetchImpl } = recorder(() => new Response(JSON.stringify(problem), { status: 400, headers: { 'Content-Type': 'application/problem+json' } }));
  const failure = await new ConsoleApi('tok', fetchImpl).validate('policy', '<policy/>').catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(ApiError);
  expect(failure).toMatchObject({ status: 400, code: 'invalid_policy', message: 'the policy is not valid: 1 problem', errors: [{ message: 'bad', line: 3, column: 5 }] });
});

test('a registration reads every Custos-Warning line, and answers none without the header', async () => {
  const pip = { id: { componentType: 'PIP' as const, identifier: 'urn:component:acme:pip:roles' }, urls: ['http://10.0.0.1/a', 'http://127.0.0.1/b'], componentInterfaces: [] };
  const headers = new Headers({ 'Policy-Revision': '3' });
  // Two header lines, as pap appends them; fetch hands them over joined by `, `.
  headers.append('Custos-Warning', '"not called, by default";code="egress_refused_by_default";path="urls[0]"');
  headers.append('Custos-Warning', '"not called either";code="egress_refused_by_default";path="urls[1]"');
  const warned = recorder(() => new Response('true', { headers }));
  expect(await new ConsoleApi('tok', warned.fetchImpl).registerComponent(pip)).toEqual({
    result: true,
    revision: 3,
    warnings: [
      { code: 'egress_refused_by_default', message: 'not called, by default', path: 'urls[0]' },
      { code: 'egress_refused_by_default', message: 'not called either', path: 'urls[1]' },
    ],
  });
  expect(warned.calls[0]?.url).toBe('/ws/component');
  expect(JSON.parse(String(warned.calls[0]?.init?.body))).toEqual(pip);

  const quiet = recorder(() => new Response('true'));
  expect(await new ConsoleApi('tok', quiet.fetchImpl).registerComponent(pip)).toEqual({ result: true, revision: undefined, warnings: [] });
});

test('explanations wait for the last revision the console caused', async () => {
  const { calls, fetchImpl } = recorder(() => new Response(JSON.stringify({ revision: 2, decision: {}, modifiedEvent: null, modifyError: null })));
  await new ConsoleApi('tok', fetchImpl).explain({ actionId: { scope: 'acme', action: 'a' }, timestamp: 0, parameters: [] }, 2);
  expect(calls[0]?.url).toBe('/console/explain');
  expect((calls[0]?.init?.headers as Record<string, string>)['Min-Policy-Revision']).toBe('2');
});

test('a token request sends form-encoded Basic credentials to pap, and reads an OAuth error', async () => {
  const ok = recorder(() => new Response(JSON.stringify({ access_token: 'jwt', expires_in: 3600, scope: 'policy:read', token_type: 'Bearer' })));
  expect(await requestToken('my client', 'p:ss', ok.fetchImpl)).toEqual({ accessToken: 'jwt', expiresIn: 3600, scope: 'policy:read' });
  expect(ok.calls[0]?.url).toBe('/console/token');
  const basic = (ok.calls[0]?.init?.headers as Record<string, string>).Authorization ?? '';
  // RFC 6749 §2.3.1: each part form-encoded, then joined with `:`.
  expect(Buffer.from(basic.replace('Basic ', ''), 'base64').toString()).toBe('my%20client:p%3Ass');
  expect(ok.calls[0]?.init?.body).toBe('grant_type=client_credentials');
  expect(ok.calls[0]?.init?.redirect).toBe('error');

  const refused = recorder(() => new Response(JSON.stringify({ error: 'invalid_client', error_description: 'client authentication failed' }), { status: 401 }));
  await expect(requestToken('a', 'b', refused.fetchImpl)).rejects.toMatchObject({ status: 401, message: 'client authentication failed', code: 'invalid_client' });
});

test('an answer without a readable body is named by its status', () => {
  expect(apiErrorOf(502, 'Bad Gateway')).toMatchObject({ status: 502, message: 'the server answered 502', errors: [] });
});

test('a selection is deployed as one change set', async () => {
  const { calls, fetchImpl } = recorder(() => new Response(JSON.stringify({ revision: 9, changed: true }), { headers: { 'Policy-Revision': '9' } }));
  const answer = await new ConsoleApi('tok', fetchImpl).deployAll('timer', ['urn:timer:acme:a', 'urn:timer:acme:b']);
  expect(answer).toEqual({ result: true, revision: 9 });
  expect(calls).toHaveLength(1);
  expect(calls[0]?.url).toBe('/ws/changes');
  expect(calls[0]?.init?.method).toBe('POST');
  expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({
    changes: [
      { op: 'deploy', kind: 'timer', id: 'urn:timer:acme:a' },
      { op: 'deploy', kind: 'timer', id: 'urn:timer:acme:b' },
    ],
  });
});

describe('the place of a problem', () => {
  test('a document problem by line and column, a JSON body problem by its field path', () => {
    expect(problemLine({ message: 'unknown element', line: 4, column: 9 })).toBe('line 4, column 9: unknown element');
    expect(problemLine({ message: 'unknown element', line: 4 })).toBe('line 4: unknown element');
    expect(problemLine({ message: 'must be string', path: 'parameters[2].value.type' })).toBe('parameters[2].value.type: must be string');
    expect(placeOf({ message: 'must be object', path: '(body)' })).toBe('');
    expect(problemLine({ message: 'not JSON' })).toBe('not JSON');
  });

  test('apiErrorOf keeps the field paths of a problem+json', () => {
    const error = apiErrorOf(400, {
      detail: 'the event is not valid',
      code: 'invalid_event',
      errors: [{ path: 'parameters[2].value', message: 'must have required property type' }],
    });
    expect(error.errors.map(problemLine)).toEqual(['parameters[2].value: must have required property type']);
  });
});

test("a solution's settings are read and replaced at its path, the change's revision coming back", async () => {
  const answers = [
    { solution: 'acme', settings: {}, revision: 4 },
    { solution: 'acme', settings: { defaultDecision: 'inhibit' }, revision: 5, changed: true },
  ];
  const { calls, fetchImpl } = recorder(() => new Response(JSON.stringify(answers.shift()), { headers: { 'Content-Type': 'application/json' } }));
  const api = new ConsoleApi('tok', fetchImpl);
  expect(await api.solutionSettings('acme')).toEqual({ solution: 'acme', settings: {}, revision: 4 });
  expect(await api.setSolutionSettings('acme', { defaultDecision: 'inhibit' })).toMatchObject({ revision: 5, changed: true });
  expect(calls.map((c) => [c.init?.method, c.url])).toEqual([
    ['GET', '/ws/solutions/acme/settings'],
    ['PUT', '/ws/solutions/acme/settings'],
  ]);
  expect(calls[1]?.init?.body).toBe('{"defaultDecision":"inhibit"}');
  expect((calls[1]?.init?.headers as Record<string, string>)['Content-Type']).toBe('application/json');
});
