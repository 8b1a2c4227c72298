import fc from 'fast-check';
import { parseUrn } from '@custos/contracts';
import { loadPolicy } from '@custos/policy-engine';
import {
  call,
  createClient,
  isRunning,
  policyXml,
  securityStack,
  TENANT_SCOPES,
  tokenOf,
  type Answer,
  type Stack,
} from './support/stack';

/**
 * Property-based fuzzing: the policy reader in-process (loadPolicy), and the event validation of a
 * running pdp over HTTP. No input crashes or hangs them; every answer is a result or a 4xx problem.
 */
const NS: Record<string, string> = {
  '': 'http://www.mydata-control.de/4.0/mydataLanguage',
  constant: 'http://www.mydata-control.de/4.0/constant',
  event: 'http://www.mydata-control.de/4.0/event',
  parameter: 'http://www.mydata-control.de/4.0/parameter',
  pip: 'http://www.mydata-control.de/4.0/pip',
  variable: 'http://www.mydata-control.de/4.0/variable',
  variableDeclaration: 'http://www.mydata-control.de/4.0/variableDeclaration',
  valueChanged: 'http://www.mydata-control.de/4.0/valueChanged',
};
const NS_DECLARATIONS = Object.entries(NS)
  .map(([prefix, uri]) => (prefix === '' ? `xmlns="${uri}"` : `xmlns:${prefix}="${uri}"`))
  .join(' ');

const ELEMENTS = [
  'mechanism', 'if', 'elseif', 'else', 'then', 'allow', 'inhibit', 'modify', 'delay', 'execute', 'and', 'or', 'xor', 'not',
  'implies', 'equals', 'less', 'greater', 'regex', 'contains', 'eventHasParameter', 'date', 'time', 'day', 'plus', 'divide',
  'size', 'count', 'concat', 'continuousOccurrence', 'eventOccurrence', 'when', 'start', 'end',
  ...['string', 'number', 'boolean', 'object', 'list', 'true', 'false'].map((t) => `constant:${t}`),
  ...['string', 'number', 'boolean', 'object', 'list'].flatMap((t) => [`event:${t}`, `parameter:${t}`, `pip:${t}`, `variable:${t}`, `variableDeclaration:${t}`, `valueChanged:${t}`]),
  'policy', 'include', 'x:unknown',
];
const ATTRIBUTES = [
  'id', 'event', 'name', 'value', 'regex', 'mode', 'eventParameter', 'default', 'jsonPathQuery', 'method', 'action', 'amount',
  'unit', 'fixedTime', 'time', 'interval', 'minOccurrences', 'reference', 'is', 'to', 'ttl', 'description', 'reason', 'xmlns:x',
];
/** Values that mean something to some attribute, and values meant to hurt. */
const TRICKY = [
  'urn:action:acme:show', 'urn:action:beta:show', 'urn:policy:acme:fuzz', 'urn:info:acme:role', 'urn:info:beta:role', '$.a.b', '$..x',
  "$[?match(@, '(a+)+$')]", '(a+)+$', '(a)\\1', '[', '{"a":[1,2]}', '[[[[[[[[[[]]]]]]]]]]', 'today', 'always', '01.01.2020', '12:00', '+1',
  '1y2w3d', 'MILLISECONDS', 'ALL', 'NaN', '-0', '1e309', '&amp;', '&lt;', '&x;', '&#0;', '&#xD800;', '<!DOCTYPE x>', ']]>', '\u0000',
  '\u202e', 'а', '\r\n', '"', "'", '<', '%00', '..%2F', 'x'.repeat(300),
];

const text = fc.oneof(fc.constantFrom(...TRICKY), fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 12 }));

