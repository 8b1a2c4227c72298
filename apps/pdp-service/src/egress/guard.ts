import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { EgressPolicy, egressPortOf, toAddress } from '@custos/service-kit';

/** A call the egress policy refuses; `code` is what the caller's network error handling reports. */
export class EgressRefused extends Error {
  readonly code = 'EGRESS_REFUSED';
}

let policy: EgressPolicy | undefined;

/**
 * The policy read from this process's PDP_CALL_ALLOW on first use: for call targets built without the one a
 * composed pdp reads in its config (unit tests that build them directly).
 */
export function activeEgressPolicy(): EgressPolicy {
  policy ??= EgressPolicy.fromEnv(process.env);
  return policy;
}

/**
 * The `lookup` for the request to `url`: resolves the name once, checks every address it resolves to, and
 * hands only checked addresses to the connection, so a name cannot answer one address to the check and
 * another to the connect (DNS rebinding).
 */
export function guardedLookup(url: URL, rules: EgressPolicy): LookupFunction {
  const port = egressPortOf(url);
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
