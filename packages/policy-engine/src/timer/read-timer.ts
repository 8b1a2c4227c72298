import type { Diagnostic } from '../api';
import { diagnostic, excerpt, sortDiagnostics } from '../diagnostics';
import { TIMER_NAMESPACE } from '../parse/namespaces';
import { readUrn } from '../parse/urns';
import { readXml } from '../xml/read-xml';
import { readQuartzCron, type QuartzSchedule } from './quartz';
import { readTimerEvent, type TimerEvent } from './timer-event';
import { describeTimerElement, isTimerElement, reportText, TIMER_ATTRIBUTES, timerAttributes } from './timer-xml';

export { TIMER_NAMESPACE } from '../parse/namespaces';
export type { TimerEvent } from './timer-event';

/** A timer document that passed every check. */
export interface TimerDocument {
  /** `urn:timer:<solution>:<name>`. */
  readonly id: string;
  readonly solution: string;
  readonly name: string;
  readonly description: string | null;
  /** The quartz expression as written (fields joined by one space). */
  readonly cron: string;
  /** The same schedule in cron-parser's six-field syntax, without the year (see readQuartzCron). */
  readonly schedule: string;
  /** The years the cron's year field allows, ascending; absent when it allows every year. */
  readonly years?: readonly number[];
  /** Where the `cron` attribute is, for diagnostics about the schedule (`timerScheduleDiagnostic`). */
  readonly cronLocation: { readonly line: number; readonly column?: number };
  readonly events: readonly TimerEvent[];
}

export type TimerLoadOutcome = { ok: true; timer: TimerDocument } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Reads a timer document with the policy pipeline's hardened reader (no DOCTYPE, limits, located diagnostics):
 *
 * ```
 * <timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="urn:timer:<solution>:<name>" cron="..." description?>
 *   <event action="urn:action:<solution>:<name>"> parameter:T* </event>   (one or more)
 * </timer>
 * ```
 *
 * (or the ind2uce 3.2.46 twins of these namespaces). The cron expression is checked completely (readQuartzCron) and
 * the document carries its schedule for `nextFireTime`; events are read by readTimerEvent. Every action must be in the
 * timer's solution (the solution rule of policy-language.md §2). Never throws for bad input; lists every problem.
 */
export function loadTimer(xml: string): TimerLoadOutcome {
  if (typeof xml !== 'string') {
    return { ok: false, diagnostics: [diagnostic('invalid_input', `the timer must be a string, found ${typeof xml}`)] };
  }
  const read = readXml(xml);
  if (!read.ok) return { ok: false, diagnostics: read.diagnostics };
  const root = read.root;
  if (!isTimerElement(root, 'timer')) {
    const message = `the root element must be \`timer\` in namespace \`${TIMER_NAMESPACE}\`, found ${describeTimerElement(root)}`;
    return { ok: false, diagnostics: [diagnostic('wrong_root', message, root.location)] };
  }
  const problems: Diagnostic[] = [];
  const attributes = timerAttributes(root, Object.keys(TIMER_ATTRIBUTES.timer), problems);
  const idAttribute = attributes.get('id');
  const id = idAttribute === undefined ? null : readUrn('timer', idAttribute.value);
  if (idAttribute === undefined) {
    problems.push(diagnostic('missing_attribute', '`timer` needs the attribute `id`', root.location));
  } else if (id === null) {
    const message = `\`${excerpt(idAttribute.value)}\` is not a timer id; expected \`urn:timer:<solution>:<name>\``;
    problems.push(diagnostic('invalid_urn', message, idAttribute.location));
  }
  const cronAttribute = attributes.get('cron');
  let schedule: QuartzSchedule | null = null;
  if (cronAttribute === undefined) {
    problems.push(diagnostic('missing_attribute', '`timer` needs the attribute `cron`', root.location));
  } else {
    const cron = readQuartzCron(cronAttribute.value);
    if (cron.ok) schedule = cron.value;
    else problems.push(diagnostic('invalid_attribute', `attribute \`cron\`: ${cron.problem}`, cronAttribute.location));
  }

  const events: TimerEvent[] = [];
  for (const child of root.children) {
    if (child.kind === 'text') {
      reportText(child, 'timer', problems);
    } else if (!isTimerElement(child, 'event')) {
      const message = `unexpected element ${describeTimerElement(child)} in \`timer\`; only \`event\` is allowed`;
      problems.push(diagnostic('unknown_element', message, child.location));
    } else {
      const event = readTimerEvent(child, id?.solution ?? null, problems);
      if (event !== null) events.push(event);
    }
  }
  if (!root.children.some((child) => child.kind === 'element')) {
    problems.push(diagnostic('missing_element', '`timer` needs at least one `event`', root.location));
  }

  if (problems.length > 0 || idAttribute === undefined || id === null || cronAttribute === undefined || schedule === null) {
    return { ok: false, diagnostics: sortDiagnostics(problems) };
  }
  const { line, column } = cronAttribute.location;
  return {
    ok: true,
    timer: Object.freeze({
      id: idAttribute.value,
      solution: id.solution,
      name: id.name,
      description: attributes.get('description')?.value ?? null,
      cron: schedule.quartz,
      schedule: schedule.cronParser,
      ...(schedule.years === undefined ? {} : { years: Object.freeze([...schedule.years]) }),
      cronLocation: column === undefined ? { line } : { line, column },
      events: Object.freeze(events),
    }),
  };
}
