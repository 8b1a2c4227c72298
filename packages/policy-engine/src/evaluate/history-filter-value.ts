import type { JSONPathQuery, JSONValue } from 'json-p3';
import { readJsonPath } from '../parse/json-path';

const PATHS = new Map<string, JSONPathQuery | null>();

/**
 * The value an `eventOccurrence` filter compares a recorded parameter by (policy-language.md §6), for history stores
 * that keep only hashes and must prepare them when recording: the parameter itself without a path; with one, the
 * single value selected, or the list of selected values when the path can select several. `undefined` when the path
 * selects nothing (no filter with that path matches the event). Pure; paths are compiled once and remembered.
 */
export function historyFilterValue(path: string | null, recorded: unknown): unknown {
  if (path === null) return recorded;
  let query = PATHS.get(path);
  if (query === undefined) {
    const read = readJsonPath(path);
    query = read.ok ? read.value : null;
    if (PATHS.size >= 1024) PATHS.clear();
    PATHS.set(path, query);
  }
  if (query === null || recorded === undefined || recorded === null) return undefined;
  let nodes;
  try {
    nodes = query.query(recorded as JSONValue);
  } catch {
    // Only the recursion limit of `..` throws: such a value matches nothing.
    return undefined;
  }
  if (!query.singularQuery()) return nodes.values();
  return nodes.nodes[0]?.value;
}
