import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseWarnings, WARNING_CODES, type Warning } from '@custos/contracts';
import type { RunningService } from '@custos/test-kit';
import { call, eventBody, leakedSecrets, policyXml, securityStack, tokenSecrets, type Stack } from './support/stack';

/**
 * The pdp's egress policy against real processes: component URLs are tenant input, so a PIP URL naming this
 * host in any spelling, or a name resolving to it, must not be called, and a redirect must not be followed.
 * A listener records every request; a pdp whose PDP_CALL_ALLOW admits loopback reaches it (so the recording
 * works), one with the default policy never does.
 */
class Listener {
  readonly requests: string[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(private readonly answer: (req: IncomingMessage, res: ServerResponse) => void) {}

  async start(host: string): Promise<this> {
    this.server = createServer((req, res) => {
      this.requests.push(`${req.method ?? ''} ${req.url ?? ''} from ${req.socket.remoteAddress ?? ''}`);
      req.resume();
      req.on('end', () => this.answer(req, res));
    });
    await new Promise<void>((resolve) => this.server?.listen({ port: 0, host, ipv6Only: false }, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let stack: Stack;
let token: string;
let recorder: Listener;
let redirector: Listener;
let guarded: RunningService;
let open: RunningService;
let revision: number;
const secrets: string[] = [];
/** The `Custos-Warning`s pap answered each registration of beforeAll with, by target name. */
const warned: Record<string, Warning[]> = {};

/** Every way to write this host into a component URL (the port is the recorder's). */
const forms = (port: number): Record<string, string> => ({
  dotted: `http://127.0.0.1:${port}`,
  decimal: `http://2130706433:${port}`,
  hex: `http://0x7f.0.0.1:${port}`,
  octal: `http://0177.0.0.1:${port}`,
  short: `http://127.1:${port}`,
  ipv6: `http://[::1]:${port}`,
  mapped: `http://[::ffff:127.0.0.1]:${port}`,
  mappedHex: `http://[0:0:0:0:0:ffff:7f00:1]:${port}`,
  localhost: `http://localhost:${port}`,
  localhostDot: `http://localhost.:${port}`,
  unspecified: `http://0.0.0.0:${port}`,
});

/** A PIP (or PXP) component of acme at `urls`. */
const component = (name: string, urls: string[], type: 'PIP' | 'PXP' = 'PIP') => ({
  id: { componentType: type, identifier: `urn:component:acme:${type.toLowerCase()}:${name}` },
  urls,
  componentInterfaces: [
    { type: 'InterfaceDescription', methodName: type === 'PIP' ? `urn:info:acme:${name}` : `urn:action:acme:${name}`, returnType: 'java.lang.String', parameters: [] },
  ],
});

const pipOf = (name: string) =>
  `<if><equals><pip:string xmlns:pip="http://www.mydata-control.de/4.0/pip" method="urn:info:acme:${name}" default="nobody"/><constant:string value="admin"/></equals><then><allow/></then></if><else><inhibit/></else>`;

beforeAll(async () => {
  recorder = await new Listener((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ value: 'admin', type: 'java.lang.String', isComplex: false }));
  }).start('::');
  redirector = await new Listener((_req, res) => {
    res.statusCode = 307;
    res.setHeader('Location', `http://127.0.0.1:${recorder.port}/execute`);
    res.end();
  }).start('127.0.0.1');

  stack = await securityStack(0);
  token = await stack.adminToken();
  secrets.push(stack.env.BOOTSTRAP_CLIENT_SECRET ?? 'unset-secret', ...tokenSecrets(token));
  // The default policy, except the redirector named exactly (host:port); and one that admits loopback.
  guarded = await stack.startPdp(undefined, { PDP_CALL_ALLOW: `127.0.0.1:${redirector.port}` });
  open = await stack.startPdp(undefined, { PDP_CALL_ALLOW: '127.0.0.1,::1' });

  const targets = { ...forms(recorder.port), redirect: `http://127.0.0.1:${redirector.port}` };
  for (const [name, url] of Object.entries(targets)) {
    const registered = await call('POST', `${stack.pap.url}/ws/component`, { token, json: component(name, [url]) });
    if (registered.status !== 200 && registered.status !== 201) throw new Error(`component ${name}: ${registered.status} ${JSON.stringify(registered.body)}`);
    warned[name] = parseWarnings(registered.headers.get('custos-warning'));
    const id = `urn:policy:acme:egress-${name.toLowerCase()}`;
    const added = await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: policyXml('acme', `egress-${name.toLowerCase()}`, `probe-${name}`, pipOf(name)) });
    if (added.status !== 201) throw new Error(`policy ${name}: ${added.status} ${JSON.stringify(added.body)}`);
    const deployed = await call('POST', `${stack.pap.url}/ws/policy/${id}/deploy`, { token });
    revision = Number(deployed.headers.get('policy-revision'));
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await recorder?.stop();
  await redirector?.stop();
}, 60_000);

const probe = (pdp: RunningService, name: string) =>
  call('POST', `${pdp.url}/event`, { token, json: eventBody('acme', `probe-${name}`), headers: { 'Min-Policy-Revision': String(revision) } });

describe('egress of PIP calls', () => {
  it('with the default policy, no spelling of this host and no name resolving to it is called', async () => {
    for (const name of Object.keys(forms(recorder.port))) {
      const answer = await probe(guarded, name);
      expect({ name, status: answer.status, allowed: answer.body?.eventAllowed }).toEqual({ name, status: 200, allowed: false });
    }
    expect(recorder.requests).toEqual([]);
  });

  it('a redirect to an internal address is not followed', async () => {
    const answer = await probe(guarded, 'redirect');
    expect({ status: answer.status, allowed: answer.body?.eventAllowed }).toEqual({ status: 200, allowed: false });
    expect(redirector.requests).toHaveLength(1);
    expect(recorder.requests).toEqual([]);
  });

  it('a pdp whose PDP_CALL_ALLOW admits loopback reaches the same listener (the recording works)', async () => {
    for (const name of ['dotted', 'decimal', 'mapped', 'ipv6', 'localhost']) {
      const answer = await probe(open, name);
      expect({ name, allowed: answer.body?.eventAllowed }).toEqual({ name, allowed: true });
    }
    expect(recorder.requests.length).toBeGreaterThanOrEqual(5);
  });

  it('refused calls are counted every time and logged once per url', async () => {
    const names = Object.keys(forms(recorder.port));
    // The first test asked each once; ask each again.
    for (const name of names) expect((await probe(guarded, name)).body?.eventAllowed).toBe(false);
    const metrics = await (await fetch(`${guarded.url}/metrics`)).text();
    const counted = /^egress_refusals_total\{[^}]*call="pip"[^}]*\} (\d+)$/m.exec(metrics)?.[1];
    expect(Number(counted)).toBe(2 * names.length);
    const logged = guarded.output().split('\n').filter((line) => line.includes('pip call refused by the egress policy'));
    expect(logged).toHaveLength(names.length);
    // Not a warning per call either: the resolver's own line for each failed call is at debug level for these.
    expect(guarded.output().split('\n').filter((line) => line.includes('pip call failed') && line.includes('the call is refused'))).toEqual([]);
  });

