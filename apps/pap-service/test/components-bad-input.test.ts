import request from 'supertest';
import { dump } from './harness';
import { pep, pip, pxp, useComponentApi } from './component-api';

/** Component registrations pap refuses: each a problem naming what and where, with nothing stored. */
const api = useComponentApi();
const { register } = api;

describe('bad input changes nothing', () => {
  const expectRejected = async (
    send: () => Promise<request.Response>,
    status: number,
    code: string,
    paths: string[] = [],
  ): Promise<request.Response> => {
    const before = await dump(api.h.pool);
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe(code);
    const got = (res.body.errors ?? []).map((e: { path: string }) => e.path);
    for (const path of paths) expect(got).toContain(path);
    expect(await dump(api.h.pool)).toEqual(before);
    return res;
  };

  test('malformed JSON', async () => {
    const res = await expectRejected(
      () => request(api.h.app).post('/ws/component').set('Authorization', api.h.bearer()).type('json').send('{\n  "id": 1,\n}'),
      400,
      'malformed_json',
    );
    expect(res.body.errors[0]).toEqual(expect.objectContaining({ line: 3, column: 1 }));
  });

  test('wrong content type', async () => {
    await expectRejected(
      () => request(api.h.app).post('/ws/component').set('Authorization', api.h.bearer()).type('text/plain').send(JSON.stringify(pip())),
      415,
      'unsupported_media_type',
    );
  });

  test('oversized body', async () => {
    const huge = { ...pip(), padding: 'x'.repeat(1024 * 1024 + 1) };
    await expectRejected(() => register(huge), 413, 'payload_too_large');
  });

  test('missing fields, with paths', async () => {
    const res = await expectRejected(() => register({ id: { componentType: 'PIP' } }), 400, 'invalid_component', [
      'id.identifier',
      'urls',
      'componentInterfaces',
    ]);
    expect(res.body.errors.find((e: { path: string }) => e.path === 'urls').message).toBe('is required');
  });

  test('not an object', async () => {
    await expectRejected(() => register([1, 2]), 400, 'invalid_component', ['(body)']);
  });

  test('unknown fields and wrong types', async () => {
    const body = { ...pip(), extra: 1, urls: 'http://x' };
    const res = await expectRejected(() => register(body), 400, 'invalid_component', ['extra', 'urls']);
    expect(res.body.errors.find((e: { path: string }) => e.path === 'extra').message).toBe('is not a known field');
  });

  test('componentType must equal the identifier’s type segment', async () => {
    const body = { ...pip(), id: { componentType: 'PXP', identifier: 'urn:component:acme:pip:hr' } };
    await expectRejected(() => register(body), 400, 'invalid_component', ['id.componentType']);
  });

  test('a malformed identifier', async () => {
    const body = { ...pip(), id: { componentType: 'PIP', identifier: 'urn:component:acme:hr' } };
    await expectRejected(() => register(body), 400, 'invalid_component', ['id.identifier']);
  });

  test('an unknown componentType', async () => {
    const body = { ...pip(), id: { componentType: 'XYZ', identifier: 'urn:component:acme:pip:hr' } };
    await expectRejected(() => register(body), 400, 'invalid_component', ['id.componentType']);
  });

  test('URL schemes other than http, https, rmi', async () => {
    const body = { ...pip(), urls: ['http://ok.example', 'ftp://files.example/x', 'not a url'] };
    const res = await expectRejected(() => register(body), 400, 'invalid_component', ['urls[1]', 'urls[2]']);
    expect(res.body.errors.map((e: { path: string }) => e.path)).not.toContain('urls[0]');
  });

  test('user information in a PIP or PXP URL, which no pdp ever calls; not echoed', async () => {
    const body = { ...pxp(), urls: ['https://mail.acme.example/pxp', 'https://bot:hunter2@mail.acme.example/pxp'] };
    const res = await expectRejected(() => register(body), 400, 'invalid_component', ['urls[1]']);
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
  });

  test('no URL at all', async () => {
    await expectRejected(() => register({ ...pip(), urls: [] }), 400, 'invalid_component', ['urls']);
  });

  test('a PEP interface on a PIP', async () => {
    const body = { ...pip(), componentInterfaces: pep().componentInterfaces };
    await expectRejected(() => register(body), 400, 'invalid_component', [
      'componentInterfaces[0].type',
      'componentInterfaces[0].event',
      'componentInterfaces[0].preventive',
    ]);
  });

  test('a PEP interface without event and with a PIP parameter field', async () => {
    const iface = { ...pep().componentInterfaces[0]!, event: undefined } as Record<string, unknown>;
    delete iface.event;
    iface.parameters = [{ name: 'u', type: 'x', mandatory: true }];
    await expectRejected(() => register({ ...pep(), componentInterfaces: [iface] }), 400, 'invalid_component', [
      'componentInterfaces[0].event',
      'componentInterfaces[0].parameters[0].mandatory',
    ]);
  });

  test('PIP and PXP methods must belong to the component’s solution', async () => {
    const foreignPip = pip();
    foreignPip.componentInterfaces[0]!.methodName = 'urn:info:globex:getRole';
    await expectRejected(() => register(foreignPip), 400, 'invalid_component', ['componentInterfaces[0].methodName']);
    const badPxp = pxp();
    badPxp.componentInterfaces[0]!.methodName = 'send-mail';
    await expectRejected(() => register(badPxp), 400, 'invalid_component', ['componentInterfaces[0].methodName']);
  });

  test('a bare PIP method name is fine', async () => {
    const bare = pip('urn:component:acme:pip:bare');
    bare.componentInterfaces[0]!.methodName = 'getRole';
    expect((await register(bare)).status).toBe(200);
  });
});
