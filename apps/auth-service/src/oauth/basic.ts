import { oauthErrors } from './errors';

/** What the Authorization header of a token request says. */
export type HeaderCredentials =
  | { kind: 'none' }
  | { kind: 'basic'; clientId: string; clientSecret: string }
  /** Another scheme (Bearer, Digest...): client authentication by a method we do not support. */
  | { kind: 'unsupported'; scheme: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** RFC 6749 Appendix B: `+` is a space, then percent-decoding; malformed escapes are an error. */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * Reads HTTP Basic client credentials (RFC 6749 §2.3.1, RFC 7617): base64 of `id:secret`, where
 * id and secret were each form-urlencoded first. Malformed credentials are `invalid_request`.
 */
export function parseAuthorization(header: string | undefined): HeaderCredentials {
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?:[ ]+(.*))?$/.exec(header.trim());
  const scheme = match?.[1];
  if (match === null || scheme === undefined) throw oauthErrors.invalidRequest('the authorization header is malformed');
  if (scheme.toLowerCase() !== 'basic') return { kind: 'unsupported', scheme };
  const encoded = (match[2] ?? '').trim();
  if (encoded === '' || !BASE64.test(encoded) || encoded.length % 4 === 1) {
    throw oauthErrors.invalidRequest('the basic credentials are not valid base64');
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw oauthErrors.invalidRequest('the basic credentials hold no `:` between client id and secret');
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (clientId === undefined || clientSecret === undefined) {
    throw oauthErrors.invalidRequest('the basic credentials are not validly form-urlencoded');
  }
  if (clientId === '') throw oauthErrors.invalidRequest('the basic credentials name no client');
  return { kind: 'basic', clientId, clientSecret };
}

/** Encodes Basic credentials the way RFC 6749 §2.3.1 asks clients to (for tests and tools). */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}
