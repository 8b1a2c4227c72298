import type { Component } from './component';
import type { SolutionSettings, SolutionSettingsEntry } from './solution-settings';

/**
 * Propagation of the deployed policy set from pap to pdp replicas (architecture.md §2).
 * Everything lives under a prefix so several stacks can share one NATS server.
 */
export interface PolicySubjects {
  /**
   * JetStream stream that stores every change; pap publishes with msgID `<prefix>:<revision>` and counts a change
   * delivered once the stream acknowledged it. pdps read missed changes back from it (replay), else take a snapshot.
   */
  stream: string;
  /** Subject of change messages (PolicyChange). */
  changes: string;
  /** Request subject for a snapshot; the answer comes as SnapshotPart (or SnapshotUnchanged) messages on the reply inbox. */
  snapshot: string;
}

export function policySubjects(prefix: string): PolicySubjects {
  return {
    stream: `${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}_policy_changes`,
    changes: `${prefix}.policy.changes`,
    snapshot: `${prefix}.policy.snapshot`,
  };
}

/**
 * A deployed document as it travels: a policy (`urn:policy:<solution>:<name>`, policy XML) or a timer
 * (`urn:timer:<solution>:<name>`, a timer document of policy-language.md §10). Timers travel in the same
 * list and the same change messages as policies: the id tells the receiver which reader to use
 * (`deployedDocument` below), so nothing on the wire names the kind.
 */
export interface DeployedPolicy {
  id: string;
  /** The source of truth, what `GET /ws/policy/{id}` returns. */
  xml: string;
  /**
   * Policies only, optional: the checked policy as the policy engine's JSON tree (`PolicyTree`), which receivers
   * compile without reading the XML. Receivers that lack it, or cannot read its version, compile the XML.
   */
  tree?: Record<string, unknown>;
  /**
   * Optional: the revision at which the current deployment of this document began (its not deployed → deployed
   * change). Replacing a deployed document keeps it; a revoke and a later deploy give a new one. Receivers key
   * per-deployment state (valueChanged) by it; without it they keep such state across deployments.
   */
  deployedAt?: number;
}

/** What a deployed document is, as its id says. */
export type DocumentKind = 'policy' | 'timer';

/** A deployed document with its kind read from its id: what receivers compile. */
export interface DeployedDocument {
  readonly kind: DocumentKind;
  readonly id: string;
  readonly xml: string;
  readonly tree?: Record<string, unknown>;
  readonly deployedAt?: number;
}

/** The kind of a deployed document: `urn:timer:` ids are timers, every other id a policy. */
export const documentKind = (id: string): DocumentKind => (id.startsWith('urn:timer:') ? 'timer' : 'policy');

/** A document off the wire with its kind. */
export const deployedDocument = ({ id, xml, tree, deployedAt }: DeployedPolicy): DeployedDocument => ({
  kind: documentKind(id),
  id,
  xml,
  ...(tree === undefined ? {} : { tree }),
  ...(deployedAt === undefined ? {} : { deployedAt }),
});

/**
 * One change of what the pdps decide with, at `revision` (gap-free, strictly increasing, one counter for all
 * kinds below, so a revision names exactly one state of policies, timers and PIP/PXP components):
 * - `deploy`: a policy or timer deployed or replaced while deployed (`policy.id` says which kind);
 * - `revoke`: a policy or timer no longer deployed (revoked or removed);
 * - `component`: a PIP or PXP component registered or re-registered with a different body (PEPs do not travel:
 *   the pdp never calls them);
 * - `unregister`: a PIP or PXP component removed;
 * - `documents`: several policies and timers deployed (`deploy`) and revoked (`revoke`) at the one revision, from a
 *   change set (api.md §4): a receiver switches to all of them at once or to none. Senders use it only for two or
 *   more documents; a receiver that does not know it ignores it, sees the gap and fetches a snapshot;
 * - `settings`: a solution's settings (its default decisions) replaced: `settings` holds every setting the solution
 *   has now (an empty object: none, the pdp's own defaults apply). A receiver that does not know it ignores it, sees
 *   the gap and fetches a snapshot, which carries the settings;
 * - `resync`: sent instead of any of the above when the message would be too large: receivers fetch a snapshot.
 */
