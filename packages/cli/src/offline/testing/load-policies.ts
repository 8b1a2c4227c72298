import { readFileSync, statSync } from 'node:fs';
import { createPolicySet, outlinePolicy, type CompiledPolicy, type PolicyOutline, type PolicySet } from '@custos/policy-engine';
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

type Loaded = { ok: true; policy: LoadedPolicy | null } | { ok: false; problems: LocatedProblem[] };

/** Loads each policy file once however many test files name it. */
export class PolicyCache {
  private readonly files = new Map<string, Loaded>();

  /** The set a test file decides with, or every problem of its policies (located in the policy files). */
  setFor(testFile: Pick<TestFile, 'file' | 'policies'>): { ok: true; set: PolicySet; policies: LoadedPolicy[] } | { ok: false; problems: LocatedProblem[] } {
    const problems: LocatedProblem[] = [];
    const policies: LoadedPolicy[] = [];
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
    return { ok: true, set: createPolicySet(unique.map((loaded) => loaded.policy)), policies: unique };
  }

  /** A timer named directly is a mistake; one found in a directory is simply not a policy. */
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
    return named ? { ok: false, problems: [{ file, message: 'is a timer; tests decide events against policies' }] } : { ok: true, policy: null };
  }
  if (!checked.ok) {
    return {
      ok: false,
      problems: checked.diagnostics.map((d) => ({
        file,
        message: d.message,
        code: d.code,
        ...(d.line === undefined ? {} : { line: d.line }),
        ...(d.column === undefined ? {} : { column: d.column }),
      })),
    };
  }
  if (checked.kind !== 'policy') return { ok: true, policy: null };
  return { ok: true, policy: { file, policy: checked.policy, outline: outlinePolicy(xml) } };
}
