import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { toAddress } from './addresses';
import { EgressPolicy } from './policy';

/** A call the egress policy refuses; `code` is what the caller's network error handling reports. */
export class EgressRefused extends Error {
  readonly code = 'EGRESS_REFUSED';
}

let policy: EgressPolicy | undefined;

/** The policy of this process, read from PDP_CALL_ALLOW on first use. */
export function activeEgressPolicy(): EgressPolicy {
  policy ??= EgressPolicy.fromEnv(process.env);
  return policy;
}

const portOf = (url: URL): number => (url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);
/** RFC 6761: `localhost` and every name under it is this host, whatever a resolver says. */
const isLocalhostName = (host: string): boolean => /(^|\.)localhost\.?$/i.test(host);

/**
 * Why a call to `url` is refused before any name is resolved, or undefined: only http(s), no userinfo (it would
 * travel as a Basic header the tenant chose), and an address written in the URL itself (any spelling: the URL
 * parser has normalised decimal, octal and hex IPv4, and IPv4 inside IPv6 is unwrapped) must pass the policy.
 */
export function egressRefusal(url: URL, rules: EgressPolicy = activeEgressPolicy()): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `\`${url.protocol}\` calls are not made`;
  if (url.username !== '' || url.password !== '') return 'a url with user information is not called';
  const port = portOf(url);
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

/**
 * The `lookup` for the request to `url`: resolves the name once, checks every address it resolves to, and
 * hands only checked addresses to the connection, so a name cannot answer one address to the check and
 * another to the connect (DNS rebinding).
 */
export function guardedLookup(url: URL, rules: EgressPolicy = activeEgressPolicy()): LookupFunction {
  const port = portOf(url);
  return (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      for (const resolved of addresses) {
        const address = toAddress(resolved.address);
        const why = address ? rules.refusal(hostname, address, port) : `\`${resolved.address}\` is not an address`;
        if (why !== undefined) return callback(new EgressRefused(`\`${hostname}\` resolves to a refused address: ${why}`), '', 0);
      }
      if (options.all === true) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(new EgressRefused(`\`${hostname}\` resolves to no address`), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}
