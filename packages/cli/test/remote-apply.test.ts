import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROGRESS_BAR_FROM } from '../src/remote/apply-run';
import { startStatefulPap, type StatefulPap, type StoredDocument } from './remote-support/stateful-pap';
import { loggedIn, runCli, tempConfig } from './remote-support/run-cli';

const policyXml = (id: string, body = '') => `<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" id="${id}">${body}</policy>\n`;
const timerXml = (id: string) => `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${id}" cron="0 0 2 * * ?"/>\n`;

describe('custos apply', () => {
  let pap: StatefulPap;
  let config: Awaited<ReturnType<typeof tempConfig>>;
  let dir: string;

  const start = async (initial: Record<string, StoredDocument> = {}) => {
    pap = await startStatefulPap(initial);
    await loggedIn(config.env, { pap: pap.url });
  };
  const put = async (name: string, text: string) => {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  };
  const apply = (...flags: string[]) => runCli(['apply', dir, ...flags], { env: config.env });
  const changes = () => pap.requests.filter((request) => request.method !== 'GET');

  beforeEach(async () => {
    config = await tempConfig();
    dir = await mkdtemp(path.join(tmpdir(), 'custos-apply-'));
  });

  afterEach(async () => {
    await pap?.close();
    await config.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the plan and changes nothing without --yes; carries it out with --yes; is empty the second time', async () => {
    await start({
      'urn:policy:acme:changed': { xml: policyXml('urn:policy:acme:changed', 'old'), deployed: true },
      'urn:policy:acme:idle': { xml: policyXml('urn:policy:acme:idle'), deployed: false },
      'urn:policy:acme:stale': { xml: policyXml('urn:policy:acme:stale'), deployed: true },
      'urn:policy:globex:theirs': { xml: policyXml('urn:policy:globex:theirs'), deployed: true },
    });
    await put('changed.xml', policyXml('urn:policy:acme:changed', 'new'));
    await put('idle.xml', policyXml('urn:policy:acme:idle'));
    await put('nested/new.xml', policyXml('urn:policy:acme:new'));
    await put('tick.xml', timerXml('urn:timer:acme:tick'));
    await put('notes.txt', 'not a document');
    const f = (name: string) => path.join(dir, name);
    const plan = [
      `add     urn:policy:acme:new  (${f('nested/new.xml')})`,
      `add     urn:timer:acme:tick  (${f('tick.xml')})`,
      `replace urn:policy:acme:changed  (${f('changed.xml')})`,
      'deploy  urn:policy:acme:idle',
      'deploy  urn:policy:acme:new',
      'deploy  urn:timer:acme:tick',
      'revoke  urn:policy:acme:stale',
      'plan: 2 to add, 1 to replace, 3 to deploy, 1 to revoke, 0 to remove',
    ];

    const shown = await apply();
    expect(shown).toMatchObject({ code: 0, err: '' });
    expect(shown.out).toBe([...plan, 'nothing changed; run again with --yes to carry out the plan', ''].join('\n'));
    expect(changes()).toEqual([]);

    const done = await apply('--yes');
    expect(done.code).toBe(0);
    // The replace of a deployed policy, three deploys and a revoke each move the revision: 5 in all.
    expect(done.out).toBe([...plan, ...plan.slice(0, 7).map((line) => `done    ${line}`), 'applied 7 steps (policy revision 5)', ''].join('\n'));
    expect(pap.documents.get('urn:policy:acme:changed')).toEqual({ xml: policyXml('urn:policy:acme:changed', 'new'), deployed: true });
    expect(pap.documents.get('urn:timer:acme:tick')).toEqual({ xml: timerXml('urn:timer:acme:tick'), deployed: true });
    expect(pap.documents.get('urn:policy:acme:stale')?.deployed).toBe(false);
    expect(pap.documents.get('urn:policy:globex:theirs')?.deployed).toBe(true);

    const before = changes().length;
    const again = await apply('--yes');
    expect(again).toMatchObject({ code: 0, out: 'plan: nothing to do; the policies and timers of acme match ' + dir + '\n' });
    expect(changes()).toHaveLength(before);
  });

  it('removes what the directory does not name with --prune, only within the scope', async () => {
    await start({
      'urn:policy:acme:stale': { xml: policyXml('urn:policy:acme:stale'), deployed: true },
      'urn:policy:acme:idle': { xml: policyXml('urn:policy:acme:idle'), deployed: false },
      'urn:timer:acme:old': { xml: timerXml('urn:timer:acme:old'), deployed: false },
      'urn:policy:globex:theirs': { xml: policyXml('urn:policy:globex:theirs'), deployed: false },
    });
    const run = await apply('--solution', 'acme', '--prune', '--yes');
    expect(run.code).toBe(0);
    expect(run.out.split('\n').slice(0, 4)).toEqual([
      'remove  urn:policy:acme:idle',
      'remove  urn:policy:acme:stale',
      'remove  urn:timer:acme:old',
      'plan: 0 to add, 0 to replace, 0 to deploy, 0 to revoke, 3 to remove',
    ]);
    expect([...pap.documents.keys()]).toEqual(['urn:policy:globex:theirs']);
  });

  it('refuses files outside --solution, and a directory with problems, before asking the pap anything', async () => {
    await start();
    await put('a.xml', policyXml('urn:policy:globex:a'));
    const outside = await apply('--solution', 'acme', '--yes');
    expect(outside).toMatchObject({ code: 2, out: '', err: `error: these documents are not of \`acme\`:\n  ${path.join(dir, 'a.xml')}: \`urn:policy:globex:a\`\n` });

    await put('b.xml', '<policy name="no id"/>');
    await put('c.xml', policyXml('urn:policy:globex:a'));
    await put('d.xml', '<policy id="urn:action:acme:x"/>');
    const broken = await apply('--yes');
    expect(broken.code).toBe(2);
    expect(broken.err).toBe(
      [
        'error: the directory cannot be applied:',
        `  ${path.join(dir, 'b.xml')}: the root element has no \`id\` attribute`,
        `  ${path.join(dir, 'c.xml')}: \`urn:policy:globex:a\` is also the id of ${path.join(dir, 'a.xml')}`,
        `  ${path.join(dir, 'd.xml')}: \`urn:action:acme:x\` is neither \`urn:policy:<solution>:<name>\` nor \`urn:timer:<solution>:<name>\``,
        '',
      ].join('\n'),
    );
    expect(pap.requests).toEqual([]);
  });

  it('needs --solution to empty a solution from an empty directory, and says when the directory is missing', async () => {
    await start({ 'urn:policy:acme:a': { xml: policyXml('urn:policy:acme:a'), deployed: true } });
    expect(await apply('--yes')).toMatchObject({ code: 2, err: `error: \`${dir}\` holds no policies or timers; name the solution to empty with --solution\n` });
    expect((await apply('--solution', 'acme', '--yes')).out.split('\n')[0]).toBe('revoke  urn:policy:acme:a');
    const missing = path.join(dir, 'missing');
    expect(await runCli(['apply', missing], { env: config.env })).toMatchObject({ code: 2, err: `error: cannot read \`${missing}\`: no such directory\n` });
  });

  it('stops at the first failure and says what was done, what failed and why, and what was not done', async () => {
    await start();
    await put('a.xml', policyXml('urn:policy:acme:a'));
    await put('b.xml', policyXml('urn:policy:acme:b'));
    pap.failOn('POST', '/ws/policy/urn:policy:acme:a/deploy');
    const run = await apply('--yes');
    expect(run.code).toBe(1);
    expect(run.out.split('\n').slice(-3)).toEqual([
      `done    add     urn:policy:acme:a  (${path.join(dir, 'a.xml')})`,
      `done    add     urn:policy:acme:b  (${path.join(dir, 'b.xml')})`,
      '',
    ]);
    expect(run.err).toBe(
      [
        'failed  deploy  urn:policy:acme:a',
        '  pap: the policy is not valid: 1 problem (400 invalid_policy)',
        '    refused for the test',
        '2 of 4 steps done (listed above)',
        'not done:',
        '  deploy  urn:policy:acme:a',
        '  deploy  urn:policy:acme:b',
        '',
      ].join('\n'),
    );
    expect(pap.documents.get('urn:policy:acme:b')?.deployed).toBe(false);
    // Applying again plans only what is left.
    const rest = await apply();
    expect(rest.out.split('\n').slice(0, 3)).toEqual(['deploy  urn:policy:acme:a', 'deploy  urn:policy:acme:b', 'plan: 0 to add, 0 to replace, 2 to deploy, 0 to revoke, 0 to remove']);
  });

  it('points into the file when the pap refuses a document it adds', async () => {
    await start();
    await put('a.xml', policyXml('urn:policy:acme:a'));
    pap.failOn('POST', '/ws/policy');
    const run = await apply('--yes');
    expect(run.code).toBe(1);
    expect(run.err.split('\n').slice(0, 2)).toEqual([`failed  add     urn:policy:acme:a  (${path.join(dir, 'a.xml')})`, `  ${path.join(dir, 'a.xml')}:2:3: refused for the test`]);
  });

  it('draws a progress bar instead of step lines on a terminal when the plan is long', async () => {
    await start();
    const count = Math.ceil(PROGRESS_BAR_FROM / 2);
    for (let i = 0; i < count; i += 1) await put(`p${i}.xml`, policyXml(`urn:policy:acme:p${String(i).padStart(2, '0')}`));
    const run = await runCli(['apply', dir, '--yes'], { env: config.env, tty: true });
    expect(run.code).toBe(0);
    expect(run.out).not.toContain('done    ');
    expect(run.out).toContain(`applied ${count * 2} steps`);
    expect(run.progress).toContain(`${count * 2}/${count * 2}`);
    expect(pap.documents.size).toBe(count);
  });

  it('prints step lines when the output is no terminal, however long the plan', async () => {
    await start();
    const count = Math.ceil(PROGRESS_BAR_FROM / 2);
    for (let i = 0; i < count; i += 1) await put(`p${i}.xml`, policyXml(`urn:policy:acme:p${i}`));
    const run = await apply('--yes');
    expect(run.out.split('\n').filter((line) => line.startsWith('done    '))).toHaveLength(count * 2);
    expect(run.progress).toBe('');
  });
});
