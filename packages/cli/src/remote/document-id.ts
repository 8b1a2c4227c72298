/** Policies and timers are both XML documents the pap stores by the `id` of their root element. */
export type DocumentKind = 'policy' | 'timer';

const PROLOG_PART = /^\s*(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)/i;
const START_TAG = /^\s*<([A-Za-z_][\w.:-]*)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/;
const ID_ATTRIBUTE = /(?:^|\s)id\s*=\s*(?:"([^"]*)"|'([^']*)')/;

/**
 * The `id` attribute of a document's root element, read without a full XML parse: enough to know which resource a
 * file names (for `replace` and `apply`). Whether the document is valid is the pap's to say, with line and column.
 */
export function rootIdOf(xml: string): string | undefined {
  let rest = xml.replace(/^\uFEFF/, '');
  for (let match = PROLOG_PART.exec(rest); match; match = PROLOG_PART.exec(rest)) rest = rest.slice(match[0].length);
  const tag = START_TAG.exec(rest);
  if (!tag) return undefined;
  const id = ID_ATTRIBUTE.exec(tag[2] ?? '');
  return id ? (id[1] ?? id[2]) : undefined;
}

/** `policy` for `urn:policy:…`, `timer` for `urn:timer:…`, else undefined. */
export function kindOfId(id: string): DocumentKind | undefined {
  if (id.startsWith('urn:policy:')) return 'policy';
  if (id.startsWith('urn:timer:')) return 'timer';
  return undefined;
}

/** The solution of `urn:<kind>:<solution>:<name>`. */
export function solutionOfId(id: string): string | undefined {
  const parts = id.split(':');
  return parts.length === 4 && parts[2] !== '' ? parts[2] : undefined;
}
