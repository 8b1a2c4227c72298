import type { Component } from '@custos/contracts';
import { registrationWarnings } from '../src/web/logic/registration-warnings';

const pip: Component = {
  id: { componentType: 'PIP', identifier: 'urn:component:acme:pip:roles' },
  urls: ['https://roles.acme.example/pip', 'http://127.0.0.1:9/pip', 'http://10.1.2.3/pip'],
  componentInterfaces: [],
};
const refused = (path: string | undefined) => ({
  code: 'egress_refused_by_default',
  message: 'a pdp with the default egress policy does not call this url: `127.0.0.1` is not a public address',
  ...(path === undefined ? {} : { path }),
});

test('a refused url is named by its path and its text, with the advice once for all of them', () => {
  const shown = registrationWarnings(pip, [refused('urls[1]'), refused('urls[2]')]);
  expect(shown.items.map((w) => [w.path, w.url])).toEqual([
    ['urls[1]', 'http://127.0.0.1:9/pip'],
    ['urls[2]', 'http://10.1.2.3/pip'],
  ]);
  // The console's sentence, with pap's reason kept beside it.
  expect(shown.items[0]?.summary).toMatch(/will not call this URL/);
  expect(shown.items[0]?.detail).toContain('`127.0.0.1` is not a public address');
  expect(shown.advice).toHaveLength(1);
  expect(shown.advice[0]).toMatch(/is registered.*PDP_CALL_ALLOW/);
});

test('a path that names no url of the component, or none at all, shows no url', () => {
  const shown = registrationWarnings(pip, [refused('urls[7]'), refused(undefined), refused('componentInterfaces[0]')]);
  expect(shown.items.map((w) => [w.path, w.url])).toEqual([
    ['urls[7]', undefined],
    [undefined, undefined],
    ['componentInterfaces[0]', undefined],
  ]);
});

test('a code the console does not know shows pap\'s message as it is, without advice', () => {
  const shown = registrationWarnings(pip, [{ code: 'something_new', message: 'pap knows better', path: 'urls[0]' }]);
  expect(shown.items).toEqual([{ path: 'urls[0]', url: 'https://roles.acme.example/pip', summary: 'pap knows better', detail: undefined }]);
  expect(shown.advice).toEqual([]);
});
