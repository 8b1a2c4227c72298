import { createHash } from 'node:crypto';

/**
 * What the pdp keeps of a document's XML once compiled: its SHA-256, enough to tell whether a later snapshot brings the
 * same text (so the compiled document is reused) without holding the text itself (about 0.7 KB per policy).
 */
export function fingerprint(xml: string): string {
  return createHash('sha256').update(xml).digest('base64');
}
