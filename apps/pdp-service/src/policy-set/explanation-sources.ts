import { explanationSourcesNeeded, provideExplanationSource } from '@custos/policy-engine';
import { ERROR_CODES, isSnapshotUnchanged, type DeployedPolicy } from '@custos/contracts';
import { problems } from '@custos/service-kit';
import type { ActivePolicySet } from './active-set';
import { fingerprint } from './fingerprint';
import type { PolicyTransport } from './transport';

/** The active set now and the XML fingerprints of its documents (what the policies were compiled from). */
interface Current {
  readonly active: ActivePolicySet | undefined;
  readonly sources: ReadonlyMap<string, string>;
}

const unavailable = (detail: string) => problems.serviceUnavailable(ERROR_CODES.serviceUnavailable, detail, 1);

/**
 * Makes the policies deciding `action` explainable: the pdp keeps no policy text (issue 26), so on a policy's first
 * explanation its document is fetched from pap again (a snapshot request naming its id) and its explaining program
 * compiled, and kept from then on. Undefined when nothing needs fetching. Rejects with a 503 problem when pap cannot be
 * asked, or holds another text of a policy than the one this replica decides with (the set is changing: try again).
 */
export function explainable(transport: PolicyTransport, active: ActivePolicySet, action: string, current: () => Current): Promise<void> | undefined {
  const ids = explanationSourcesNeeded(active.set, action);
  return ids.length === 0 ? undefined : fetchSources(transport, active, ids, current);
}

async function fetchSources(transport: PolicyTransport, active: ActivePolicySet, ids: string[], current: () => Current): Promise<void> {
  const wanted = new Set(ids);
  const found = new Map<string, DeployedPolicy>();
  const take = (policies: readonly DeployedPolicy[]) => {
    for (const policy of policies) if (wanted.has(policy.id)) found.set(policy.id, policy);
  };
  try {
    const answer = await transport.fetchSnapshot(take, undefined, ids);
    if (!isSnapshotUnchanged(answer)) take(answer.policies);
  } catch (error) {
    throw unavailable(`the policies to explain could not be fetched from pap: ${error instanceof Error ? error.message : String(error)}`);
  }
  const now = current();
  for (const id of ids) {
    const policy = active.set.get(id);
    const document = found.get(id);
    // The fingerprints are those of the set active now: they speak for `policy` only while it is still that set's.
    const same = policy !== undefined && now.active?.set.get(id) === policy && document !== undefined && fingerprint(document.xml) === now.sources.get(id);
    if (!same) throw unavailable(`pap holds another version of \`${id}\` than this replica decides with (the set is changing); try again`);
    if (!provideExplanationSource(policy, document)) throw new Error(`bug: the document of \`${id}\` does not compile to the policy it is the text of`);
  }
}
