import type { DeployedPolicy } from './nats';

/** Small readers shared by the propagation codecs. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A revision: a safe non-negative integer. */
export const isRevision = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The wire form of a deployed document, or undefined. A `tree`, when present, must be a JSON object; what is inside
 * is the policy engine's to check. A `deployedAt`, when present, must be a revision.
 */
export function wireDocument(value: unknown): DeployedPolicy | undefined {
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.xml !== 'string') return undefined;
  const { tree, deployedAt } = value;
  if (tree !== undefined && !isRecord(tree)) return undefined;
  if (deployedAt !== undefined && !isRevision(deployedAt)) return undefined;
  return {
    id: value.id,
    xml: value.xml,
    ...(tree === undefined ? {} : { tree }),
    ...(deployedAt === undefined ? {} : { deployedAt }),
  };
}

export const utf8Encoder = new TextEncoder();
export const utf8Decoder = new TextDecoder();