/** Escapes most of the time, so both well-formed and broken documents are tried. */
const attributeValue = fc.tuple(text, fc.nat(9)).map(([value, dice]) => (dice < 8 ? value.replace(/&(?![a-z#][a-z0-9]*;)/gi, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;') : value));

const element: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc
    .tuple(
      fc.constantFrom(...ELEMENTS),
      fc.array(fc.tuple(fc.constantFrom(...ATTRIBUTES), attributeValue), { maxLength: 4 }),
      fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant([] as string[]), fc.array(tie('node'), { maxLength: 4 })),
    )
    .map(([name, attributes, children]) => {
      const unique = new Map(attributes);
      const attributeText = [...unique].map(([key, value]) => ` ${key}="${value}"`).join('');
      return children.length === 0 ? `<${name}${attributeText}/>` : `<${name}${attributeText}>${children.join('')}</${name}>`;
    }),
})).node;

const policyDocument = fc
  .tuple(fc.constantFrom('urn:policy:acme:fuzz', 'urn:policy:beta:fuzz', 'urn:policy:acme:', 'urn:policy:ACME:x'), fc.array(element, { minLength: 1, maxLength: 3 }))
  .map(([id, children]) => `<policy ${NS_DECLARATIONS} id="${id}">${children.join('')}</policy>`);

const VALID = policyXml(
  'acme',
  'fuzz',
  'show',
  `<if><regex regex="a+"><event:string eventParameter="p" default=""/></regex><then><inhibit/></then></if>
   <else><modify eventParameter="p" method="replace"><parameter:string name="replaceWith" value="x"/></modify></else>`,
);

let accepted = 0;

/** Whatever loadPolicy answers, it answers in one of its two forms, and accepts only own-solution actions. */
function checkOutcome(xml: string): void {
  const outcome = loadPolicy(xml);
  if (outcome.ok) {
    accepted += 1;
    const id = parseUrn('policy', outcome.policy.id);
    expect(id).toBeDefined();
    expect(outcome.policy.solution).toBe(id!.solution);
    for (const action of [...outcome.policy.actions, ...outcome.policy.historyActions]) {
      expect(parseUrn('action', action)?.solution).toBe(outcome.policy.solution);
    }
  } else {
    expect(outcome.diagnostics.length).toBeGreaterThan(0);
    for (const diagnostic of outcome.diagnostics) {
      expect(typeof diagnostic.code).toBe('string');
      expect(typeof diagnostic.message).toBe('string');
    }
  }
}

describe('policy reader (loadPolicy, in-process)', () => {
  it('arbitrary text', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom(...TRICKY)), (input) => checkOutcome(input)), { numRuns: 300 });
  });

  it('generated documents of language elements with tricky attribute values', () => {
    fc.assert(fc.property(policyDocument, (xml) => checkOutcome(xml)), { numRuns: 400 });
  });

  it('a valid policy with text spliced in anywhere', () => {
    expect(loadPolicy(VALID).ok).toBe(true);
    fc.assert(
      fc.property(fc.nat(VALID.length), fc.nat(20), fc.oneof(text, fc.constantFrom('<!DOCTYPE p [<!ENTITY e "x">]>', '&e;', '<?pi?>', '<![CDATA[x]]>', '<!--', '</policy>', '<policy>')), (at, cut, insert) =>
        checkOutcome(VALID.slice(0, at) + insert + VALID.slice(Math.min(VALID.length, at + cut))),
      ),
      { numRuns: 400 },
    );
  });

  it('escaped hostile text in names, reasons and literals is read as text: accepted, same id and solution', () => {
    const escape = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
    accepted = 0;
    fc.assert(
      fc.property(text, text, text, (name, reason, literal) => {
        const xml = policyXml(
          'acme',
          'fuzz',
          'show',
          `<if><equals><event:string eventParameter="p" default=""/><constant:string value="${escape(literal)}"/></equals><then><inhibit reason="${escape(reason)}"/></then></if>`,
        ).replace('name="fuzz"', `name="${escape(name)}"`);
        checkOutcome(xml);
      }),
      { numRuns: 300 },
    );
    // Most of them load (only NUL, control characters and lone surrogates may not): the accepted branch was checked.
    expect(accepted).toBeGreaterThan(60);
  });
});

