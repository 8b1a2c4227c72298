import {
  createPolicySet,
  decide,
  loadCompiledTree,
  loadPolicyTree,
  type CompiledPolicy,
  type EngineDecision,
  type EvaluationPorts,
} from '../../src';
import { FixturePip, FixturePxp, InMemoryHistory, fixedClock, type PipFixture, type PxpFixture } from '../support/ports';

/** A scenario to play twice: once with the policies compiled from XML, once from their trees. */
export interface Scenario {
  xml: string[];
  defaultDecision: 'allow' | 'inhibit';
  timeZone: string;
  /** Without ports, decisions are synchronous and port-using mechanisms fail. */
  ports: boolean;
  history: Array<{ action: string; at: number; parameters: Record<string, unknown> }>;
  pip: PipFixture[];
  pxp: PxpFixture[];
  events: Array<{ action: string; timestamp: number; now: number; parameters: Record<string, unknown>; explain: boolean }>;
}

/** What one play observed: every decision and every call the engine made to its ports. */
export interface Observed {
  policies: CompiledPolicy[];
  decisions: EngineDecision[];
  pipCalls: unknown[];
  pxpCalls: unknown[];
  historyCalls: string[];
}

/** The policies through XML, and through their trees after a trip through JSON text, as the pdp receives them. */
export function compileBothWays(xml: readonly string[]): { fromXml: CompiledPolicy[]; fromTree: CompiledPolicy[] } {
  const fromXml: CompiledPolicy[] = [];
  const fromTree: CompiledPolicy[] = [];
  for (const text of xml) {
    const loaded = loadPolicyTree(text);
    if (!loaded.ok) throw new Error(`refused: ${JSON.stringify(loaded.diagnostics)}`);
    fromXml.push(loaded.policy);
    const compiled = loadCompiledTree(JSON.parse(JSON.stringify(loaded.tree)));
    if (!compiled.ok) throw new Error(`the tree was refused: ${JSON.stringify(compiled.diagnostics)}`);
    fromTree.push(compiled.policy);
  }
  return { fromXml, fromTree };
}

/** Plays the pdp as the conformance runner does: events of counted actions are recorded at now before deciding. */
export async function play(scenario: Scenario, policies: CompiledPolicy[]): Promise<Observed> {
  const set = createPolicySet(policies);
  const counted = new Set(policies.flatMap((policy) => policy.historyActions));
  const history = new InMemoryHistory();
  for (const entry of scenario.history) history.record(entry.action, entry.at, entry.parameters);
  const pip = new FixturePip(scenario.pip);
  const pxp = new FixturePxp(scenario.pxp);
  const decisions: EngineDecision[] = [];
  for (const event of scenario.events) {
    const parameters = new Map(Object.entries(event.parameters));
    if (counted.has(event.action) && !event.explain) history.record(event.action, event.now, parameters);
    const ports: EvaluationPorts | undefined = scenario.ports ? { history, pip, pxp, clock: fixedClock(event.now) } : undefined;
    const options = { defaultDecision: scenario.defaultDecision, timeZone: scenario.timeZone, explain: event.explain };
    decisions.push(await decide(set, { action: event.action, timestamp: event.timestamp, parameters }, options, ports));
  }
  return { policies, decisions, pipCalls: pip.calls, pxpCalls: pxp.calls, historyCalls: history.calls };
}
