import type { Event, Modifier, ParameterValue } from '@custos/contracts';

/**
 * A `*.test.yaml` file after its shape was checked (docs/cli.md, "The test file"). Locations are kept for the
 * messages of later steps (missing policies, events of another shape).
 */
export interface TestFile {
  /** As the user named it. */
  file: string;
  /** Paths of the policies (files or directories), resolved against the test file's directory. */
  policies: Array<{ path: string; written: string; line?: number; column?: number }>;
  settings: TestSettings;
  pips: PipStub[];
  pxps: PxpStub[];
  tests: TestCase[];
}

export interface TestSettings {
  /** `DEFAULT_DECISION` of the pdp: the default of a solution that sets none. */
  defaultDecision: 'allow' | 'inhibit';
  timeZone: string;
  /** Each solution's settings as pap holds them (`PUT /ws/solutions/{solution}/settings`), by solution. */
  solutions: ReadonlyMap<string, SolutionTestSettings>;
}

/** The settings of a solution that decide a test: its default decision, else the pdp's `defaultDecision` applies. */
export interface SolutionTestSettings {
  defaultDecision?: 'allow' | 'inhibit';
}

/** A PIP answer: for `method`, with exactly these `parameters` (or any, when absent), `value` or a failure. */
export interface PipStub {
  method: string;
  parameters: Record<string, unknown> | null;
  /** Absent with `fail`: the PIP fails and the policy's default is used. */
  value: unknown;
  fail: boolean;
}

/** The boolean answer of a PXP to an `execute` inside a condition. */
export interface PxpStub {
  action: string;
  answer: boolean;
}

/** What every test has, whatever sets it off. */
interface CaseBase {
  /** For a row of a table, `<table>: <row>`. */
  name: string;
  /** `tests[i]` (`tests[i].rows[j]` for a row of a table), for messages. */
  path: string;
  line?: number;
  /** The table and the row's own name, for a test written as a row of a table. */
  table?: { name: string; row: string };
  history: Event[];
  pips: PipStub[];
  pxps: PxpStub[];
}

/** A test of one event, as a PEP sends it. */
export interface EventCase extends CaseBase {
  event: Event;
  expect: Expectation;
}

/** A test of a timer at one instant: whether it fires then, and what is decided on each event it fires. */
export interface TickCase extends CaseBase {
  tick: { timer: string; at: number; line?: number; column?: number };
  expect: TickExpectation;
}

export type TestCase = EventCase | TickCase;

export interface TickExpectation {
  /** Whether the timer fires at the tick's instant (default true). */
  fires: boolean;
  /** What each fired event's decision must be; absent with `fires: false`. */
  each?: Expectation;
}

export interface ExpectedParameter {
  name: string;
  value: Partial<ParameterValue>;
}

/** A modifier in the wire shape where every part but the name may be left out (compared as a subset). */
export interface ExpectedModifier {
  name: string;
  expression?: string;
  engine?: Array<{ method?: string; parameters?: ExpectedParameter[] }>;
}

export interface ExpectedExecute {
  action: string;
  /** Parameters (language values) the call must carry; others may be there too. */
  parameters: Record<string, unknown> | null;
}

export interface Expectation {
  allowed: boolean;
  modifiers?: ExpectedModifier[];
  delay?: number;
  /** Each must be called; an empty list means no call at all. */
  executes?: ExpectedExecute[];
}

/** What the engine said, in the wire shape, plus the PXP calls seen. */
export interface ActualOutcome {
  allowed: boolean;
  modifiers: Modifier[];
  delay: number;
  executes: Array<{ action: string; parameters: Record<string, unknown>; planned: boolean }>;
  /** Mechanism errors (the fail-closed inhibits), for the diff. */
  errors: string[];
}
