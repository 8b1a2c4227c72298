// The head of an HTTP/1.1 answer, read from its bytes without a parser or a string (the open-loop generator's reader).

export const HEADER_END = Buffer.from('\r\n\r\n');
// node:http writes a header name as the server gave it; both spellings are searched without making a string.
const LENGTH_NAMES = [Buffer.from('\r\nContent-Length:'), Buffer.from('\r\ncontent-length:')];

/** The Content-Length of an answer's head (the pdp never answers chunked), or -1. */
export function contentLength(data, headEnd) {
  for (const name of LENGTH_NAMES) {
    const at = data.indexOf(name);
    if (at < 0 || at > headEnd) continue;
    let value = 0;
    let digits = 0;
    for (let i = at + name.length; i < headEnd; i++) {
      const byte = data[i];
      if (byte === 32) continue;
      if (byte < 48 || byte > 57) break;
      value = value * 10 + (byte - 48);
      digits += 1;
    }
    return digits > 0 ? value : -1;
  }
  return -1;
}
