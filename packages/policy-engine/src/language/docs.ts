import type { CoreElement, Family } from '../ast/catalogue';

/**
 * The one place the short help of every element and attribute is written (from policy-language.md's meaning): the
 * language description carries it to the XSD's annotations and to the console's completion and hover. In family
 * texts `T` stands for the element's type (`event:number` → number).
 */
export type DocumentedElement = CoreElement | Family | 'constant:true' | 'constant:false';

export const ELEMENT_DOCS: { readonly [Name in DocumentedElement]: string } = {
  policy: 'A policy: optional variable declarations, then one or more mechanisms. Its id is urn:policy:<solution>:<name>.',
  mechanism: 'Reacts to events of one action: the then of the first true if/elseif, otherwise the else; executes after the branches run whenever it fires.',
  if: 'The first branch: one boolean condition, then the decision taken when it is true.',
  elseif: 'A further branch, tried in order when the branches before it were false: a condition and its then.',
  else: 'The decision taken when no condition of the mechanism was true.',
  then: 'The decision of a branch whose condition was true: allow, inhibit or modify elements, then delay?, then executes.',
  allow: 'Allows the event.',
  inhibit: 'Inhibits the event; any inhibiting mechanism wins over every allowing one.',
  modify: 'Allows the event and asks the enforcement point to change one of its parameters (e.g. method replace, delete, hash).',
  delay: 'Asks the enforcement point to wait before going on (Custos extension); the largest delay of the deciding branches counts.',
  execute:
    'In a decision or directly in a mechanism: a PXP action run after the decision, also when the event is inhibited. ' +
    'In a condition: a synchronous PXP call whose boolean answer is used (false on any failure).',
  and: 'True when every child is true; stops at the first false unless mode="EAGER".',
  or: 'True when some child is true; stops at the first true unless mode="EAGER".',
  xor: 'True when an odd number of children is true.',
  not: 'The negation of its one boolean child.',
  implies: 'Two boolean children: false only when the first is true and the second false.',
  equals: 'True when every child equals the first (deep JSON equality; 1 equals 1.0).',
  less: 'Numbers in strictly increasing order (a < b < c).',
  lessEqual: 'Numbers in increasing order (a <= b <= c).',
  greater: 'Numbers in strictly decreasing order (a > b > c).',
  greaterEqual: 'Numbers in decreasing order (a >= b >= c).',
  regex: 'Whether string children match the whole regular expression (linear-time, RE2 syntax); mode says how many must.',
  contains: 'The first child is a list; true when the following values are elements of it (mode says how many must be).',
  eventHasParameter: 'Whether the event carries top-level parameters with the names its string children give.',
  date: 'Compares the day of the event (in POLICY_TIMEZONE) with a date dd.mm.yyyy.',
  time: 'Compares the time of day of the event (in POLICY_TIMEZONE, to the minute) with hh:mm.',
  day: 'True when the event happens on one of the listed weekdays.',
  continuousOccurrence:
    'History: splits the when span into windows of interval length; true when every window holds between minOccurrences and maxOccurrences matching events.',
  plus: 'The sum of its number children.',
  minus: 'The first number minus the following ones, left to right.',
  multiply: 'The product of its number children.',
  divide: 'The first number divided by the following ones, left to right; division by zero fails the mechanism.',
  size: 'The length of a list or a string.',
  count: 'History: the number of recorded events matching the eventOccurrence within the when span.',
  concat: 'The children printed one after another as a string (objects and lists as JSON).',
  eventOccurrence: 'Which recorded events count: the action, and parameter filters the recorded parameters must equal.',
  when: 'The span of history to look at: a fixedTime, or a start and an end.',
  start: 'Where the span starts: a time expression, or the first/last occurrence of an event; absent = the beginning of time.',
  end: 'Where the span ends: a time expression, or the first/last occurrence of an event; absent = now.',
  constant: 'A literal value of type T.',
  'constant:true': 'The boolean true.',
  'constant:false': 'The boolean false.',
  event: 'A parameter of the event as T (or the value at jsonPathQuery inside it); default when it is missing.',
  parameter: 'A named argument of type T for a pip, execute or modify, or a filter of an eventOccurrence: its value attribute, else its one child.',
  pip: 'The answer of the PIP method, of type T; default when the PIP cannot answer or answers another type.',
  variable: 'The value of the declared variable named by reference.',
  variableDeclaration: 'Declares a variable of type T: its one child, evaluated at most once per request, when first used.',
  valueChanged: 'True when the child\'s value differs from the one stored at the previous evaluation (the first counts as a change), optionally only when it becomes to.',
};

const REASON = 'Kept in the decision log and the explanation.';
const MATCH_MODE = 'How many children must match: ALL (default), EXACTLY_ONE, AT_LEAST_ONE or NONE.';
const EAGER = 'EAGER evaluates every child instead of stopping early.';
const JSON_PATH = 'An RFC 9535 JSONPath into the value, e.g. $.user.id.';
const TYPED_DEFAULT = 'The value used when there is no answer, as a literal of type T.';

