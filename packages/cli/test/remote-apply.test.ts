import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStatefulPap, type StatefulPap, type StoredDocument } from './remote-support/stateful-pap';
import { loggedIn, runCli, tempConfig } from './remote-support/run-cli';

/** A valid policy of the id's solution; `action` tells two texts of one policy apart. */
const policyXml = (id: string, action = 'print') =>
  `<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:constant="http://www.mydata-control.de/4.0/constant" id="${id}">` +
  `<mechanism event="urn:action:${id.split(':')[2] ?? ''}:${action}"><if><constant:true/><then><inhibit/></then></if></mechanism></policy>\n`;
const timerXml = (id: string) =>
  `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${id}" cron="0 0 2 * * ?"><event action="urn:action:${id.split(':')[2] ?? ''}:tick"/></timer>\n`;

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
    // The replace of a deployed policy, three deploys and a revoke: one change set, one revision.
    expect(done.out).toBe([...plan, 'applied 7 steps as one change (policy revision 1)', ''].join('\n'));
    expect(changes().map((request) => `${request.method} ${request.url}`)).toEqual(['POST /ws/changes']);
    expect((JSON.parse(changes()[0]!.body) as { changes: Array<{ op: string; id: string }> }).changes.map((c) => `${c.op} ${c.id}`)).toEqual([
      'add urn:policy:acme:new',
      'add urn:timer:acme:tick',
      'replace urn:policy:acme:changed',
      'deploy urn:policy:acme:idle',
      'deploy urn:policy:acme:new',
      'deploy urn:timer:acme:tick',
      'revoke urn:policy:acme:stale',
    ]);
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

  it('changes nothing when a file of the directory does not pass the offline check, and locates the problem', async () => {
    await start({ 'urn:policy:acme:a': { xml: policyXml('urn:policy:acme:a'), deployed: false } });
    await put('a.xml', policyXml('urn:policy:acme:a'));
    await put('b.xml', policyXml('urn:policy:acme:b'));
    await put('owner-delete.xml', policyXml('urn:policy:acme:owner-delete').replace('</mechanism>', ''));
    await put('late.xml', timerXml('urn:timer:acme:late').replace('0 0 2 * * ?', 'not cron'));
    const run = await apply('--yes');
    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    const lines = run.err.trimEnd().split('\n');
    expect(lines[0]).toBe('error: the directory cannot be applied:');
    expect(lines.slice(1).every((line) => line.startsWith(`  ${path.join(dir, 'late.xml')}:`) || line.startsWith(`  ${path.join(dir, 'owner-delete.xml')}:`))).toBe(true);
    expect(lines.some((line) => new RegExp(`^  ${path.join(dir, 'owner-delete.xml')}:\\d+:\\d+: `).test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith(`  ${path.join(dir, 'late.xml')}:`))).toBe(true);
    // Checked before the plan: the pap was not even asked what it has.
    expect(pap.requests).toEqual([]);
    expect(pap.documents.get('urn:policy:acme:a')?.deployed).toBe(false);
    expect(pap.documents.has('urn:policy:acme:b')).toBe(false);
  });

  it('refuses a plan longer than one change set before sending anything', async () => {
    await start();
    for (let i = 0; i < 101; i += 1) await put(`p${i}.xml`, policyXml(`urn:policy:acme:p${i}`));
    const run = await apply('--yes');
    expect(run.code).toBe(2);
    expect(run.err).toBe('error: the plan has 202 steps, more than the 200 of one change set; nothing changed; apply the directory in parts\n');
    expect(changes()).toEqual([]);
  });

  it('says that nothing changed when the pap refuses the change set, naming the step it refused', async () => {
    await start();
    await put('a.xml', policyXml('urn:policy:acme:a'));
    await put('b.xml', policyXml('urn:policy:acme:b'));
    pap.failOn('POST', '/ws/changes', 'changes[1].xml');
    const run = await apply('--yes');
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      [
        'the plan was refused; nothing changed',
        '  pap: the policy is not valid: 1 problem (400 invalid_policy)',
        `    add urn:policy:acme:b (${path.join(dir, 'b.xml')}): refused for the test`,
        '',
      ].join('\n'),
    );
    expect(pap.documents.size).toBe(0);
    // Applying again plans all of it again.
    const rest = await apply();
    expect(rest.out.split('\n').at(-3)).toBe('plan: 2 to add, 0 to replace, 2 to deploy, 0 to revoke, 0 to remove');
  });
});
