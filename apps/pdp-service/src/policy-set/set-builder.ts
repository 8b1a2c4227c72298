import {
  createPolicySet,
  emptyPolicySet,
  loadCompiledTree,
  loadPolicy,
  supportsPolicyTree,
  type CompiledPolicy,
  type LoadOutcome,
  type TimerDocument,
} from '@custos/policy-engine';
import { deployedDocument, documentKind, type DeployedDocument, type DocumentKind, type PolicyChange, type PolicySnapshot } from '@custos/contracts';
import { ComponentRegistry } from '../components/registry';
import { compileTimer } from '../timers/schedule';
import type { Deployments } from '../history/deployments';
import type { SetFailure, SetParts } from './active-set';
import { fingerprint } from './fingerprint';

/** A compiled document, or why it is not one. */
type Compiled<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** How one kind of document is compiled and where it lives in a set. */
interface KindCompiler<T> {
  compile(document: DeployedDocument): Compiled<T>;
  /** The compiled document of this id in `parts`, if any. */
  get(parts: SetParts, id: string): T | undefined;
}

/** The product of a snapshot: the parts of the new set and how many policies were compiled or reused. */
export interface BuiltSnapshot {
  parts: SetParts;
  compiled: number;
  reused: number;
}

export interface SetBuilderOptions {
  /** The policy compiler; the policy engine's loadPolicy unless a test swaps it. */
  compile?: (xml: string) => LoadOutcome;
  /** The compiler of policy trees; the policy engine's loadCompiledTree unless a test swaps it. */
  compileTree?: (tree: unknown) => LoadOutcome;
  /** Told about every document that does not compile (the active set logs and counts it). */
  onFailure: (failure: SetFailure) => void;
}

/** Compiling a large snapshot yields to the event loop this often, so decisions keep flowing. */
const COMPILE_SLICE_MS = 20;

const declaredAnother = (declared: string) => [`the document declares the id \`${declared}\``];

/**
 * Builds sets: the next one from a change, or a whole one from a snapshot, beside the active set (which it only
 * reads: compiled documents whose XML did not change, by its fingerprint, are reused). One compiler per document
 * kind: policies go through the policy engine, timers through `compileTimer`. A document that does not compile fails
 * the whole build (`undefined`), so the last good set stays.
 */
export class SetBuilder {
  private readonly compilers: { policy: KindCompiler<CompiledPolicy>; timer: KindCompiler<TimerDocument> };

  constructor(private readonly options: SetBuilderOptions) {
    const compile = options.compile ?? loadPolicy;
    const compileTree = options.compileTree ?? loadCompiledTree;
    this.compilers = {
      policy: {
        // From the tree pap checked when it has one this engine reads (no XML read, no libxml2); else from the XML.
        // A damaged tree fails like XML that does not compile: the last good set stays.
        compile: ({ id, xml, tree }) => {
          const fromTree = tree !== undefined && supportsPolicyTree(tree);
          let outcome: LoadOutcome;
          try {
            outcome = fromTree ? compileTree(tree) : compile(xml);
          } catch (error) {
            return { ok: false, problems: [`the compiler threw: ${(error as Error).message}`] };
          }
          if (!outcome.ok) {
            return { ok: false, problems: outcome.diagnostics.map((d) => `${d.line ?? '?'}:${d.column ?? '?'} ${d.code}: ${d.message}`) };
          }
          if (outcome.policy.id !== id) return { ok: false, problems: declaredAnother(outcome.policy.id) };
          return { ok: true, value: outcome.policy };
        },
        get: (parts, id) => parts.set.get(id),
      },
      timer: {
        // A deployed timer document: read with the engine's timer reader, its schedule checked as pap did.
        compile: ({ id, xml }) => {
          let outcome: ReturnType<typeof compileTimer>;
          try {
            outcome = compileTimer(xml);
          } catch (error) {
            return { ok: false, problems: [`the timer reader threw: ${(error as Error).message}`] };
          }
          if (!outcome.ok) return { ok: false, problems: outcome.problems };
          if (outcome.timer.id !== id) return { ok: false, problems: declaredAnother(outcome.timer.id) };
          return { ok: true, value: outcome.timer };
        },
        get: (parts, id) => parts.timers.get(id),
      },
    };
  }

  /**
   * The parts after one change (deploy, revoke, component or unregister) of `active`; undefined when a deployed
   * document does not compile.
   */
  applyChange(active: SetParts, change: Exclude<PolicyChange, { type: 'resync' }>): SetParts | undefined {
    switch (change.type) {
      case 'component':
        return { ...active, components: active.components.with(change.component) };
      case 'unregister':
        return { ...active, components: active.components.without(change.componentId) };
      case 'revoke': {
        const sources = new Map(active.sources);
        sources.delete(change.policyId);
        const deployments = new Map(active.deployments);
        deployments.delete(change.policyId);
        return { ...withoutDocument(active, change.policyId), sources, deployments };
      }
      case 'deploy': {
        const document = deployedDocument(change.policy);
        const sources = new Map(active.sources).set(document.id, fingerprint(document.xml));
        if (document.kind === 'timer') {
          const timer = this.compileOne(this.compilers.timer, document, 'change');
          return timer && { ...active, timers: new Map(active.timers).set(document.id, timer), sources };
        }
        const policy = this.compileOne(this.compilers.policy, document, 'change');
        return policy && { ...active, set: active.set.with([policy]), sources, deployments: withDeployment(active.deployments, document) };
      }
    }
  }

