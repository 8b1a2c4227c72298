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
import { deployedDocument, documentKind, type DeployedDocument, type DeployedPolicy, type PolicyChange, type PolicySnapshot } from '@custos/contracts';
import { ComponentRegistry } from '../components/registry';
import { compileTimer } from '../timers/schedule';
import type { Deployments } from '../history/deployments';
import type { SetFailure, SetParts } from './active-set';
import { fingerprint } from './fingerprint';
import { settingsOfSnapshot, withSettings, NO_SETTINGS } from './solution-settings';

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
  /**
   * The compiler of policy trees; the policy engine's loadCompiledTree keeping nothing for explanations unless a test
   * swaps it (an explanation fetches the documents it needs again: PolicySetFollower.explainable).
   */
  compileTree?: (tree: unknown) => LoadOutcome;
  /** Told about every document that does not compile (the active set logs and counts it). */
  onFailure: (failure: SetFailure) => void;
}

/** The validated tree kept for explanations was 2 KB of a compiled policy's 4.4 (issue 26); the pdp keeps nothing. */
const compileTreeKeepingNothing = (tree: unknown): LoadOutcome => loadCompiledTree(tree, { keepExplainingSource: false });

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
    const compileTree = options.compileTree ?? compileTreeKeepingNothing;
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
   * The parts after one change (deploy, revoke, documents, component, unregister or settings) of `active`; undefined when a
   * deployed document does not compile (for `documents`: any one of them, so none of them takes effect).
   */
  applyChange(active: SetParts, change: Exclude<PolicyChange, { type: 'resync' }>): SetParts | undefined {
    switch (change.type) {
      case 'component':
        return { ...active, components: active.components.with(change.component) };
      case 'unregister':
        return { ...active, components: active.components.without(change.componentId) };
      case 'settings':
        return { ...active, settings: withSettings(active.settings ?? NO_SETTINGS, change.solution, change.settings) };
      case 'revoke':
        return revoked(active, change.policyId);
      case 'deploy':
        return this.deployed(active, change.policy);
      case 'documents': {
        // All of a change set or none: the parts are only swapped in once every document compiled.
        let parts = change.revoke.reduce(revoked, active);
        for (const wire of change.deploy) {
          const next = this.deployed(parts, wire);
          if (next === undefined) return undefined;
          parts = next;
        }
        return parts;
      }
    }
  }

  /** `active` with one document deployed (or replaced); undefined when it does not compile. */
  private deployed(active: SetParts, wire: DeployedPolicy): SetParts | undefined {
    const document = deployedDocument(wire);
    const sources = new Map(active.sources).set(document.id, fingerprint(document.xml));
    if (document.kind === 'timer') {
      const timer = this.compileOne(this.compilers.timer, document, 'change');
      return timer && { ...active, timers: new Map(active.timers).set(document.id, timer), sources };
    }
    const policy = this.compileOne(this.compilers.policy, document, 'change');
    return policy && { ...active, set: active.set.with([policy]), sources, deployments: withDeployment(active.deployments, document) };
  }

  /**
   * A whole set from a snapshot, reusing what `active` compiled from the same XML; undefined when a document does
   * not compile, the snapshot holds an id twice, or `cancelled()` turned true while it yielded.
   */
  buildSnapshot(snapshot: PolicySnapshot, active: SetParts | undefined, cancelled: () => boolean): Promise<BuiltSnapshot | undefined> {
    return this.startSnapshot(active).finish(snapshot, cancelled);
  }

  /**
   * A snapshot build that takes documents as they arrive (`add`, e.g. one snapshot part at a time), so each is
   * compiled while the next parts travel and its parsed form dies young; `finish` takes the rest and the snapshot's
   * revision, components and settings. Reuse is decided against `active`, the set active when the build began.
   */
  startSnapshot(active: SetParts | undefined): SnapshotBuild {
    return new SnapshotBuild(this.compilers, active, (failure) => this.options.onFailure(failure));
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

/** What a snapshot build has so far: one map per kind, the fingerprints, the deployments and its first failure. */
export class SnapshotBuild {
  private readonly policies = new Map<string, CompiledPolicy>();
  private readonly timers = new Map<string, TimerDocument>();
  private readonly sources = new Map<string, string>();
  private readonly deployments = new Map<string, number>();
  private compiled = 0;
  private reused = 0;
  /**
   * The first document that failed; later ones are not compiled. Told only by `finish`, with the revision: a build
   * of a snapshot that turns out older than the active set is dropped unheard, as it was never compiled before.
   */
  private failure: Omit<SetFailure, 'source' | 'revision'> | undefined;

  constructor(
    private readonly compilers: { policy: KindCompiler<CompiledPolicy>; timer: KindCompiler<TimerDocument> },
    private readonly active: SetParts | undefined,
    private readonly onFailure: (failure: SetFailure) => void,
  ) {}

  /** Compiles (or reuses) `documents` now; the first failure stops the build. */
  add(documents: readonly DeployedPolicy[]): void {
    for (const wire of documents) this.take(wire);
  }

  /**
   * The set: the snapshot's remaining `policies` (those not `add`ed) compiled with a yield to the event loop every
   * COMPILE_SLICE_MS, then its components; undefined after a failure or when `cancelled()` turned true meanwhile.
   */
  async finish(snapshot: PolicySnapshot, cancelled: () => boolean): Promise<BuiltSnapshot | undefined> {
    let slice = Date.now();
    for (const wire of snapshot.policies) {
      if (this.failure !== undefined) break;
      this.take(wire);
      if (Date.now() - slice > COMPILE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        if (cancelled()) return undefined;
        slice = Date.now();
      }
    }
    if (this.failure !== undefined) {
      this.onFailure({ ...this.failure, source: 'snapshot', revision: snapshot.revision });
      return undefined;
    }
    if (cancelled()) return undefined;
    const components = new ComponentRegistry(new Map((snapshot.components ?? []).map((c) => [c.id.identifier, c])));
    const set = this.policies.size === 0 ? emptyPolicySet() : createPolicySet([...this.policies.values()]);
    const settings = settingsOfSnapshot(snapshot.settings);
    const parts: SetParts = { set, timers: this.timers, components, sources: this.sources, deployments: this.deployments, settings };
    // The log line has always counted policies only.
    return { parts, compiled: this.compiled, reused: this.reused };
  }

  private take(wire: DeployedPolicy): void {
    if (this.failure !== undefined) return;
    if (this.sources.has(wire.id)) {
      this.failure = { documentId: wire.id, problems: [`the snapshot holds \`${wire.id}\` twice`] };
      return;
    }
    const document = deployedDocument(wire);
    const source = fingerprint(document.xml);
    this.sources.set(document.id, source);
    if (document.kind === 'timer') {
      const timer = this.reuseOrCompile(this.compilers.timer, document, source);
      if (timer !== undefined) this.timers.set(document.id, timer);
      return;
    }
    if (document.deployedAt !== undefined) this.deployments.set(document.id, document.deployedAt);
    const policy = this.reuseOrCompile(this.compilers.policy, document, source, true);
    if (policy !== undefined) this.policies.set(document.id, policy);
  }

  private reuseOrCompile<T>(compiler: KindCompiler<T>, document: DeployedDocument, source: string, counted = false): T | undefined {
    const { active } = this;
    const same = active !== undefined && active.sources.get(document.id) === source;
    const kept = same ? compiler.get(active, document.id) : undefined;
    if (kept !== undefined) {
      if (counted) this.reused++;
      return kept;
    }
    const outcome = compiler.compile(document);
    if (!outcome.ok) {
      this.failure = { documentId: document.id, problems: outcome.problems };
      return undefined;
    }
    if (counted) this.compiled++;
    return outcome.value;
  }
}

/** The deployments after a policy was deployed or replaced: with its `deployedAt`, or without one when it came without. */
function withDeployment(deployments: Deployments, document: DeployedDocument): Deployments {
  const next = new Map(deployments);
  if (document.deployedAt === undefined) next.delete(document.id);
  else next.set(document.id, document.deployedAt);
  return next;
}

/** `active` with the document `id` no longer deployed. */
function revoked(active: SetParts, id: string): SetParts {
  const sources = new Map(active.sources);
  sources.delete(id);
  const deployments = new Map(active.deployments);
  deployments.delete(id);
  return { ...withoutDocument(active, id), sources, deployments };
}

/** `parts` without the document `id`, whichever kind it is. */
function withoutDocument(parts: SetParts, id: string): Pick<SetParts, 'set' | 'timers' | 'components'> {
  if (documentKind(id) === 'policy') return { set: parts.set.without([id]), timers: parts.timers, components: parts.components };
  const timers = new Map(parts.timers);
  timers.delete(id);
  return { set: parts.set, timers, components: parts.components };
}