export type PolicyChange =
  | { revision: number; type: 'deploy'; policy: DeployedPolicy }
  | { revision: number; type: 'revoke'; policyId: string }
  | { revision: number; type: 'component'; component: Component }
  | { revision: number; type: 'unregister'; componentId: string }
  | { revision: number; type: 'documents'; deploy: DeployedPolicy[]; revoke: string[] }
  | { revision: number; type: 'settings'; solution: string; settings: SolutionSettings }
  | { revision: number; type: 'resync' };

/**
 * Everything deployed at one revision: policies and timers (`policies`, by id) and the registered PIP and PXP
 * components (`components`, by id), and the settings of every solution that has any (`settings`, by solution).
 * `components` and `settings` may be absent in snapshots of older senders: read them as empty.
 */
export interface PolicySnapshot {
  revision: number;
  policies: DeployedPolicy[];
  components?: Component[];
  settings?: SolutionSettingsEntry[];
}

/**
 * A deployed document as a sender may hold it: its tree still the JSON text it was stored as (`treeJson`, a JSON
 * object), so it is written onto the wire as it is, without being parsed and stringified again (issue 26: that was
 * most of pap's time per snapshot). It travels as the DeployedPolicy with that `tree`.
 */
export interface StoredDocument {
  id: string;
  xml: string;
  treeJson?: string;
  deployedAt?: number;
}

/** A PolicySnapshot as a sender holds it: documents as DeployedPolicy or StoredDocument, the same on the wire. */
export interface OutgoingSnapshot {
  revision: number;
  policies: ReadonlyArray<DeployedPolicy | StoredDocument>;
  components?: Component[];
  settings?: SolutionSettingsEntry[];
}

/**
 * A snapshot answer, the one format of start-up snapshots, periodic checks, gaps the stream no longer holds and
 * explanations alike, over NATS and the in-process channel: one message per run of whole documents, its payload the
 * UTF-8 JSON of this object, so a receiver reads each message on its own and never holds the whole snapshot as text.
 * Every part carries the snapshot's `revision`; `components` and `settings` come in part 0 only; `index` counts from
 * 0 and `last` marks the final part. A part larger than one message travels as SnapshotPieces.
 */
export interface SnapshotPart {
  format: 2;
  index: number;
  last: boolean;
  revision: number;
  policies: DeployedPolicy[];
  components?: Component[];
  settings?: SolutionSettingsEntry[];
}

/**
 * A run of the UTF-8 JSON bytes of SnapshotPart `index` when that part does not fit one message (a document larger
 * than a message, pap accepting 5 MB policies), base64 in `data`; a cut may fall inside a character. `piece` counts
 * from 0; `more` is true on all but the final piece, after which the joined bytes are read as the part.
 */
export interface SnapshotPiece {
  format: 2;
  index: number;
  piece: number;
  more: boolean;
  data: string;
}

/** Body of a snapshot request; `requester` names the replica for pap's log. */
export interface SnapshotRequest {
  requester: string;
  /**
   * The revision the requester holds (issue 26): a pap still at that revision answers with one `SnapshotUnchanged`
   * message instead of the set, so the periodic check of an unchanged set costs a look at one row, not the set.
   * Absent (a first snapshot, older requesters): the whole set, as always.
   */
  known?: number;
  /**
   * Only these documents (issue 26: a pdp keeps no policy text, and fetches the documents of the policies it is
   * asked to explain). The answer is a snapshot of the current revision holding those of them that are deployed;
   * an older pap ignores the field and sends the whole set, of which the requester takes what it asked for.
   */
  ids?: string[];
}

/**
 * Format 3 of a snapshot answer, sent only to a request that gave `known`, and only when pap's revision is that one:
 * the requester's set is current. One message; it carries no documents, so it must never be read as an empty set.
 */
export interface SnapshotUnchanged {
  format: 3;
  revision: number;
}