  /**
   * A whole set from a snapshot, reusing what `active` compiled from the same XML; undefined when a document does
   * not compile, the snapshot holds an id twice, or `cancelled()` turned true while it yielded.
   */
  async buildSnapshot(snapshot: PolicySnapshot, active: SetParts | undefined, cancelled: () => boolean): Promise<BuiltSnapshot | undefined> {
    const documents: Record<DocumentKind, DeployedDocument[]> = { policy: [], timer: [] };
    const sources = new Map<string, string>();
    const deployments = new Map<string, number>();
    for (const wire of snapshot.policies) {
      if (sources.has(wire.id)) {
        this.fail(wire.id, 'snapshot', [`the snapshot holds \`${wire.id}\` twice`], snapshot.revision);
        return undefined;
      }
      const document = deployedDocument(wire);
      documents[document.kind].push(document);
      sources.set(document.id, fingerprint(document.xml));
      if (document.kind === 'policy' && document.deployedAt !== undefined) deployments.set(document.id, document.deployedAt);
    }
    const build = { revision: snapshot.revision, active, sources, cancelled, slice: Date.now() };
    const policies = await this.compileAll(this.compilers.policy, documents.policy, build);
    if (!policies || cancelled()) return undefined;
    const timers = await this.compileAll(this.compilers.timer, documents.timer, build);
    if (!timers || cancelled()) return undefined;
    const components = new ComponentRegistry(new Map((snapshot.components ?? []).map((c) => [c.id.identifier, c])));
    const set = policies.values.size === 0 ? emptyPolicySet() : createPolicySet([...policies.values.values()]);
    // The log line has always counted policies only.
    return { parts: { set, timers: timers.values, components, sources, deployments }, compiled: policies.compiled, reused: policies.reused };
  }

  /** Every document of one kind, compiled or reused, by id; undefined as soon as one fails. */
  private async compileAll<T>(
    compiler: KindCompiler<T>,
    documents: readonly DeployedDocument[],
    build: { revision: number; active: SetParts | undefined; sources: ReadonlyMap<string, string>; cancelled: () => boolean; slice: number },
  ): Promise<{ values: Map<string, T>; compiled: number; reused: number } | undefined> {
    const values = new Map<string, T>();
    let compiled = 0;
    let reused = 0;
    for (const document of documents) {
      const { active } = build;
      // Reuse is decided against the set active when the build began; it cannot change while this loop runs.
      const same = active !== undefined && active.sources.get(document.id) === build.sources.get(document.id);
      let value = same ? compiler.get(active, document.id) : undefined;
      if (value !== undefined) {
        reused++;
      } else {
        value = this.compileOne(compiler, document, 'snapshot', build.revision);
        if (value === undefined) return undefined;
        compiled++;
      }
      values.set(document.id, value);
      if (Date.now() - build.slice > COMPILE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        if (build.cancelled()) return undefined;
        build.slice = Date.now();
      }
    }
    return { values, compiled, reused };
  }

  private compileOne<T>(compiler: KindCompiler<T>, document: DeployedDocument, source: 'change' | 'snapshot', revision?: number): T | undefined {
    const outcome = compiler.compile(document);
    if (outcome.ok) return outcome.value;
    this.fail(document.id, source, outcome.problems, revision);
    return undefined;
  }

  private fail(documentId: string, source: 'change' | 'snapshot', problems: string[], revision?: number): void {
    this.options.onFailure({ documentId, source, problems, ...(revision === undefined ? {} : { revision }) });
  }
}

/** The deployments after a policy was deployed or replaced: with its `deployedAt`, or without one when it came without. */
function withDeployment(deployments: Deployments, document: DeployedDocument): Deployments {
  const next = new Map(deployments);
  if (document.deployedAt === undefined) next.delete(document.id);
  else next.set(document.id, document.deployedAt);
  return next;
}

/** `parts` without the document `id`, whichever kind it is. */
function withoutDocument(parts: SetParts, id: string): Pick<SetParts, 'set' | 'timers' | 'components'> {
  if (documentKind(id) === 'policy') return { set: parts.set.without([id]), timers: parts.timers, components: parts.components };
  const timers = new Map(parts.timers);
  timers.delete(id);
  return { set: parts.set, timers, components: parts.components };
}
