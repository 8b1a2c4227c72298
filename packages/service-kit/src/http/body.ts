import type { IncomingMessage } from 'node:http';
import { ERROR_CODES } from '@custos/contracts';
import { HttpProblem, problems } from './problem';
import { jsonErrorOffset } from './json-syntax';

/** The media type without parameters, lower case; undefined when the header is absent. */
export function mediaType(req: IncomingMessage): string | undefined {
  const header = req.headers['content-type'];
  if (!header) return undefined;
  return (header.split(';', 1)[0] ?? '').trim().toLowerCase();
}

function charsetOf(req: IncomingMessage): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.headers['content-type'] ?? '');
  return match?.[1]?.toLowerCase();
}

/** Rejects a body that is not one of `accepted` (415), or that declares a charset other than UTF-8. */
export function requireMediaType(req: IncomingMessage, accepted: readonly string[]): void {
  const type = mediaType(req);
  if (type === undefined || !accepted.includes(type)) throw problems.unsupportedMediaType(type, accepted);
  const charset = charsetOf(req);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new HttpProblem(415, ERROR_CODES.unsupportedMediaType, `charset \`${charset}\` is not supported; send utf-8`);
  }
}

/**
 * Reads the whole body as UTF-8, failing with 413 as soon as it grows past `limit`
 * (the declared Content-Length is checked first so an oversized upload is refused before it is read).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => readBodyThen(req, limit, (error, text) => (error === undefined ? resolve(text) : reject(error))));
}

/** What readBodyThen calls once: the error, or undefined and the text. */
export type BodyCallback = (error: unknown, text: string) => void;

/**
 * readBody with a callback instead of a promise, for the hot path of a request (one closure, no promise and no
 * microtask turn per body). `done` is called exactly once; with an error, the text is ''.
 */
export function readBodyThen(req: IncomingMessage, limit: number, done: BodyCallback): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    done(problems.payloadTooLarge(limit), '');
    return;
  }
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let size = 0;
  let failed = false;
  req.on('data', (chunk: Buffer) => {
    if (failed) return;
    size += chunk.length;
    if (size > limit) {
      failed = true;
      done(problems.payloadTooLarge(limit), '');
      req.resume();
      return;
    }
    if (first === undefined) first = chunk;
    else (more ??= [first]).push(chunk);
  });
  req.on('end', () => {
    if (failed) return;
    failed = true;
    // One chunk (most bodies) is decoded in place rather than copied first.
    done(undefined, more !== undefined ? Buffer.concat(more).toString('utf8') : first === undefined ? '' : first.toString('utf8'));
  });
  req.on('error', (error) => {
    if (!failed) {
      failed = true;
      done(error, '');
    }
  });
}

/** Line and column (1-based) of a character offset. */
export function locate(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The syntax error of JSON.parse in our words: V8 sometimes quotes the whole input in its
 * message, which must not be echoed back (it may be large, or hold secrets).
 */
function describeJsonError(text: string, message: string): { message: string; line?: number; column?: number } {
  const position = /at position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : jsonErrorOffset(text);
  const where = offset === undefined ? undefined : locate(text, offset);
  const token = /^Unexpected token '(.+?)', /s.exec(message)?.[1];
  let reason: string;
  if (token !== undefined) reason = `unexpected token \`${token.slice(0, 16)}\``;
  else if (/Unexpected end of JSON input/.test(message)) reason = 'unexpected end of input';
  else reason = message.replace(/ in JSON at position \d+.*$/s, '').replace(/^./, (c) => c.toLowerCase());
  if (/Unexpected end of JSON input/.test(message)) return { message: reason, ...locate(text, text.length) };
  return where ? { message: reason, ...where } : { message: reason };
}

/** Parses JSON text; a syntax error becomes a 400 problem that says what and where. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = text.trim() === '' ? 'the body is empty' : 'the body is not valid JSON';
    throw problems.badRequest(ERROR_CODES.malformedJson, reason, [describeJsonError(text, message)]);
  }
}

export const JSON_TYPES = ['application/json'] as const;
export const XML_TYPES = ['application/xml', 'text/xml'] as const;
export const FORM_TYPES = ['application/x-www-form-urlencoded'] as const;