/** The attributes' help, by element (family elements share their family's). */
export const ATTRIBUTE_DOCS: { readonly [Name in DocumentedElement]: Readonly<Record<string, string>> } = {
  policy: {
    id: 'The policy id, urn:policy:<solution>:<name>; every action and method it names must be of the same solution.',
    name: 'A readable name.',
    description: 'What the policy is for.',
  },
  mechanism: {
    event: 'The action this mechanism reacts to, urn:action:<solution>:<name> (compared exactly).',
    id: 'A name for the mechanism, shown in explanations.',
    description: 'What the mechanism is for.',
  },
  if: {},
  elseif: {},
  else: {},
  then: {},
  allow: { reason: REASON },
  inhibit: { reason: REASON },
  modify: {
    eventParameter: 'The event parameter to change.',
    method: 'What the enforcement point does to it: delete, replace, append, hash, anagram, shorten, round …',
    jsonPathQuery: 'Changes only the values at this JSONPath inside the parameter.',
    reason: REASON,
  },
  delay: { amount: 'How long to wait, a whole number of units.', unit: 'MILLISECONDS, SECONDS, MINUTES or HOURS.' },
  execute: { action: 'The PXP action to run, urn:action:<solution>:<name>.' },
  and: { mode: EAGER },
  or: { mode: EAGER },
  xor: {},
  not: {},
  implies: {},
  equals: {},
  less: {},
  lessEqual: {},
  greater: {},
  greaterEqual: {},
  regex: { regex: 'The regular expression the whole string must match.', mode: MATCH_MODE },
  contains: { mode: MATCH_MODE },
  eventHasParameter: { mode: MATCH_MODE },
  date: { is: 'before, after or exactly (any case).', value: 'The date, dd.mm.yyyy.' },
  time: { is: 'before, after or exactly (any case).', value: 'The time of day, hh:mm.' },
  day: { value: 'English day names separated by commas, e.g. monday,friday.' },
  continuousOccurrence: {
    interval: 'The window length, e.g. 1d or 2h30m (y w d h m s).',
    minOccurrences: 'Fewest matching events a window must hold (default 1).',
    maxOccurrences: 'Most matching events a window may hold (default unbounded).',
  },
  plus: {},
  minus: {},
  multiply: {},
  divide: {},
  size: {},
  count: {},
  concat: {},
  eventOccurrence: {
    event: 'The action of the recorded events, urn:action:<solution>:<name>.',
    mode: 'In a start or end: FIRST or LAST occurrence found is the reference time.',
  },
  when: { fixedTime: 'A named span: today, thisWeek, lastMonth, always … (wins over start and end).' },
  start: { time: 'DD.MM.YYYY hh:mm:ss, each field a number, * (now\'s) or +n/-n (relative to now).' },
  end: { time: 'DD.MM.YYYY hh:mm:ss, each field a number, * (now\'s) or +n/-n (relative to now).' },
  constant: { value: 'The literal: text, a number, true/false, JSON object or JSON array text.' },
  'constant:true': {},
  'constant:false': {},
  event: {
    eventParameter: 'The name of the event parameter.',
    default: 'The value when the parameter or the path is missing, as a literal of type T.',
    jsonPathQuery: JSON_PATH,
  },
  parameter: {
    name: 'The parameter name.',
    value: 'The value as a literal of type T (wins over a child).',
    jsonPathQuery: 'In an eventOccurrence filter: compares the value at this JSONPath inside the recorded parameter.',
  },
  pip: {
    method: 'The PIP method, urn:info:<solution>:<name>.',
    default: TYPED_DEFAULT,
    ttl: 'How long an answer is cached per method and parameters, e.g. 1h or 1w4d.',
  },
  variable: { reference: 'The name of a variableDeclaration of this policy.' },
  variableDeclaration: { name: 'The variable name, unique in the policy.' },
  valueChanged: {
    id: 'Names the stored value; unique in the policy.',
    to: 'Only true when the new value equals this literal of type T.',
  },
};

/** The help of timer documents (policy-language.md §11), by element, then attribute. */
export const TIMER_DOCS = {
  timer: {
    doc: 'A timer: fires its events on a cron schedule; each is decided like a PEP\'s event and only its executes matter.',
    attributes: {
      id: 'The timer id, urn:timer:<solution>:<name>; its events must be of the same solution.',
      cron: 'When it fires, in Quartz syntax with seconds first, e.g. 0 0 2 * * ? (every day at 02:00).',
      description: 'What the timer is for.',
    },
  },
  event: {
    doc: 'An event the timer fires: its action and constant parameters.',
    attributes: { action: 'The action of the event, urn:action:<solution>:<name>.' },
  },
} as const;
