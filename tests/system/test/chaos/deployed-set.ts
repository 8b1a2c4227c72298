import { waitFor } from '@custos/test-kit';
import { NAMESPACES, inhibitAll } from '../policies';
import type { PapCall, Slot } from './services';

const A = (name: string) => `urn:action:acme:${name}`;
/** "At most LIMIT" for `limited`: the run makes many more attempts than this. */
export const LIMIT = 40;
export const TIMER_ID = 'urn:timer:acme:beat';
export const TOGGLE_ID = 'urn:policy:acme:toggle';

/**
 * What the load decides against: the stub PXP as a component, "at most LIMIT" for `limited`, an execute per `notify`
 * and per timer tick, the (not yet deployed) inhibit-all policy the toggler deploys and revokes, and the timer every
 * `timerPeriodMs`. Returns once every pdp has all of it.
 */
export async function deploySet(setup: PapCall, pdps: Slot[], stubUrl: string, timerPeriodMs: number): Promise<void> {
  await setup('POST', '/ws/component', {
    json: {
      id: { componentType: 'PXP', identifier: 'urn:component:acme:pxp:stub' },
      urls: [stubUrl],
      componentInterfaces: [{ type: 'InterfaceDescription', methodName: A('notify'), returnType: 'java.lang.Object', parameters: [] }],
    },
  });
  const policies: Array<[string, string]> = [
    [
      'urn:policy:acme:limit',
      `<mechanism event="${A('limited')}">
          <if><greater><count><eventOccurrence event="${A('limited')}"/><when fixedTime="always"/></count><constant:number value="${LIMIT}"/></greater>
            <then><inhibit reason="limit reached"/></then></if>
          <else><allow/></else>
        </mechanism>`,
    ],
    [
      'urn:policy:acme:notify',
      `<mechanism event="${A('notify')}">
          <if><constant:true/><then><allow/><execute action="${A('notify')}"><parameter:string name="seq"><event:string eventParameter="seq" default=""/></parameter:string></execute></then></if>
        </mechanism>`,
    ],
    [
      'urn:policy:acme:on-tick',
      `<mechanism event="${A('tick')}">
          <if><constant:true/><then><allow/></then></if>
          <execute action="${A('notify')}"><parameter:string name="seq" value="tick"/></execute>
        </mechanism>`,
    ],
  ];
  for (const [id, body] of policies) {
    await setup('POST', '/ws/policy', { xml: `<policy ${NAMESPACES} id="${id}">${body}</policy>` });
    await setup('POST', `/ws/policy/${id}/deploy`);
  }
  await setup('POST', '/ws/policy', { xml: inhibitAll('acme', 'toggle', 'toggled') });
  await setup('POST', '/ws/timer', {
    xml: `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${TIMER_ID}" cron="*/${timerPeriodMs / 1000} * * * * ?"><event action="${A('tick')}"/></timer>`,
  });
  const timerDeployed = await setup('POST', `/ws/timer/${TIMER_ID}/deploy`);
  for (const pdp of pdps) {
    await waitFor(async () => ((await (await fetch(`${pdp.service.url}/status`)).json()) as { revision: number }).revision >= timerDeployed.revision, {
      timeoutMs: 30_000,
      what: 'the set on every pdp',
    });
  }
}
