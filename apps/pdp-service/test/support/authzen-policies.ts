import { AUTHZEN_PATHS } from '@custos/contracts';
import { TestClock, policy } from './pdp';
import { usePdp, type UsedPdp } from './use-pdp';

/**
 * The AuthZEN tests' policies, which make the decisions the specification's examples show, and a pdp with all of them
 * deployed. POST /event's default is `allow` there (DEFAULT_DECISION's default), yet the AuthZEN endpoints deny what
 * no mechanism decides (PDP_AUTHZEN_DEFAULT's default, `deny`), so every `true` is a policy's doing.
 */
export const A = (name: string) => `urn:action:acme:${name}`;
export const P = (name: string) => `urn:policy:acme:${name}`;
const at = (parameter: string, path: string, fallback = '') => `<event:string eventParameter="${parameter}" jsonPathQuery="${path}" default="${fallback}"/>`;
const is = (left: string, value: string) => `<equals>${left}<constant:string value="${value}"/></equals>`;

/** can_read: Alice, any resource but `subject-search.md`, and only with GET when the action names a method. */
const CAN_READ = policy(
  P('can-read'),
  `<mechanism event="${A('can_read')}">
    <if><and>${is(at('subject', '$.id'), 'alice@example.com')}<not>${is(at('resource', '$.id'), 'subject-search.md')}</not>${is(at('action', '$.properties.method', 'GET'), 'GET')}</and>
      <then><allow/></then></if>
  </mechanism>`,
);
/** can_edit: editors only (`$.properties.role` of the subject). */
const CAN_EDIT = policy(
  P('can-edit'),
  `<mechanism event="${A('can_edit')}"><if>${is(at('subject', '$.properties.role'), 'editor')}<then><allow/></then></if></mechanism>`,
);
/** read: documents other than `2`. */
const READ = policy(
  P('read'),
  `<mechanism event="${A('read')}"><if><and>${is(at('resource', '$.type'), 'document')}<not>${is(at('resource', '$.id'), '2')}</not></and><then><allow/></then></if></mechanism>`,
);
/** view: allowed, with the resource's salary removed and a delay. */
const VIEW = policy(
  P('view'),
  `<mechanism event="${A('view')}"><if><constant:true/><then><modify eventParameter="resource" method="delete" jsonPathQuery="$.properties.salary"/><delay amount="1" unit="SECONDS"/></then></if></mechanism>`,
);
/** export: allowed with a modifier for a parameter no AuthZEN evaluation has. */
const EXPORT = policy(
  P('export'),
  `<mechanism event="${A('export')}"><if><constant:true/><then><modify eventParameter="document" method="delete" jsonPathQuery="$.secret"/></then></if></mechanism>`,
);
/** throttled: denied with a delay of 2 s (a rate limit's answer). */
const THROTTLED = policy(
  P('throttled'),
  `<mechanism event="${A('throttled')}"><if><constant:true/><then><inhibit/><delay amount="2" unit="SECONDS"/></then></if></mechanism>`,
);
/** download: twice per subject and day, over the event history. */
const DOWNLOAD = policy(
  P('download'),
  `<mechanism event="${A('download')}">
    <if><lessEqual><count><eventOccurrence event="${A('download')}"><parameter:string name="subject" jsonPathQuery="$.id">${at('subject', '$.id')}</parameter:string></eventOccurrence><when fixedTime="today"/></count><constant:number value="2"/></lessEqual>
      <then><allow/></then></if>
  </mechanism>`,
);

export const alice = { type: 'user', id: 'alice@example.com' };
export const decisionsOf = (body: { evaluations: Array<{ decision: boolean }> }) => body.evaluations.map((e) => e.decision);
export const DECISION_ID = /^urn:decision:[0-9a-f-]{36}$/;

/** A pdp (its clock at 2026-01-15 12:00 UTC) with every policy above deployed, and its two AuthZEN routes. */
export function useAuthZenPdp(): { pdp: UsedPdp; evaluation: (body: unknown) => ReturnType<UsedPdp['post']>; evaluations: (body: unknown) => ReturnType<UsedPdp['post']> } {
  const pdp = usePdp({ clock: new TestClock(Date.parse('2026-01-15T12:00:00Z')) });
  beforeAll(async () => {
    for (const [id, xml] of [
      ['can-read', CAN_READ],
      ['can-edit', CAN_EDIT],
      ['read', READ],
      ['view', VIEW],
      ['download', DOWNLOAD],
      ['export', EXPORT],
      ['throttled', THROTTLED],
    ] as const) {
      await pdp.deploy(P(id), xml);
    }
  });
  return {
    pdp,
    evaluation: (body) => pdp.post(AUTHZEN_PATHS.evaluation, body),
    evaluations: (body) => pdp.post(AUTHZEN_PATHS.evaluations, body),
  };
}