describe('event validation of a running pdp (HTTP)', () => {
  let stack: Stack;
  let token: string;

  beforeAll(async () => {
    stack = await securityStack();
    const admin = await stack.adminToken();
    token = await tokenOf(stack, await createClient(stack, admin, ['acme'], TENANT_SCOPES));
    // A deployed policy that reads parameters every way the language can, so fuzzed values are evaluated.
    const policy = policyXml(
      'acme',
      'reader',
      'show',
      `<if><or>
         <regex regex="(a+)+$"><event:string eventParameter="p" default=""/></regex>
         <equals><event:object eventParameter="p" default="{}"/><constant:object value="{&quot;a&quot;:1}"/></equals>
         <contains><event:list eventParameter="p" jsonPathQuery="$..x" default="[]"/><constant:number value="1"/></contains>
         <greater><event:number eventParameter="p" default="0"/><constant:number value="10"/></greater>
       </or><then><inhibit/></then></if>
       <else><modify eventParameter="p" method="replace"><parameter:list name="replaceWith"><event:list eventParameter="p" default="[]"/></parameter:list></modify></else>`,
    );
    expect((await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: policy })).status).toBe(201);
    const deployed = await call('POST', `${stack.pap.url}/ws/policy/urn:policy:acme:reader/deploy`, { token });
    await call('POST', `${stack.pdps[0]!.url}/event`, {
      token,
      json: { actionId: { scope: 'acme', action: 'show' }, timestamp: 0 },
      headers: { 'Min-Policy-Revision': deployed.headers.get('policy-revision')! },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const statuses = new Map<number, number>();

  async function post(path: string, body: string | Uint8Array): Promise<Answer> {
    const response = await fetch(`${stack.pdps[0]!.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body,
    });
    const text = await response.text();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // kept as text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  function expectAnswered(answer: Answer): void {
    if (answer.status === 200) {
      expect(typeof answer.body.eventAllowed).toBe('boolean');
      return;
    }
    expect({ status: answer.status, clientError: answer.status >= 400 && answer.status < 500 }).toEqual({ status: answer.status, clientError: true });
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(typeof answer.body.code).toBe('string');
  }

  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 6 }),
    // Around the nesting bound of the pdp (64): both sides of it.
    fc.tuple(fc.integer({ min: 50, max: 90 }), fc.boolean()).map(([depth, objects]) => {
      let nested: unknown = 'a';
      for (let level = 0; level < depth; level += 1) nested = objects ? { x: nested } : [nested];
      return nested;
    }),
    text,
    fc.constantFrom('[[[[1]]]]', '{"a":1}', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', '{"x":1,"y":{"x":1}}'),
  );
  const scope = fc.oneof(fc.constant('acme'), fc.constant('acme'), fc.constant('beta'), text);
  const event = fc.record(
    {
      actionId: fc.oneof(
        fc.record({ scope, action: fc.oneof(fc.constant('show'), text) }),
        fc.record({ urn: fc.oneof(fc.constant('urn:action:acme:show'), text) }),
        fc.jsonValue({ maxDepth: 3 }),
      ),
      timestamp: fc.oneof(fc.constant(1763798400000), fc.integer(), fc.double(), text, fc.jsonValue({ maxDepth: 2 })),
      parameters: fc.oneof(
        fc.array(
          fc.record(
            {
              name: fc.oneof(fc.constant('p'), text),
              value: fc.oneof(
                fc.record({ value, type: fc.oneof(fc.constant('java.lang.String'), text), isComplex: fc.boolean() }, { requiredKeys: ['value'] }),
                fc.jsonValue({ maxDepth: 3 }),
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 5 },
        ),
        fc.jsonValue({ maxDepth: 3 }),
      ),
      extra: fc.jsonValue({ maxDepth: 4 }),
    },
    { requiredKeys: [] },
  );

  /** Mostly valid events whose parameter values are hostile: these reach the engine. */
  const plausible = fc.record({
    actionId: fc.oneof(
      { weight: 4, arbitrary: fc.constant({ scope: 'acme', action: 'show' }) },
      { weight: 1, arbitrary: fc.constant({ urn: 'urn:action:acme:show' }) },
      { weight: 1, arbitrary: fc.record({ scope, action: fc.oneof(fc.constant('show'), text) }) },
    ),
    timestamp: fc.oneof({ weight: 4, arbitrary: fc.nat() }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    parameters: fc.uniqueArray(
      fc.record({
        name: fc.oneof(fc.constant('p'), fc.constant('q'), text),
        value: fc.record({ value, type: fc.oneof(fc.constant('java.lang.Object'), text), isComplex: fc.boolean() }),
      }),
      { selector: (parameter) => parameter.name, maxLength: 5 },
    ),
  });

  it('mostly valid events with hostile values: 200 or a 4xx problem', async () => {
    await fc.assert(
      fc.asyncProperty(plausible, fc.boolean(), async (body, explain) => expectAnswered(await post(explain ? '/event/explain' : '/event', JSON.stringify(body)))),
      { numRuns: 300 },
    );
  });

  it('event-shaped bodies with hostile structure: 200 or a 4xx problem', async () => {
    await fc.assert(
      fc.asyncProperty(event, fc.boolean(), async (body, explain) => expectAnswered(await post(explain ? '/event/explain' : '/event', JSON.stringify(body)))),
      { numRuns: 200 },
    );
  });

  it('arbitrary JSON and arbitrary bytes: 200 or a 4xx problem', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json({ maxDepth: 8 }), fc.string({ unit: 'binary' })), async (body) => expectAnswered(await post('/event', body))),
      { numRuns: 150 },
    );
    await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => expectAnswered(await post('/event', bytes))), { numRuns: 100 });
  });

  it('the pdp still runs, logged no unhandled error, and the fuzzing reached the engine', async () => {
    expect(isRunning(stack.pdps[0]!)).toBe(true);
    expect(stack.pdps[0]!.output()).not.toContain('unhandled error');
    console.log(`pdp answers while fuzzing: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    // Not all refused at the door: a good share was decided.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(100);
  });

  it('pap: generated components and policies are stored or refused with a 4xx problem, never a 500', async () => {
    const papStatuses = new Map<number, number>();
    const papPost = async (path: string, options: { json?: unknown; xml?: string }) => {
      const answer = await call('POST', `${stack.pap.url}${path}`, { token, ...options });
      papStatuses.set(answer.status, (papStatuses.get(answer.status) ?? 0) + 1);
      return answer;
    };
    const componentBody = fc.record({
      id: fc.record({
        componentType: fc.constantFrom('PEP', 'PIP', 'PXP', 'pip', 'X'),
        identifier: fc.oneof(fc.constantFrom('urn:component:acme:pip:fuzz', 'urn:component:beta:pip:fuzz'), text),
      }),
      urls: fc.array(fc.oneof(fc.constant('http://acme.example/pip'), text), { maxLength: 2 }),
      componentInterfaces: fc.array(
        fc.record({
          type: fc.constant('InterfaceDescription'),
          methodName: fc.oneof(fc.constant('urn:info:acme:role'), text),
          returnType: text,
          description: text,
          parameters: fc.array(fc.record({ name: fc.oneof(fc.constant('id'), text), description: text, type: text, mandatory: fc.boolean() }), { maxLength: 2 }),
        }),
        { maxLength: 2 },
      ),
    });
    const plausibleComponent = fc.record({
      description: text,
      returnType: text,
      parameter: text,
      type: text,
    }).map(({ description, returnType, parameter, type }) => ({
      id: { componentType: 'PIP', identifier: 'urn:component:acme:pip:fuzz' },
      urls: ['http://acme.example/pip'],
      componentInterfaces: [{ type: 'InterfaceDescription', methodName: 'urn:info:acme:role', returnType, description, parameters: [{ name: parameter || 'p', description, type: type || 't', mandatory: true }] }],
    }));
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 2, arbitrary: plausibleComponent }, { weight: 1, arbitrary: componentBody }), async (body) => {
        const answer = await papPost('/ws/component', { json: body });
        if (answer.status !== 200) expectAnswered(answer);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(policyDocument, async (xml) => {
        const answer = await papPost('/ws/policy', { xml });
        if (answer.status !== 201) expectAnswered(answer);
      }),
      { numRuns: 100 },
    );
    console.log(`pap answers while fuzzing: ${JSON.stringify(Object.fromEntries([...papStatuses].sort()))}`);
    expect(papStatuses.get(200) ?? 0).toBeGreaterThan(50);
    expect(isRunning(stack.pap)).toBe(true);
    expect(stack.pap.output()).not.toContain('unhandled error');
  });
});
