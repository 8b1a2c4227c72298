import { toAddress } from './addresses';
import { EgressPolicy } from './policy';

/** The policy of a pdp without PDP_CALL_ALLOW: public addresses only. pap warns against it at registration. */
export const DEFAULT_EGRESS_POLICY = new EgressPolicy([]);

/** The port a call to `url` connects to. */
export const egressPortOf = (url: URL): number => (url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** RFC 6761: `localhost` and every name under it is this host, whatever a resolver says. */
export const isLocalhostName = (host: string): boolean => /(^|\.)localhost\.?$/i.test(host);

/**
 * Why `url` is never called, whatever PDP_CALL_ALLOW says, or undefined: only http(s), and no user information
 * (it would travel as a Basic header the tenant chose, and it is a secret stored in the component).
 */
export function unconditionalRefusal(url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `\`${url.protocol}\` calls are not made`;
  if (url.username !== '' || url.password !== '') return 'a url with user information is not called';
  return undefined;
}

/**
 * Why a call to `url` is refused under `rules` before any name is resolved, or undefined. An address written in
 * the URL itself (any spelling: the URL parser has normalised decimal, octal and hex IPv4, and IPv4 inside IPv6
 * is unwrapped) must pass the policy, and so must this host when the URL names it as `localhost`. Any other name
 * passes here: what it resolves to can only be checked when it is called.
 */
export function egressRefusal(url: URL, rules: EgressPolicy): string | undefined {
  const always = unconditionalRefusal(url);
  if (always !== undefined) return always;
  const port = egressPortOf(url);
  const literal = toAddress(url.hostname);
  if (literal) return rules.refusal(url.hostname, literal, port);
  if (isLocalhostName(url.hostname) && !rules.names(url.hostname, port)) {
    // Refused unless loopback is allowed; the lookup then checks what the name really resolves to.
    const v4 = rules.refusal(url.hostname, { family: 'ipv4', text: '127.0.0.1' }, port);
    const v6 = rules.refusal(url.hostname, { family: 'ipv6', text: '0:0:0:0:0:0:0:1' }, port);
    if (v4 !== undefined && v6 !== undefined) return v4;
  }
  return undefined;
}