  it('no secret leaked into outputs or metrics', async () => {
    expect(await leakedSecrets([stack.auth, stack.pap, guarded, open], secrets)).toEqual([]);
  });
});

/** Internal addresses a registration is warned about besides this host's spellings (they are never called here). */
const internal: Record<string, string> = {
  private10: 'http://10.1.2.3:9000/pip',
  private172: 'https://172.16.0.1/pip',
  private192: 'http://192.168.1.1/pip',
  carrierNat: 'http://100.64.0.1/pip',
  metadata: 'http://169.254.169.254/latest/meta-data',
  metadataDecimal: 'http://2852039166/latest/meta-data',
  metadataMapped: 'http://[::ffff:169.254.169.254]/latest',
  alibabaMetadata: 'http://100.100.100.200/latest',
  linkLocal6: 'http://[fe80::1]:9000/pip',
  uniqueLocal6: 'http://[fd12:3456::1]/pip',
  awsMetadata6: 'http://[fd00:ec2::254]/latest',
  pipLocalhost: 'http://pip.localhost:9000/pip',
};

describe('registration warns about URLs the default egress policy refuses', () => {
  const expectWarnedOnce = (name: string, warnings: Warning[] | undefined) =>
    expect({ name, warnings }).toEqual({
      name,
      warnings: [{ code: WARNING_CODES.egressRefusedByDefault, path: 'urls[0]', message: expect.stringMatching(/^a pdp with the default egress policy does not call this url: .*host names are checked when called/) }],
    });

  it('every spelling of this host is registered (200 true), with a warning at its URL', () => {
    for (const name of [...Object.keys(forms(recorder.port)), 'redirect']) expectWarnedOnce(name, warned[name]);
    expect(warned.decimal?.[0]?.message).toMatch(/`127\.0\.0\.1` is not a public address/);
  });

  it('private, carrier-grade NAT, link-local and metadata addresses in every family and spelling', async () => {
    for (const [name, url] of Object.entries(internal)) {
      const answer = await call('POST', `${stack.pap.url}/ws/component`, { token, json: component(`internal-${name.toLowerCase()}`, [url], 'PXP') });
      expect({ name, status: answer.status, body: answer.body }).toEqual({ name, status: 200, body: true });
      expectWarnedOnce(name, parseWarnings(answer.headers.get('custos-warning')));
    }
  });

  it('public addresses and host names get no warning (names are resolved only when called); PEPs and rmi urls none', async () => {
    const quiet = {
      public4: component('public-four', ['http://93.184.216.34:9000/pip']),
      public6: component('public-six', ['https://[2606:4700:4700::1111]/pip']),
      name: component('public-name', ['https://pip.example.com/pip', 'rmi://127.0.0.1/pip']),
      pep: {
        id: { componentType: 'PEP', identifier: 'urn:component:acme:pep:local' },
        urls: ['http://127.0.0.1:9000/pep'],
        componentInterfaces: [],
      },
    };
    for (const [name, body] of Object.entries(quiet)) {
      const answer = await call('POST', `${stack.pap.url}/ws/component`, { token, json: body });
      expect({ name, status: answer.status, warning: answer.headers.get('custos-warning') }).toEqual({ name, status: 200, warning: null });
    }
  });

  it('one warning per refused URL, located by its index', async () => {
    const answer = await call('POST', `${stack.pap.url}/ws/component`, {
      token,
      json: component('mixed', ['https://pip.example.com/pip', 'http://10.0.0.1/pip', 'http://[::1]/pip']),
    });
    expect(answer.status).toBe(200);
    expect(parseWarnings(answer.headers.get('custos-warning')).map((warning) => warning.path)).toEqual(['urls[1]', 'urls[2]']);
  });

  it('user information is refused in every configuration: 400 at its path, without echoing it, and nothing stored', async () => {
    const body = component('userinfo', ['https://pip.example.com/pip', 'https://ann:s3cr3t-pw@pip.example.com/pip']);
    const answer = await call('POST', `${stack.pap.url}/ws/component`, { token, json: body });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_component', errors: [{ path: 'urls[1]', message: expect.stringMatching(/user information/) }] });
    expect(JSON.stringify(answer.body)).not.toContain('s3cr3t-pw');
    const stored = await call('GET', `${stack.pap.url}/ws/component/urn:component:acme:pip:userinfo`, { token });
    expect(stored.status).toBe(404);
  });
});
