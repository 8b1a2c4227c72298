import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * An IP address in the one spelling the checks use: IPv4 dotted quad, or IPv6 as eight hexadecimal groups. Pure
 * classification: nothing here resolves a name or opens a socket, so pap (warning at registration) and the pdp
 * (refusing at call time) apply the same rules.
 */
export interface IpAddress {
  family: 'ipv4' | 'ipv6';
  text: string;
}

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail allowed). */
function ipv6Groups(text: string): number[] | undefined {
  let body = text;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted?.[1] !== undefined) {
    const bytes = dotted[1].split('.').map(Number);
    body = `${body.slice(0, dotted.index)}${(((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0)).toString(16)}:${(((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)).toString(16)}`;
  }
  const [head = '', tail] = body.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * The address `text` names, normalised: brackets and zone ids dropped, and IPv4 carried in IPv6 (mapped
 * `::ffff:a.b.c.d`, or the old compatible `::a.b.c.d`) turned back into IPv4, so one rule covers both
 * spellings. Undefined when `text` is no IP address. (URL parsing already turns decimal, octal and hex
 * IPv4 spellings into dotted quads.)
 */
export function toAddress(text: string): IpAddress | undefined {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return { family: 'ipv4', text: bare };
  if (!isIPv6(bare)) return undefined;
  const groups = ipv6Groups(bare.toLowerCase());
  if (!groups) return undefined;
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = groups;
  const zeroHead = a === 0 && b === 0 && c === 0 && d === 0 && e === 0;
  if (zeroHead && (f === 0xffff || (f === 0 && g !== 0))) {
    return { family: 'ipv4', text: `${g >> 8}.${g & 0xff}.${h >> 8}.${h & 0xff}` };
  }
  return { family: 'ipv6', text: groups.map((group) => group.toString(16)).join(':') };
}

function blockList(v4: string[], v6: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of v4) {
    const [network = '', prefix = '32'] = cidr.split('/');
    list.addSubnet(network, Number(prefix), 'ipv4');
  }
  for (const cidr of v6) {
    const [network = '', prefix = '128'] = cidr.split('/');
    list.addSubnet(network, Number(prefix), 'ipv6');
  }
  return list;
}

/** Link-local ranges and cloud metadata endpoints: refused unless the allow list names the address itself. */
const LINK_LOCAL = blockList(['169.254.0.0/16', '100.100.100.200/32'], ['fe80::/10', 'fd00:ec2::254/128']);

/**
 * Everything that is not a public unicast address: this host, private networks, carrier-grade NAT,
 * documentation and benchmark ranges, multicast, reserved; for IPv6 also unique-local, site-local,
 * discard, NAT64 and the tunnel prefixes that embed IPv4 (6to4, Teredo).
 */
const NOT_PUBLIC = blockList(
  [
    '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24',
    '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
  ],
  ['::/128', '::1/128', '64:ff9b::/96', '64:ff9b:1::/48', '100::/64', '2001::/32', '2001:db8::/32', '2002::/16', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8'],
);

export const isLinkLocal = (address: IpAddress): boolean => LINK_LOCAL.check(address.text, address.family);

/** Public unicast: IPv4 outside the special ranges, IPv6 in 2000::/3 outside them. */
export function isPublic(address: IpAddress): boolean {
  if (NOT_PUBLIC.check(address.text, address.family)) return false;
  if (address.family === 'ipv4') return true;
  const first = parseInt(address.text.split(':')[0] ?? '0', 16);
  return first >= 0x2000 && first <= 0x3fff;
}
