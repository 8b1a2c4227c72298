import { BlockList } from 'node:net';
import { ConfigError } from '../config';
import { isLinkLocal, isPublic, toAddress, type IpAddress } from './addresses';

/** Ports the Custos services listen on by default; with PDP_PORT, PAP_PORT and AUTH_PORT, never called unless named. */
const SERVICE_PORTS = [8080, 8081, 8082];

/** A malformed PDP_CALL_ALLOW entry; a ConfigError, so a starting pdp says it in one sentence and stops. */
export class EgressConfigError extends ConfigError {}

/** One `host[:port]` entry of the allow list. */
interface NamedHost {
  host: string;
  port: number | undefined;
}

/**
 * Where the pdp may send PIP queries and PXP executions (`PDP_CALL_ALLOW`). By default only public
 * addresses. The allow list adds networks (CIDRs, or single addresses) and hosts (`host[:port]`). Link-local
 * and metadata addresses, and the ports the Custos services listen on, are refused even inside an allowed
 * network, unless the allow list names them exactly (the address itself, or the host with that port).
 */
export class EgressPolicy {
  private readonly networks = new BlockList();
  /** Single addresses named as such, for the exact-naming rules. */
  private readonly exactAddresses = new Set<string>();
  private readonly hosts: NamedHost[] = [];
  private readonly servicePorts: Set<number>;

  constructor(entries: readonly string[], servicePorts: readonly number[] = SERVICE_PORTS) {
    this.servicePorts = new Set(servicePorts);
    for (const entry of entries) this.add(entry);
  }

  /** PDP_CALL_ALLOW: comma-separated CIDRs, addresses and `host[:port]`; the service ports from the environment too. */
  static fromEnv(env: Readonly<Record<string, string | undefined>>): EgressPolicy {
    const entries = (env.PDP_CALL_ALLOW ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    const ports = [...SERVICE_PORTS];
    for (const name of ['PDP_PORT', 'PAP_PORT', 'AUTH_PORT']) {
      const port = Number(env[name]);
      if (Number.isInteger(port) && port > 0) ports.push(port);
    }
    return new EgressPolicy(entries, ports);
  }

  private add(entry: string): void {
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr?.[1] !== undefined && cidr[2] !== undefined) {
      const address = toAddress(cidr[1]);
      const prefix = Number(cidr[2]);
      if (!address || prefix > (address.family === 'ipv4' ? 32 : 128)) throw new EgressConfigError(`PDP_CALL_ALLOW: \`${entry}\` is not a CIDR`);
      this.networks.addSubnet(address.text, prefix, address.family);
      if (prefix === (address.family === 'ipv4' ? 32 : 128)) this.exactAddresses.add(address.text);
      return;
    }
    const address = toAddress(entry);
    if (address) {
      this.networks.addAddress(address.text, address.family);
      this.exactAddresses.add(address.text);
      return;
    }
    const named = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
    if (named?.[1] === undefined) throw new EgressConfigError(`PDP_CALL_ALLOW: \`${entry}\` is neither a CIDR nor \`host[:port]\``);
    const port = named[2] === undefined ? undefined : Number(named[2]);
    if (port !== undefined && (port < 1 || port > 65535)) throw new EgressConfigError(`PDP_CALL_ALLOW: \`${entry}\` has no valid port`);
    const host = toAddress(named[1])?.text ?? named[1].toLowerCase().replace(/\.$/, '');
    this.hosts.push({ host, port });
    if (toAddress(named[1]) && port === undefined) this.exactAddresses.add(host);
  }

  /** Whether the allow list names this host (and this port, when the entry has one). */
  names(host: string, port: number): boolean {
    const wanted = toAddress(host)?.text ?? host.toLowerCase().replace(/\.$/, '');
    return this.hosts.some((entry) => entry.host === wanted && (entry.port === undefined || entry.port === port));
  }

  /** Whether the allow list names this host with this very port (the only way to reach a Custos service port). */
  private namesWithPort(host: string, port: number): boolean {
    const wanted = toAddress(host)?.text ?? host.toLowerCase().replace(/\.$/, '');
    return this.hosts.some((entry) => entry.host === wanted && entry.port === port);
  }

  /**
   * Why a connection to `address` (resolved from `host`) on `port` is refused, or undefined when it is
   * allowed. Every address a name resolves to must pass.
   */
  refusal(host: string, address: IpAddress, port: number): string | undefined {
    if (this.names(host, port) && (!this.servicePorts.has(port) || this.namesWithPort(host, port))) return undefined;
    const exact = this.exactAddresses.has(address.text) || this.namesWithPort(address.text, port);
    if (isLinkLocal(address) && !exact) return `\`${address.text}\` is a link-local or metadata address`;
    if (!isPublic(address)) {
      if (!this.networks.check(address.text, address.family) && !this.names(address.text, port)) {
        return `\`${address.text}\` is not a public address and PDP_CALL_ALLOW does not allow it`;
      }
      if (this.servicePorts.has(port) && !this.namesWithPort(host, port) && !this.namesWithPort(address.text, port)) {
        return `port ${port} of \`${address.text}\` is a Custos service port; name \`host:${port}\` in PDP_CALL_ALLOW to call it`;
      }
    }
    return undefined;
  }
}
