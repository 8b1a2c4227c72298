import { checkDocument, rootName } from '../src/offline/check/check-document';
import { checkFiles } from '../src/offline/check/check-files';
import { policyXml } from './support/cli';

const ALLOW = '<mechanism event="urn:action:acme:a"><if><constant:true/><then><allow/></then></if></mechanism>';
const TIMER = (id: string, cron = '0 0 2 * * ?') =>
  `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${id}" cron="${cron}"><event action="urn:action:acme:a"/></timer>`;

describe('checking documents', () => {
  it('reads the root element name past the XML declaration, comments and a byte order mark', () => {
    expect(rootName('<?xml version="1.0"?>\n<!-- a <timer> in a comment -->\n<t:timer xmlns:t="x"/>')).toBe('timer');
    expect(rootName('\uFEFF<policy/>')).toBe('policy');
    expect(rootName('<!DOCTYPE timer><timer/>')).toBeNull();
    expect(rootName('just text')).toBeNull();
  });

  it('sends timers to the timer reader and everything else to the policy loader', () => {
    expect(checkDocument(TIMER('urn:timer:acme:t'))).toMatchObject({ kind: 'timer', ok: true });
    expect(checkDocument(policyXml('urn:policy:acme:p', ALLOW))).toMatchObject({ kind: 'policy', ok: true });
    const wrongRoot = checkDocument('<something/>');
    expect(wrongRoot).toMatchObject({ kind: 'policy', ok: false });
    // A DOCTYPE is refused by the hardened reader before anything else.
    expect(checkDocument('<!DOCTYPE timer><timer/>')).toMatchObject({ kind: 'policy', ok: false, diagnostics: [{ code: 'doctype_forbidden' }] });
  });

  it('refuses a timer whose every fire time has passed, and one that can never fire, as pap does', () => {
    // The year field makes a one-shot; 2025 is over, 2099 is the last year quartz allows.
    expect(checkDocument(TIMER('urn:timer:acme:t', '0 0 12 24 12 ? 2025'))).toMatchObject({
      kind: 'timer',
      ok: false,
      diagnostics: [{ code: 'invalid_attribute', line: 1, column: 91 }],
    });
    expect(checkDocument(TIMER('urn:timer:acme:t', '0 0 12 24 12 ? 2099'))).toMatchObject({ kind: 'timer', ok: true });
    // 30 February never comes.
    expect(checkDocument(TIMER('urn:timer:acme:t', '0 0 0 30 2 ?'))).toMatchObject({ kind: 'timer', ok: false });
  });

  it('lists every problem of a file with its place and finds ids used twice across files', () => {
    const files: Record<string, string> = {
      'one.xml': policyXml('urn:policy:acme:p', ALLOW),
      'two.xml': policyXml('urn:policy:acme:p', ALLOW.replace('acme:a', 'other:a')),
      'three.xml': policyXml('urn:policy:acme:p', ALLOW),
      'four.xml': TIMER('urn:timer:acme:t', 'never'),
    };
    const read = (file: string) => {
      const text = files[file];
      if (text === undefined) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      return text;
    };
    const checks = checkFiles(Object.keys(files), { read });
    expect(checks.map((check) => [check.file, check.kind, check.id, check.problems.map((p) => `${p.line}:${p.column} ${p.code}`)])).toEqual([
      ['one.xml', 'policy', 'urn:policy:acme:p', []],
      // policyXml puts the mechanism on line 3, its `event` attribute at column 12; the timer's `cron` is at column 91.
      ['two.xml', 'policy', null, ['3:12 solution_mismatch']],
      ['three.xml', 'policy', 'urn:policy:acme:p', ['undefined:undefined duplicate_id']],
      ['four.xml', 'timer', null, ['1:91 invalid_attribute']],
    ]);
    expect(checks[2]?.problems[0]?.message).toBe('id `urn:policy:acme:p` is already used by `one.xml`');
    // Checked for a caller of another solution, a valid document is refused at its `id` attribute (pap answers 403).
    const foreign = checkFiles(['one.xml'], { read, solutions: new Set(['globex']) });
    expect(foreign[0]?.problems).toEqual([
      { file: 'one.xml', code: 'foreign_solution', message: '`urn:policy:acme:p` belongs to solution `acme`, not to `globex`', line: 2, column: 238 },
    ]);
    expect(checkFiles(['one.xml'], { read, solutions: new Set(['globex', 'acme']) })[0]?.problems).toEqual([]);
    expect(checkFiles(['missing.xml'], { read })).toEqual([{ file: 'missing.xml', kind: null, id: null, problems: [{ file: 'missing.xml', message: 'no such file or directory' }] }]);
  });
});
