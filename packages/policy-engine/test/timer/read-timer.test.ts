import { readQuartzCron } from '../../src/timer/quartz';
import { TIMER_NAMESPACE, loadTimer } from '../../src/timer/read-timer';
import { timerScheduleDiagnostic } from '../../src/timer/schedule-diagnostic';

const NS = `xmlns="${TIMER_NAMESPACE}" xmlns:parameter="http://www.mydata-control.de/4.0/parameter" xmlns:constant="http://www.mydata-control.de/4.0/constant"`;
const timer = (attributes: string, body: string) => `<timer ${NS} ${attributes}>\n${body}\n</timer>`;

describe('loadTimer', () => {
  it('reads id, cron, description and events with constant parameters of every type', () => {
    const outcome = loadTimer(
      timer(
        'id="urn:timer:acme:nightly" cron="0 30 2 ? * MON-FRI" description="every weekday"',
        `<event action="urn:action:acme:cleanup">
           <parameter:string name="scope" value="all"/>
           <parameter:number name="days"><constant:number value="30"/></parameter:number>
           <parameter:boolean name="dry"><constant:false/></parameter:boolean>
           <parameter:object name="opts" value='{"a":1}'/>
           <parameter:list name="ids" value="['x', 2]"/>
           <parameter:string name="none"/>
         </event>
         <event action="urn:action:acme:report"/>`,
      ),
    );
    expect(outcome).toEqual({
      ok: true,
      timer: {
        id: 'urn:timer:acme:nightly',
        solution: 'acme',
        name: 'nightly',
        description: 'every weekday',
        cron: '0 30 2 ? * MON-FRI',
        schedule: '0 30 2 ? * MON-FRI',
        cronLocation: { line: 1, column: expect.any(Number) },
        events: [
          {
            action: 'urn:action:acme:cleanup',
            parameters: [
              { name: 'scope', value: 'all' },
              { name: 'days', value: 30 },
              { name: 'dry', value: false },
              { name: 'opts', value: { a: 1 } },
              { name: 'ids', value: ['x', 2] },
              { name: 'none', value: null },
            ],
          },
          { action: 'urn:action:acme:report', parameters: [] },
        ],
      },
    });
  });

  it('lists every problem with its location', () => {
    const outcome = loadTimer(
      timer(
        'id="urn:policy:acme:x" cron="0 0" color="red"',
        `<event action="urn:action:globex:y">
           <parameter:number name="n" value="many"/>
           <parameter:string name="e"><event:string xmlns:event="http://www.mydata-control.de/4.0/event" eventParameter="a" default=""/></parameter:string>
         </event>
         <event/>
         <mechanism/>
         stray`,
      ),
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['invalid_urn', 1],
      ['invalid_attribute', 1],
      ['unknown_attribute', 1],
      ['invalid_attribute', 3],
      ['unsupported_element', 4],
      ['missing_attribute', 6],
      ['unknown_element', 7],
      // libxml2 locates a text node where it ends.
      ['unexpected_text', 9],
    ]);
    expect(outcome.diagnostics[0]!.message).toBe('`urn:policy:acme:x` is not a timer id; expected `urn:timer:<solution>:<name>`');
    expect(outcome.diagnostics.every((d) => d.column !== undefined || d.code === 'unexpected_text')).toBe(true);
  });

  it('applies the solution rule to every action', () => {
    const outcome = loadTimer(timer('id="urn:timer:acme:t" cron="* * * * * ?"', '<event action="urn:action:globex:y"/>'));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.diagnostics).toEqual([expect.objectContaining({ code: 'solution_mismatch', line: 2 })]);
  });

  it('refuses a wrong root, an empty timer, repeated parameters and mismatched constants', () => {
    const wrongRoot = loadTimer('<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" id="urn:policy:acme:p"/>');
    expect(!wrongRoot.ok && wrongRoot.diagnostics[0]!.code).toBe('wrong_root');
    const empty = loadTimer(timer('id="urn:timer:acme:t" cron="* * * * * ?"', ''));
    expect(!empty.ok && empty.diagnostics.map((d) => d.code)).toEqual(['missing_element']);
    const repeated = loadTimer(
      timer('id="urn:timer:acme:t" cron="* * * * * ?"', '<event action="urn:action:acme:a"><parameter:string name="p" value="1"/><parameter:string name="p" value="2"/></event>'),
    );
    // The duplicate-parameter rule of policies (pip queries, executes) applies to timer events too.
    expect(!repeated.ok && repeated.diagnostics.map((d) => d.code)).toEqual(['duplicate_parameter']);
    const mismatch = loadTimer(
      timer('id="urn:timer:acme:t" cron="* * * * * ?"', '<event action="urn:action:acme:a"><parameter:string name="p"><constant:true/></parameter:string></event>'),
    );
    expect(!mismatch.ok && mismatch.diagnostics.map((d) => d.code)).toEqual(['type_mismatch']);
  });

  it('accepts timers in the ind2uce 3.2.46 namespaces as their 4.0 twins', () => {
    const old = 'http://www.iese.fraunhofer.de/ind2uce/3.2.46';
    const body = '<event action="urn:action:acme:a"><parameter:number name="n"><constant:number value="2"/></parameter:number></event>';
    const legacy = loadTimer(
      `<timer xmlns="${old}/ind2uceLanguageTimer" xmlns:tns="${old}/ind2uceLanguageTimer" xmlns:parameter="${old}/parameter" ` +
        `xmlns:constant="${old}/constant" xmlns:pip="${old}/pip" xmlns:function="${old}/function" id="urn:timer:acme:t" cron="0 0 1 * * ?">\n${body}\n</timer>`,
    );
    const current = loadTimer(timer('id="urn:timer:acme:t" cron="0 0 1 * * ?"', body));
    expect(legacy.ok && current.ok).toBe(true);
    if (legacy.ok && current.ok) {
      expect(legacy.timer.events).toEqual([{ action: 'urn:action:acme:a', parameters: [{ name: 'n', value: 2 }] }]);
      expect(legacy.timer.events).toEqual(current.timer.events);
    }
    // The 3.2.46 policy namespace is not a timer namespace.
    const policyRoot = loadTimer(`<timer xmlns="${old}/ind2uceLanguage" id="urn:timer:acme:t" cron="0 0 1 * * ?"/>`);
    expect(!policyRoot.ok && policyRoot.diagnostics.map((d) => d.code)).toEqual(['wrong_root']);
  });

  it('carries the years of a year field with its schedule, and checks the schedule completely', () => {
    const oneShot = loadTimer(timer('id="urn:timer:acme:t" cron="0 0 12 24 12 ? 2027"', '<event action="urn:action:acme:a"/>'));
    expect(oneShot).toMatchObject({ ok: true, timer: { cron: '0 0 12 24 12 ? 2027', schedule: '0 0 12 24 12 ?', years: [2027] } });
    const never = loadTimer(timer('id="urn:timer:acme:t" cron="0 0 0 30 2 ?"', '<event action="urn:action:acme:a"/>'));
    // The column of the `cron` attribute: after `<timer ` and the namespace declarations and `id="urn:timer:acme:t" `.
    const column = `<timer ${NS} id="urn:timer:acme:t" `.length + 1;
    expect(never).toEqual({
      ok: false,
      diagnostics: [
        {
          code: 'invalid_attribute',
          message: expect.stringMatching(/^attribute `cron`: `0 0 0 30 2 \?` is not a valid schedule: /),
          line: 1,
          column,
        },
      ],
    });
  });

  it('says at registration when a timer never fires again', () => {
    const read = (cron: string) => {
      const outcome = loadTimer(timer(`id="urn:timer:acme:t" cron="${cron}"`, '<event action="urn:action:acme:a"/>'));
      if (!outcome.ok) throw new Error(outcome.diagnostics[0]?.message);
      return outcome.timer;
    };
    const now = new Date('2026-11-24T12:00:00Z');
    expect(timerScheduleDiagnostic(read('0 0 12 24 12 ? 2027'), now)).toBeNull();
    expect(timerScheduleDiagnostic(read('0 0 12 * * ?'), now)).toBeNull();
    const past = read('0 0 12 24 12 ? 2020');
    expect(timerScheduleDiagnostic(past, now)).toEqual({
      code: 'invalid_attribute',
      message: 'attribute `cron`: `0 0 12 24 12 ? 2020` never fires again: it has no fire time after 2026-11-24T12:00:00.000Z',
      line: past.cronLocation.line,
      column: past.cronLocation.column,
    });
    // The last fire time of 2026-11-24 12:00 itself is not "after now".
    expect(timerScheduleDiagnostic(read('0 0 12 24 11 ? 2026'), now)).not.toBeNull();
    expect(timerScheduleDiagnostic(read('0 0 12 24 11 ? 2026'), new Date('2026-11-24T11:59:59Z'))).toBeNull();
  });

  it('checks parameters with the rules of policy parameters, and only constants give them values', () => {
    const body =
      '<event action="urn:action:acme:a"><parameter:string name="p" value="1"/><parameter:number name="p"><constant:number value="x"/></parameter:number>' +
      '<parameter:string name="q"><constant:true/></parameter:string><parameter:string name="r" value="x" jsonPathQuery="$.a"/>' +
      '<parameter:string name="s" value="x"><constant:string value="y"/></parameter:string></event>';
    const outcome = loadTimer(timer('id="urn:timer:acme:t" cron="* * * * * ?"', body));
    const column = (text: string) => body.indexOf(text) + 1;
    expect(outcome).toEqual({
      ok: false,
      diagnostics: [
        { code: 'duplicate_parameter', message: 'parameter `p` is given more than once in one `event`', line: 2, column: column('name="p">') },
        { code: 'invalid_attribute', message: 'attribute `value` of `constant:number`: `x` is not a number', line: 2, column: column('value="x"/>') },
        {
          code: 'type_mismatch',
          message: '`parameter:string` needs a string value, found `constant:true` of type boolean',
          line: 2,
          column: column('<constant:true/>'),
        },
        { code: 'unknown_attribute', message: 'unknown attribute `jsonPathQuery` on `parameter:string`', line: 2, column: column('jsonPathQuery') },
        {
          code: 'too_many_children',
          message: '`parameter:string` has a `value`; it cannot also have a child',
          line: 2,
          column: column('<constant:string value="y"/>'),
        },
      ],
    });
  });

  it('reads hardened: a DOCTYPE is refused before anything else', () => {
    const outcome = loadTimer(`<!DOCTYPE timer [<!ENTITY x "y">]>${timer('id="urn:timer:acme:t" cron="* * * * * ?"', '<event action="urn:action:acme:a"/>')}`);
    expect(!outcome.ok && outcome.diagnostics[0]!.code).toBe('doctype_forbidden');
    expect(loadTimer(42 as unknown as string)).toEqual({ ok: false, diagnostics: [expect.objectContaining({ code: 'invalid_input' })] });
  });
});

