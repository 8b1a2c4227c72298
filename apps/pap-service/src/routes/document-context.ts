type KindName = 'policy' | 'timer';

/** The words the document of a kind's operations uses where policies and timers differ. */
export const KIND_TEXT = {
  policy: {
    body: 'the policy XML (up to 5 MiB); a DOCTYPE is rejected',
    invalid: '`invalid_policy`: the XML is malformed or breaks a language or solution rule; `errors` lists every problem with line and column',
    add: 'Validates the policy completely and stores it, not deployed. The token must cover its solution.',
    deploy: undefined,
  },
  timer: {
    body:
      'a timer document (policy-language.md §10, namespace `http://www.mydata-control.de/4.0/mydataLanguageTimer`): ' +
      '`<timer id="urn:timer:<solution>:<name>" cron="<quartz cron, seconds first>" description?>` with `<event action>` ' +
      'children holding constant `parameter:*`; a DOCTYPE is rejected',
    invalid:
      '`invalid_policy`: the timer is malformed, its cron is not a quartz schedule or never fires again, or an action is of another solution; `errors` lists every problem with line and column',
    add: 'Validates the timer completely and stores it, not deployed. Scopes and solution rules are those of policies.',
    deploy: 'Every pdp replica schedules it; each tick fires once across all replicas.',
  },
} as const;

/** The component schema a kind's resources and ids are shown by. */
export const resourceSchemaName = (kind: { name: KindName }) => (kind.name === 'policy' ? 'Policy' : 'Timer');
export const idSchemaName = (kind: { name: KindName }) => (kind.name === 'policy' ? 'PolicyId' : 'TimerId');
