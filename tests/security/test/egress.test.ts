import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
    const registered = await call('POST', `${stack.pap.url}/ws/component`, {
      token,
      json: {
        id: { componentType: 'PIP', identifier: `urn:component:acme:pip:${name}` },
        urls: [url],
        componentInterfaces: [{ type: 'InterfaceDescription', methodName: `urn:info:acme:${name}`, returnType: 'java.lang.String', parameters: [] }],
      },
    });
    if (registered.status !== 200 && registered.status !== 201) throw new Error(`component ${name}: ${registered.status} ${JSON.stringify(registered.body)}`);
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

  it('no secret leaked into outputs or metrics', async () => {
    expect(await leakedSecrets([stack.auth, stack.pap, guarded, open], secrets)).toEqual([]);
  });
});
