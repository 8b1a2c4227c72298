import { failureSourceOf } from '../src/ratelimit/source-address';

describe('failureSourceOf', () => {
  it('keeps IPv4 addresses, and reads IPv4-mapped IPv6 as the IPv4 address', () => {
    expect(failureSourceOf('192.0.2.1')).toBe('192.0.2.1');
    expect(failureSourceOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(failureSourceOf('::FFFF:127.0.0.1')).toBe('127.0.0.1');
    expect(failureSourceOf('::ffff:c000:201')).toBe('192.0.2.1');
    expect(failureSourceOf('0:0:0:0:0:ffff:c000:0201')).toBe('192.0.2.1');
  });

  it('counts IPv6 addresses by their /64, however they are written', () => {
    const site = '2001:db8:85a3:42::/64';
    for (const address of ['2001:db8:85a3:42::1', '2001:0db8:85a3:0042:ffff:1:2:3', '2001:DB8:85A3:42:0:0:0:9', '2001:db8:85a3:42::7%eth0']) {
      expect(failureSourceOf(address)).toBe(site);
    }
    expect(failureSourceOf('2001:db8:85a3:43::1')).toBe('2001:db8:85a3:43::/64');
    expect(failureSourceOf('::1')).toBe('0:0:0:0::/64');
    expect(failureSourceOf('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(failureSourceOf('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  it('leaves anything that is no address as it came (it is still a key of its own)', () => {
    expect(failureSourceOf('unknown')).toBe('unknown');
    expect(failureSourceOf('')).toBe('');
  });
});
