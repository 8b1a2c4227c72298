import type * as Libxml from 'libxmljs2';

let loaded: typeof Libxml | undefined;

/**
 * libxmljs2, loaded when the first XML text is read rather than with the engine. A pdp that receives every policy
 * as a compiled tree (`loadCompiledTree`) never reads XML, so it never loads libxml2's native code and its memory.
 */
export function libxml(): typeof Libxml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require is the point: loading on first use
  loaded ??= require('libxmljs2') as typeof Libxml;
  return loaded;
}