describe('readQuartzCron', () => {
  it.each([
    ['0 0 12 * * ?', '0 0 12 * * ?'],
    ['0 15 10 ? * 2-6', '0 15 10 ? * 1-5'],
    ['0 0 0 ? * 1,7', '0 0 0 ? * 0,6'],
    ['0 0 0 ? * 6#3', '0 0 0 ? * 5#3'],
    ['0 0 0 ? * 6L', '0 0 0 ? * 5L'],
    ['0 0 0 ? * L', '0 0 0 ? * 6'],
    ['0 0 0 ? * 2/2', '0 0 0 ? * 1/2'],
    ['0 0 0 L * ?', '0 0 0 L * ?'],
    ['0 0 0 ? jan,dec mon', '0 0 0 ? JAN,DEC MON'],
    ['  */5   * * * * ?  *', '*/5 * * * * ?'],
    ['0 0 0 * * ? ?', '0 0 0 * * ?'],
  ])('translates %s to %s', (quartz, cronParser) => {
    expect(readQuartzCron(quartz)).toEqual({ ok: true, value: { quartz: quartz.trim().split(/\s+/).join(' '), cronParser } });
  });

  it.each([
    ['', /empty/],
    ['@daily', /shortcuts/],
    ['* * * * *', /5 fields/],
    ['0 0 0 1 * MON', /both given/],
    ['0 0 0 15W * ?', /`W` or `L-n`/],
    ['0 0 0 ? * 0', /not a quartz day of week/],
    ['0 0 0 ? * 8', /not a quartz day of week/],
    // A year field names years Quartz knows (1970–2099).
    ['0 0 0 * * ? 1969', /year field/],
    ['H * * * * ?', /`H`/],
    ['0 0 0 ? * 1%', /character/],
  ])('refuses %j', (text, problem) => {
    const read = readQuartzCron(text);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.problem).toMatch(problem);
  });
});
