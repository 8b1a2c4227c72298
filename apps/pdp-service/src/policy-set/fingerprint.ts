import * as crypto from 'node:crypto';

/**
 * The one-shot `crypto.hash` (Node 20.12 and later) takes a third of createHash's CPU for a 0.8 KB text, and a cold
 * start hashes every document (10,000 at the benchmark's size); Node 20.11, which package.json still allows, has only
 * createHash.
 */
const sha256Base64: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'base64') : (text) => crypto.createHash('sha256').update(text).digest('base64');

/**
 * What the pdp keeps of a document's XML once compiled: its SHA-256, enough to tell whether a later snapshot brings the
 * same text (so the compiled document is reused) without holding the text itself (about 0.7 KB per policy).
 */
export function fingerprint(xml: string): string {
  return sha256Base64(xml);
}
