/** URN forms of policy-language.md §2. A solution is lower case; a name may mix case. */
const SOLUTION = '[a-z0-9._-]+';
const NAME = '[A-Za-z0-9._-]+';

export type UrnKind = 'policy' | 'action' | 'info' | 'timer';

export interface Urn {
  readonly kind: UrnKind;
  readonly solution: string;
  readonly name: string;
}

const PATTERNS: Record<UrnKind, RegExp> = {
  policy: new RegExp(`^urn:policy:(${SOLUTION}):(${NAME})$`),
  action: new RegExp(`^urn:action:(${SOLUTION}):(${NAME})$`),
  info: new RegExp(`^urn:info:(${SOLUTION}):(${NAME})$`),
  timer: new RegExp(`^urn:timer:(${SOLUTION}):(${NAME})$`),
};

export function readUrn(kind: UrnKind, text: string): Urn | null {
  const [, solution, name] = PATTERNS[kind].exec(text) ?? [];
  return solution === undefined || name === undefined ? null : { kind, solution, name };
}

export function urnForm(kind: UrnKind): string {
  return `urn:${kind}:<solution>:<name>`;
}
