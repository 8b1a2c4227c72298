import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runEval, type EvalOptions } from '../src/offline/eval/eval-command';
import { bufferedOutput } from '../src/output/streams';
import { custos, EXAMPLES, policyXml, temporaryDirectory } from './support/cli';

const NS_PIP = 'http://www.mydata-control.de/4.0/pip';

/** A policy: only `bob` may read, unless the role PIP says `admin`; three reads a day at most. */
function policies(): string {
  const directory = temporaryDirectory();
  const mechanism =
    '<mechanism event="urn:action:acme:read"><if><or>' +
    `<equals><pip:string xmlns:pip="${NS_PIP}" method="urn:info:acme:role" default="none"/><constant:string value="admin"/></equals>` +
    '<equals><event:string eventParameter="user" jsonPathQuery="$.id" default=""/><constant:string value="bob"/></equals>' +
    '</or><then><allow/></then></if><else><inhibit reason="not yours"/></else></mechanism>';
  writeFileSync(path.join(directory, 'read.xml'), policyXml('urn:policy:acme:read', mechanism));
  return directory;
}

const options = (overrides: Partial<EvalOptions>): EvalOptions => ({
  policies: [],
  eventFile: null,
  action: null,
  params: [],
  at: '1000',
  context: null,
  format: 'text',
  ...overrides,
});

describe('custos eval', () => {
  it('decides an event given by flags and explains it with the values compared; exit 1 when inhibited', async () => {
    const output = bufferedOutput();
    const code = await runEval(options({ policies: [policies()], action: 'acme:read', params: ['user={id: alice}'] }), output, () => '');
    expect(code).toBe(1);
    expect(output.stdout).toEqual([
      'decision: inhibited',
      'delay: 0 ms, modifiers: none',
      'explanation:',
      '  `urn:policy:acme:read` mechanism 1 (`urn:action:acme:read`): took `else`, outcome inhibit (not yours)',
      '    conditions: if false',
      '      if: equals(pip `urn:info:acme:role` = "none", "admin") → false',
      '      if: equals(event `user` at `$.id` = "alice", "bob") → false',
      '    pip `urn:info:acme:role` {} → "none" (default: the pip failed)',
    ]);
  });

  it('reads the event from standard input and stubs and settings from a context file; --format json', async () => {
    const directory = policies();
    const context = path.join(directory, 'context.yaml');
    writeFileSync(context, 'settings: { defaultDecision: inhibit }\npips:\n  - { method: urn:info:acme:role, value: admin }\n');
    const output = bufferedOutput();
    const stdin = '{"actionId": {"urn": "urn:action:acme:read"}, "timestamp": 5, "parameters": {"user": {"id": "alice"}}}';
    const code = await runEval(options({ policies: [directory], eventFile: '-', context, format: 'json' }), output, () => stdin);
    expect(code).toBe(0);
    const answer = JSON.parse(output.stdout.join('\n')) as Record<string, unknown>;
    expect(answer).toMatchObject({ eventAllowed: true, decided: true, delay: 0, modifiers: [], errors: [] });
    expect(answer.explanation).toMatchObject([{ branch: { kind: 'if' }, values: [{ element: 'equals', value: true }] }]);
    // `or` stops at the first true operand: the second comparison was never evaluated, so it is not listed.
    expect((answer.explanation as Array<{ values: unknown[] }>)[0]?.values).toHaveLength(1);
  });

  it('says when no mechanism reacts: the default decision of the context applies', async () => {
    const directory = policies();
    const context = path.join(directory, 'context.yaml');
    writeFileSync(context, 'settings: { defaultDecision: inhibit }\n');
    const output = bufferedOutput();
    expect(await runEval(options({ policies: [directory], action: 'urn:action:acme:write', context }), output, () => '')).toBe(1);
    expect(output.stdout.slice(0, 4)).toEqual([
      'decision: inhibited (no mechanism decided: the default decision)',
      'delay: 0 ms, modifiers: none',
      'explanation:',
      '  no mechanism matches the event: the default decision applies',
    ]);
  });

  it('refuses bad input with exit 2 and says where: the action, a parameter, the time, the context, the policies', async () => {
    const directory = policies();
    const run = async (overrides: Partial<EvalOptions>) => {
      const output = bufferedOutput();
      return { code: await runEval(options({ policies: [directory], ...overrides }), output, () => ''), err: output.stderr };
    };
    expect(await run({ action: 'read' })).toEqual({ code: 2, err: ['--action: `read` is not an action; expected `urn:action:<solution>:<name>` or `<solution>:<name>`'] });
    expect(await run({ action: 'acme:read', params: ['user'] })).toEqual({ code: 2, err: ['--param: `user` is not `name=value`'] });
    expect(await run({ action: 'acme:read', at: 'yesterday' })).toEqual({ code: 2, err: ['--at: `yesterday` is neither milliseconds since the epoch nor an ISO 8601 time'] });
    expect((await run({})).err).toEqual(['eval: needs the event: `--event <file>` (`-` for standard input) or `--action <action>`']);
    const context = path.join(directory, 'bad-context.yaml');
    writeFileSync(context, 'history:\n  - { actionId: { scope: acme, action: read }, timestamp: 5000 }\n');
    expect(await run({ action: 'acme:read', context })).toEqual({
      code: 2,
      err: [`${context}:2:59: history[0].timestamp: is after the event (1000); history holds earlier events`],
    });
    expect((await run({ action: 'acme:read', policies: [path.join(directory, 'missing.xml')] })).code).toBe(2);
  });

  it('runs as a command against the examples', () => {
    const run = custos([
      'eval',
      path.join(EXAMPLES, 'policies'),
      '--action',
      'urn:action:acme:show-employee',
      '--param',
      'viewer={"id": "sam", "department": "sales"}',
      '--param',
      'employee={"id": "e7", "department": "hr"}',
      '--at',
      '2026-11-27T09:00:00Z',
    ]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('elseif 1: equals(event `viewer` at `$.department` = "sales", event `employee` at `$.department` = "hr") → false');
  });
});
