import type { Pool } from 'pg';
import type { DeployedPolicy } from '@custos/contracts';
import { withChangeTransaction, type ChangeHook } from './db';
import type { DocumentMetadata, DocumentRecord, DocumentStore } from './documents';
import { currentRevision, recordChange, type PendingChange } from './revisions';
import type { Author } from './versions';

/** One checked item of a change set, on the store of its kind; `add` and `replace` carry the validated record. */
export type StagedChange =
  | { op: 'add' | 'replace'; store: DocumentStore<DocumentMetadata>; record: DocumentRecord<DocumentMetadata> }
  | { op: 'deploy' | 'revoke' | 'remove'; store: DocumentStore<DocumentMetadata>; id: string };

/** Why an item cannot be applied to what is stored: its index in the set, and the answer's status and message. */
export class ChangeSetConflict extends Error {
  constructor(
    readonly index: number,
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** The outcome of a change set: the revision in effect after it, and whether the deployed set changed. */
export interface ChangeSetOutcome {
  revision: number;
  changed: boolean;
}

/** What one document does to the deployed set by the end of the set. */
type Effect = { deploy: DeployedPolicy; newDeployment: boolean; store: DocumentStore<DocumentMetadata> } | { revoke: string };

/**
 * Applies the items in order, each against the state the ones before it left, in one transaction: a conflict with
 * what is stored (an add of an id that exists, any other op on an id that does not) rolls back all of it. What the
 * set does to the deployed documents takes ONE revision and one outbox row, so every pdp switches to all of it at
 * once: a single document travels as the usual `deploy`/`revoke`, several as one `documents` change. Every text an
 * add or replace stores is a new version of its document by `author`.
 */
export function applyChangeSet(
  pool: Pool,
  onChange: () => void,
  items: readonly StagedChange[],
  author: Author,
  hook?: ChangeHook<ChangeSetOutcome>,
): Promise<ChangeSetOutcome> {
  return withChangeTransaction(pool, onChange, async (client) => {
    // By id, in the order each document was last touched.
    const effects = new Map<string, Effect>();
    const settle = (id: string, effect: Effect) => {
      effects.delete(id);
      effects.set(id, effect);
    };
    for (const [index, item] of items.entries()) {
      switch (item.op) {
        case 'add':
          if (!(await item.store.insertIn(client, item.record, author))) throw new ChangeSetConflict(index, 409, `\`${item.record.id}\` exists already; replace it`);
          break;
        case 'replace': {
          const step = await item.store.replaceIn(client, item.record, author);
          if (step === undefined) throw new ChangeSetConflict(index, 404, `no document \`${item.record.id}\``);
          if (step.deployed !== undefined) {
            // Deployed earlier in this set: still a deployment that begins at this set's revision.
            const earlier = effects.get(item.record.id);
            const newDeployment = earlier !== undefined && 'deploy' in earlier && earlier.newDeployment;
            settle(item.record.id, { deploy: step.deployed, newDeployment, store: item.store });
          }
          break;
        }
        case 'deploy': {
          const step = await item.store.deployIn(client, item.id);
          if (step === undefined) throw new ChangeSetConflict(index, 404, `no document \`${item.id}\``);
          if (step.deployed !== undefined) settle(item.id, { deploy: step.deployed, newDeployment: true, store: item.store });
          break;
        }
        case 'revoke': {
          const step = await item.store.revokeIn(client, item.id);
          if (step === 'absent') throw new ChangeSetConflict(index, 404, `no document \`${item.id}\``);
          if (step === 'revoked') settle(item.id, { revoke: item.id });
          break;
        }
        case 'remove': {
          const step = await item.store.removeIn(client, item.id);
          if (step === 'absent') throw new ChangeSetConflict(index, 404, `no document \`${item.id}\``);
          if (step === 'deployed') settle(item.id, { revoke: item.id });
          break;
        }
      }
    }
    if (effects.size === 0) return { revision: await currentRevision(client), changed: false };
    const revision = await recordChange(client, (next) => pendingChange([...effects.values()], next));
    for (const effect of effects.values()) {
      if ('deploy' in effect && effect.newDeployment) await effect.store.beginDeploymentIn(client, effect.deploy.id, revision);
    }
    return { revision, changed: true };
  }, hook);
}

/** The one change message of a set's effects at `revision`: a lone document as before, several as `documents`. */
function pendingChange(effects: readonly Effect[], revision: number): PendingChange {
  const deploy = effects.flatMap((effect) => ('deploy' in effect ? [travelling(effect, revision)] : []));
  const revoke = effects.flatMap((effect) => ('revoke' in effect ? [effect.revoke] : []));
  const [onlyDeploy] = deploy;
  const [onlyRevoke] = revoke;
  if (effects.length === 1 && onlyDeploy !== undefined) return { type: 'deploy', policy: onlyDeploy };
  if (effects.length === 1 && onlyRevoke !== undefined) return { type: 'revoke', policyId: onlyRevoke };
  return { type: 'documents', deploy, revoke };
}

/** A deployed document as it travels: a new deployment of a kind that tracks it begins at this revision. */
const travelling = (effect: Extract<Effect, { deploy: DeployedPolicy }>, revision: number): DeployedPolicy =>
  effect.newDeployment && effect.store.tracksDeployment ? { ...effect.deploy, deployedAt: revision } : effect.deploy;
