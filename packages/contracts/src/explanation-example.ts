/**
 * An `/event/explain` answer with a bit of everything the wire can carry (pdp `routes/event.ts`, `wireExplanation`):
 * a mechanism that allowed through an `elseif` with a modifier, a delay, an execute, nested operand values (one cut
 * short), a cached PIP answer and history look-ups, and a mechanism whose condition failed. The pdp's OpenAPI document
 * shows it as the example of `ExplainedDecision`; the clients that render explanations (the CLI, the console) test
 * against it, so they read the shape the document promises.
 */
const text = (value: string) => ({ value, type: 'java.lang.String', isComplex: false });

export const EXPLAINED_DECISION_EXAMPLE = {
  id: { identifier: 'urn:decision:019ac4a6-1f2e-7c3d-8e4f-5a6b7c8d9e0f' },
  eventAllowed: true,
  modifiers: [{ name: 'user', expression: '$.name', engine: [{ method: 'replace', parameters: [{ name: 'value', value: text('***') }] }] }],
  delay: 250,
  policyRevision: 9,
  explanation: [
    {
      policyId: 'urn:policy:acme:mask',
      mechanism: 0,
      event: 'urn:action:acme:show',
      branch: { kind: 'elseif', index: 0 },
      conditions: [
        { branch: 0, value: false },
        { branch: 1, value: true },
      ],
      outcome: 'allow',
      delayMs: 250,
      modifiers: [
        {
          policyId: 'urn:policy:acme:mask',
          name: 'user',
          expression: '$.name',
          engine: [{ method: 'replace', parameters: [{ name: 'value', value: text('***') }] }],
          reason: 'names are private',
        },
      ],
      executions: [{ action: 'urn:action:acme:notify', parameters: [{ name: 'to', value: text('hr') }] }],
      reason: null,
      error: null,
      values: [
        {
          element: 'equals',
          condition: 0,
          depth: 0,
          operands: [
            { source: 'event `user` at `$.id`', value: 'alice' },
            { source: 'constant', value: 'bob' },
          ],
          value: false,
        },
        {
          element: 'less',
          condition: 1,
          depth: 0,
          operands: [
            { source: 'plus', value: 5 },
            { source: 'pip `urn:info:acme:limit`', value: `${'x'.repeat(120)}…`, truncated: true },
          ],
          value: true,
        },
        { element: 'plus', condition: 1, depth: 1, operands: [{ source: 'count of `urn:action:acme:show`', value: 4 }, { source: 'constant', value: 1 }], value: 5 },
      ],
      pip: [{ method: 'urn:info:acme:role', parameters: [{ name: 'user', value: text('u1') }], value: text('admin'), usedDefault: false, cached: true }],
      history: [
        { element: 'count', action: 'urn:action:acme:show', span: { from: 0, to: 3_600_000 }, count: 4 },
        { element: 'eventOccurrence', action: 'urn:action:acme:login', mode: 'first', occurrence: null },
      ],
    },
    {
      policyId: 'urn:policy:acme:limit',
      mechanism: 1,
      event: 'urn:action:acme:show',
      branch: { kind: 'none' },
      conditions: [{ branch: 0, value: null }],
      outcome: 'error',
      delayMs: 0,
      modifiers: [],
      executions: [],
      reason: null,
      error: 'the event history is unavailable',
    },
  ],
};
