/**
 * URN forms shared by every service (policy-language.md §2, api.md §2.2).
 * A solution is lower case; a name may mix case.
 */
export const SOLUTION_PATTERN = '[a-z0-9._-]+';
export const NAME_PATTERN = '[A-Za-z0-9._-]+';

export type UrnKind = 'policy' | 'action' | 'info' | 'timer';

/** The whole-string pattern of `urn:<kind>:<solution>:<name>`, for JSON Schemas (the path parameters of pap). */
export const urnPatternOf = (kind: UrnKind): string => `^urn:${kind}:(${SOLUTION_PATTERN}):(${NAME_PATTERN})$`;

const urnPattern = (kind: UrnKind) => new RegExp(urnPatternOf(kind));

const URN_PATTERNS: Record<UrnKind, RegExp> = {
  policy: urnPattern('policy'),
  action: urnPattern('action'),
  info: urnPattern('info'),
  timer: urnPattern('timer'),
};

export interface ParsedUrn {
  kind: UrnKind;
  solution: string;
  name: string;
}

/** Parses `urn:<kind>:<solution>:<name>`; undefined when the text is not of that form. */
export function parseUrn(kind: UrnKind, text: string): ParsedUrn | undefined {
  const [, solution, name] = URN_PATTERNS[kind].exec(text) ?? [];
  if (solution === undefined || name === undefined) return undefined;
  return { kind, solution, name };
}

export const COMPONENT_URN_PATTERN = `^urn:component:(${SOLUTION_PATTERN}):(pep|pip|pxp):(${NAME_PATTERN})$`;
const COMPONENT_URN = new RegExp(COMPONENT_URN_PATTERN);

export interface ParsedComponentUrn {
  solution: string;
  type: 'PEP' | 'PIP' | 'PXP';
  name: string;
}

export function parseComponentUrn(text: string): ParsedComponentUrn | undefined {
  const [, solution, type, name] = COMPONENT_URN.exec(text) ?? [];
  if (solution === undefined || type === undefined || name === undefined) return undefined;
  return { solution, type: type.toUpperCase() as ParsedComponentUrn['type'], name };
}

