import { ConfigError, DEFAULT_EGRESS_POLICY, EgressConfigError, EgressPolicy, egressRefusal, toAddress, unconditionalRefusal } from '../src';

const publicOnly = DEFAULT_EGRESS_POLICY;
const refusedBy = (policy: EgressPolicy, url: string) => egressRefusal(new URL(url), policy);

describe('addresses', () => {
  it('unwrap IPv4 carried in IPv6 and drop brackets and zones', () => {
    expect(toAddress('::ffff:127.0.0.1')).toEqual({ family: 'ipv4', text: '127.0.0.1' });
    expect(toAddress('[::ffff:7f00:1]')).toEqual({ family: 'ipv4', text: '127.0.0.1' });
    expect(toAddress('::7f00:1')).toEqual({ family: 'ipv4', text: '127.0.0.1' });
    expect(toAddress('0:0:0:0:0:ffff:a9fe:a9fe')).toEqual({ family: 'ipv4', text: '169.254.169.254' });
    expect(toAddress('fe80::1%eth0')).toEqual({ family: 'ipv6', text: 'fe80:0:0:0:0:0:0:1' });
    expect(toAddress('::1')).toEqual({ family: 'ipv6', text: '0:0:0:0:0:0:0:1' });
    expect(toAddress('pip.example')).toBeUndefined();
  });
});

describe('the default policy: public addresses only', () => {
  it('refuses every spelling of this host, private networks, link-local and metadata addresses', () => {
    for (const url of [
      'http://127.0.0.1:9000/x', 'http://2130706433:9000/x', 'http://0x7f.0.0.1:9000/x', 'http://0177.0.0.1:9000/x', 'http://127.1:9000/x',
      'http://[::1]:9000/x', 'http://[::ffff:127.0.0.1]:9000/x', 'http://[0:0:0:0:0:ffff:7f00:1]:9000/x', 'http://[::127.0.0.1]:9000/x',
      'http://localhost:9000/x', 'http://LOCALHOST.:9000/x', 'http://pip.localhost:9000/x', 'http://0.0.0.0:9000/x',
      'http://10.1.2.3/x', 'http://172.16.0.1/x', 'http://192.168.1.1/x', 'http://100.64.0.1/x',
      'http://169.254.169.254/latest/meta-data', 'http://[::ffff:169.254.169.254]/x', 'http://[fe80::1]/x', 'http://[fd00:ec2::254]/x',
      'http://100.100.100.200/x', 'http://[fd12:3456::1]/x', 'http://[::]/x', 'http://224.0.0.1/x',
    ]) {
      expect({ url, refused: refusedBy(publicOnly, url) }).toEqual({ url, refused: expect.any(String) });
    }
  });

  it('allows public addresses and names (their addresses are checked at lookup), over http(s) only, without userinfo', () => {
    expect(refusedBy(publicOnly, 'http://93.184.216.34:8443/pip')).toBeUndefined();
    expect(refusedBy(publicOnly, 'https://[2606:4700:4700::1111]/pip')).toBeUndefined();
    expect(refusedBy(publicOnly, 'https://pip.example.com/pip')).toBeUndefined();
    expect(refusedBy(publicOnly, 'http://user:secret@93.184.216.34/pip')).toMatch(/user information/);
    expect(refusedBy(publicOnly, 'ftp://93.184.216.34/pip')).toMatch(/not made/);
  });
});

describe('PDP_CALL_ALLOW', () => {
  it('adds networks, but not the Custos service ports inside them unless host:port is named', () => {
    const policy = EgressPolicy.fromEnv({ PDP_CALL_ALLOW: '10.0.0.0/8, 10.0.0.5:8081', PDP_PORT: '9090' });
    expect(refusedBy(policy, 'http://10.1.2.3:9000/pip')).toBeUndefined();
    expect(refusedBy(policy, 'http://10.1.2.3:8081/ws')).toMatch(/Custos service port/);
    expect(refusedBy(policy, 'http://10.1.2.3:9090/event')).toMatch(/Custos service port/);
    expect(refusedBy(policy, 'http://10.0.0.5:8081/ws')).toBeUndefined();
    expect(refusedBy(policy, 'http://192.168.0.1:9000/pip')).toMatch(/not a public address/);
  });

  it('reaches link-local and metadata addresses only when they are named exactly, never through a network', () => {
    expect(refusedBy(EgressPolicy.fromEnv({ PDP_CALL_ALLOW: '169.254.0.0/16' }), 'http://169.254.169.254/x')).toMatch(/link-local or metadata/);
    expect(refusedBy(EgressPolicy.fromEnv({ PDP_CALL_ALLOW: '169.254.169.254' }), 'http://169.254.169.254/x')).toBeUndefined();
    expect(refusedBy(EgressPolicy.fromEnv({ PDP_CALL_ALLOW: 'fe80::/10' }), 'http://[fe80::1]/x')).toMatch(/link-local/);
  });

  it('names hosts with or without a port; an address allowed once is allowed in every spelling', () => {
    const policy = EgressPolicy.fromEnv({ PDP_CALL_ALLOW: 'pip.internal:9000,127.0.0.1' });
    expect(refusedBy(policy, 'http://2130706433:7000/x')).toBeUndefined();
    expect(refusedBy(policy, 'http://[::ffff:127.0.0.1]:7000/x')).toBeUndefined();
    expect(refusedBy(policy, 'http://127.0.0.1:8082/oauth')).toMatch(/Custos service port/);
    expect(policy.names('PIP.internal', 9000)).toBe(true);
    expect(policy.names('pip.internal', 9001)).toBe(false);
  });

  it('refuses malformed entries with the entry named', () => {
    for (const entry of ['10.0.0.0/33', 'not a host', 'pip:99999', '::1/129']) {
      expect(() => EgressPolicy.fromEnv({ PDP_CALL_ALLOW: entry })).toThrow(EgressConfigError);
    }
    expect(() => EgressPolicy.fromEnv({ PDP_CALL_ALLOW: '10.0.0.0/33' })).toThrow('`10.0.0.0/33`');
    // A ConfigError, so a starting pdp says it in one sentence (describeStartupFailure).
    expect(() => EgressPolicy.fromEnv({ PDP_CALL_ALLOW: 'not a host' })).toThrow(ConfigError);
  });
});

describe('what is refused in every configuration', () => {
  it('user information and schemes other than http(s), whatever PDP_CALL_ALLOW allows', () => {
    const everything = EgressPolicy.fromEnv({ PDP_CALL_ALLOW: '0.0.0.0/0,::/0' });
    expect(unconditionalRefusal(new URL('http://ann@93.184.216.34/pip'))).toMatch(/user information/);
    expect(unconditionalRefusal(new URL('http://:secret@pip.example.com/pip'))).toMatch(/user information/);
    expect(refusedBy(everything, 'https://ann:secret@10.1.2.3/pip')).toMatch(/user information/);
    expect(unconditionalRefusal(new URL('rmi://pip.example.com/pip'))).toMatch(/not made/);
    expect(unconditionalRefusal(new URL('https://pip.example.com/pip'))).toBeUndefined();
    expect(refusedBy(everything, 'http://10.1.2.3/pip')).toBeUndefined();
  });
});
