import { readFileSync, statSync } from 'node:fs';
import { createPolicySet, outlinePolicy, type CompiledPolicy, type PolicyOutline, type Diagnostic, type PolicySet, type TimerDocument } from '@custos/policy-engine';
import type { LocatedProblem } from '../../output/located';
import { checkDocument } from '../check/check-document';
import { findFiles, unreadable } from '../files';
import type { TestFile } from './test-file';

/** A policy a test file uses, with where it came from and its outline (for coverage). */
export interface LoadedPolicy {
  file: string;
  policy: CompiledPolicy;
  outline: PolicyOutline | null;
}

/** A timer found among a test file's policy paths, which `tick` tests fire. */
export interface LoadedTimer {
  file: string;
  timer: TimerDocument;
}

type Loaded = { ok: true; policy: LoadedPolicy | null; timer?: LoadedTimer } | { ok: false; problems: LocatedProblem[] };

export type LoadedSet = { ok: true; set: PolicySet; policies: LoadedPolicy[]; timers: Map<string, LoadedTimer> } | { ok: false; problems: LocatedProblem[] };

/** Loads each policy file once however many test files name it. */
export class PolicyCache {
  private readonly files = new Map<string, Loaded>();

  /** The set a test file decides with, or every problem of its policies (located in the policy files). */
  setFor(testFile: Pick<TestFile, 'file' | 'policies'>): LoadedSet {
    const problems: LocatedProblem[] = [];
    const policies: LoadedPolicy[] = [];
    const timers = new Map<string, LoadedTimer>();
    for (const entry of testFile.policies) {
      const where = { file: testFile.file, ...(entry.line === undefined ? {} : { line: entry.line }), ...(entry.column === undefined ? {} : { column: entry.column }) };
      let isDirectory: boolean;
      try {
        isDirectory = statSync(entry.path).isDirectory();
      } catch (error) {
        problems.push({ ...where, message: `policy \`${entry.written}\` (${entry.path}): ${unreadable(error)}` });
        continue;
      }
      const files = isDirectory ? findFiles([entry.path], '.xml').files : [entry.path];
      if (isDirectory && files.length === 0) problems.push({ ...where, message: `policy directory \`${entry.written}\` holds no \`*.xml\` file` });
      for (const file of files) {
        const loaded = this.load(file, !isDirectory);
        if (!loaded.ok) problems.push(...loaded.problems);
        else if (loaded.policy !== null) policies.push(loaded.policy);
        else if (loaded.timer !== undefined) {
          const other = timers.get(loaded.timer.timer.id);
          if (other !== undefined && other.file !== loaded.timer.file) {
            problems.push({ file: loaded.timer.file, code: 'duplicate_id', message: `id \`${loaded.timer.timer.id}\` is already used by \`${other.file}\`` });
          }
          timers.set(loaded.timer.timer.id, loaded.timer);
        }
      }
    }
    const byId = new Map<string, LoadedPolicy>();
    for (const loaded of policies) {
      const other = byId.get(loaded.policy.id);
      if (other !== undefined && other.file !== loaded.file) {
        problems.push({ file: loaded.file, code: 'duplicate_id', message: `id \`${loaded.policy.id}\` is already used by \`${other.file}\`` });
      }
      byId.set(loaded.policy.id, loaded);
    }
    if (problems.length > 0) return { ok: false, problems };
    const unique = [...byId.values()];
    return { ok: true, set: createPolicySet(unique.map((loaded) => loaded.policy)), policies: unique, timers };
  }

  /**
   * A timer is kept for `tick` tests. One named directly must be valid; an invalid one found in a directory is
   * skipped, as before timers could be tested (`custos policy check` reports it).
   */
  private load(file: string, named: boolean): Loaded {
    const key = `${named ? 'file' : 'dir'}:${file}`;
    const cached = this.files.get(key);
    if (cached !== undefined) return cached;
    const loaded = loadOne(file, named);
    this.files.set(key, loaded);
    return loaded;
  }
}

function loadOne(file: string, named: boolean): Loaded {
  let xml: string;
  try {
    xml = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, problems: [{ file, message: unreadable(error) }] };
  }
  const checked = checkDocument(xml);
  if (checked.kind === 'timer') {
    if (checked.ok) return { ok: true, policy: null, timer: { file, timer: checked.timer } };
    return named ? { ok: false, problems: problemsOf(file, checked.diagnostics) } : { ok: true, policy: null };
  }
  if (!checked.ok) return { ok: false, problems: problemsOf(file, checked.diagnostics) };
  return { ok: true, policy: { file, policy: checked.policy, outline: outlinePolicy(xml) } };
}

function problemsOf(file: string, diagnostics: readonly Diagnostic[]): LocatedProblem[] {
  return diagnostics.map((d) => ({
    file,
    message: d.message,
    code: d.code,
    ...(d.line === undefined ? {} : { line: d.line }),
    ...(d.column === undefined ? {} : { column: d.column }),
  }));
}
