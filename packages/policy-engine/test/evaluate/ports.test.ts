import fc from 'fast-check';
import { createPolicySet, decide, historyFilterValue, type EngineDecision, type EvaluationPorts } from '../../src';
import { readJsonPath } from '../../src/parse/json-path';
import { applySimplePath, readSimplePath } from '../../src/parse/simple-path';
import { event, mustLoad, OPTIONS, policyXml } from '../support/policies';
import { FixturePip, InMemoryHistory, fixedClock } from '../support/ports';

const mechanism = (condition: string) =>
  `<mechanism event="urn:action:acme:act"><if>${condition}<then><inhibit/></then></if><else><allow/></else></mechanism>`;

describe('ports', () => {
  it('hands the pip its ttl, solution and parameters, and takes the default when it answers later with a failure', async () => {
    const pip = new FixturePip([{ method: 'urn:info:acme:m', value: 'x' }]);
    const set = createPolicySet([
      mustLoad(
        policyXml(
          mechanism(
            '<equals><pip:string method="urn:info:acme:m" default="d" ttl="1d2h"><parameter:number name="n" value="3"/></pip:string><constant:string value="x"/></equals>',
          ),
        ),
      ),
    ]);
    const decision = await decide(set, event(), OPTIONS, { pip });
    expect(decision.allowed).toBe(false);
    expect(pip.calls).toEqual([{ method: 'urn:info:acme:m', parameters: [{ name: 'n', value: 3 }], ttlMs: 26 * 3_600_000, solution: 'acme' }]);
  });

  it('shares one pending pip question between mechanisms that run at the same time', async () => {
    let calls = 0;
    let answer: (value: { ok: true; value: unknown }) => void = () => undefined;
    const ports: EvaluationPorts = {
      pip: {
        resolve: () => {
          calls += 1;
          return new Promise((resolve) => {
            answer = resolve;
          });
        },
      },
    };
    const condition = '<pip:boolean method="urn:info:acme:m" default="false"/>';
    const set = createPolicySet([mustLoad(policyXml(`${mechanism(condition)}${mechanism(condition)}`))]);
    const pending = decide(set, event(), OPTIONS, ports);
    expect(pending).toBeInstanceOf(Promise);
    answer({ ok: true, value: true });
    const decision = await pending;
    expect(calls).toBe(1);
    expect(decision.allowed).toBe(false);
  });

  it('fails a counting mechanism without a clock, and reads the clock once per request', async () => {
    const history = new InMemoryHistory();
    const count = '<greater><count><eventOccurrence event="urn:action:acme:act"/><when fixedTime="today"/></count><constant:number value="0"/></greater>';
    const set = createPolicySet([mustLoad(policyXml(`${mechanism(count)}${mechanism(count)}`))]);
    const withoutClock = (await decide(set, event(), OPTIONS, { history })) as EngineDecision;
    expect(withoutClock.errors.map((error) => error.message)).toEqual(['no clock is available for the event history', 'no clock is available for the event history']);
    let reads = 0;
    history.record('urn:action:acme:act', 1000, {});
    const decision = await decide(set, event(), OPTIONS, { history, clock: { now: () => (reads += 1) * 1000 + 5000 } });
    expect(reads).toBe(1);
    expect(decision).toMatchObject({ allowed: false, errors: [] });
  });

  it('fails closed when the history rejects or answers nonsense', async () => {
    const count = '<greater><count><eventOccurrence event="urn:action:acme:act"/><when fixedTime="today"/></count><constant:number value="5"/></greater>';
    const set = createPolicySet([mustLoad(policyXml(mechanism(count)))]);
    const broken = new InMemoryHistory();
    broken.count = () => Promise.reject(new Error('database down'));
    const nonsense = new InMemoryHistory();
    nonsense.count = () => Promise.resolve([-1]);
    for (const history of [broken, nonsense]) {
      const decision = await decide(set, event(), OPTIONS, { history, clock: fixedClock(0) });
      expect(decision).toMatchObject({ allowed: false, errors: [{ message: 'the event history could not be read' }] });
    }
  });

  it('describes what a policy needs from the pdp', () => {
    const policy = mustLoad(
      policyXml(
        mechanism(
          '<or><greater><count><eventOccurrence event="urn:action:acme:download"><parameter:string name="meta" jsonPathQuery="$.user" value="a"/></eventOccurrence><when fixedTime="lastWeek"/></count><constant:number value="1"/></greater>' +
            '<equals><count><eventOccurrence event="urn:action:acme:act"/><when><start><eventOccurrence event="urn:action:acme:login" mode="LAST"/></start></when></count><constant:number value="0"/></equals></or>',
        ),
      ),
    );
    expect(policy).toMatchObject({
      historyActions: ['urn:action:acme:download', 'urn:action:acme:act', 'urn:action:acme:login'],
      usesHistory: true,
      usesPorts: true,
      maxHistorySpanMs: Infinity,
      historyFilters: [{ action: 'urn:action:acme:download', name: 'meta', path: '$.user' }],
    });
    const bounded = mustLoad(policyXml(mechanism('<greater><count><eventOccurrence event="urn:action:acme:act"/><when fixedTime="thisHour"/></count><constant:number value="1"/></greater>')));
    expect(bounded.maxHistorySpanMs).toBe(2 * 3_600_000);
    const pure = mustLoad(policyXml(mechanism('<constant:true/>')));
    expect(pure).toMatchObject({ historyActions: [], usesHistory: false, usesPorts: false, maxHistorySpanMs: 0 });
  });

  it('gives history stores the value a filter compares', () => {
    expect(historyFilterValue(null, { a: 1 })).toEqual({ a: 1 });
    expect(historyFilterValue('$.a', { a: 1 })).toBe(1);
    expect(historyFilterValue('$.b', { a: 1 })).toBeUndefined();
    expect(historyFilterValue('$.l[*]', { l: [1, 2] })).toEqual([1, 2]);
  });
});

describe('simple paths', () => {
  it('give the same answer as the RFC 9535 engine for every value', () => {
    const paths = ['$', '$.a', '$.a.b', "$['a']", '$["a b"]', '$.a[0]', '$[1]', '$[-1]', '$.a[-2].b', "$['0']", '$.constructor', '$.__proto__'];
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, 1, 'x', true), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'a b', '0', 'constructor'), tie('value'), { maxKeys: 3 })),
    })).value;
    fc.assert(
      fc.property(fc.constantFrom(...paths), json, (path, value) => {
        const steps = readSimplePath(path);
        const query = readJsonPath(path);
        if (steps === null || !query.ok) throw new Error(`${path} should be simple and valid`);
        const nodes = query.value.query(value as never).values();
        expect(applySimplePath(steps, value)).toEqual(nodes.length === 0 ? undefined : nodes[0]);
      }),
    );
  });

  it('leave everything else to the general engine', () => {
    for (const path of ['$.*', '$..a', '$[?@.a]', "$['a\\'b']", '$[0,1]', '$[0:2]', '$.a ', 'a']) expect(readSimplePath(path)).toBeNull();
  });
});
