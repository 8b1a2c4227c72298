import { expectNumber, finite, type ModifierMethod } from './method';

/** `add`: value + `operand`. */
export const addMethod: ModifierMethod = {
  parameters: ['operand'],
  prepare(args) {
    const operand = args.number('operand');
    return (value, path) => finite('add', expectNumber('add', value, path) + operand, path);
  },
};

/** `multiply`: value × `operand`. */
export const multiplyMethod: ModifierMethod = {
  parameters: ['operand'],
  prepare(args) {
    const operand = args.number('operand');
    return (value, path) => finite('multiply', expectNumber('multiply', value, path) * operand, path);
  },
};

/** `divide`: value ÷ `operand` (the divisor, required; zero is refused like the language's division). */
export const divideMethod: ModifierMethod = {
  parameters: ['operand'],
  prepare(args) {
    const operand = args.number('operand');
    if (operand === 0) throw new RangeError('parameter `operand` of `divide` must not be zero');
    return (value, path) => finite('divide', expectNumber('divide', value, path) / operand, path);
  },
};

/** Java's rounding modes, because the policies and their PEPs come from that world. */
export const ROUNDING_MODES = ['HALF_UP', 'HALF_DOWN', 'HALF_EVEN', 'UP', 'DOWN', 'CEILING', 'FLOOR'] as const;
export type RoundingMode = (typeof ROUNDING_MODES)[number];

/**
 * `round`: to the nearest point of the grid `offset + k × interval` (interval > 0, default 1; offset default 0),
 * by `mode` (default `HALF_UP`). The quotient is taken to 12 significant digits and the result to 15, so decimal
 * intervals behave as written (1.25 to 0.1 gives 1.3, not 1.2000000000000002).
 */
export const roundMethod: ModifierMethod = {
  parameters: ['mode', 'interval', 'offset'],
  prepare(args) {
    const mode = args.mode('mode', ROUNDING_MODES, 'HALF_UP');
    const interval = args.number('interval', 1);
    const offset = args.number('offset', 0);
    if (interval <= 0) throw new RangeError(`parameter \`interval\` of \`round\` must be greater than 0, got ${interval}`);
    return (value, path) => {
      const quotient = Number(((expectNumber('round', value, path) - offset) / interval).toPrecision(12));
      const steps = roundBy(mode, quotient);
      return finite('round', Number((offset + steps * interval).toPrecision(15)), path);
    };
  },
};

export function roundBy(mode: RoundingMode, q: number): number {
  const magnitude = Math.abs(q);
  const sign = Math.sign(q);
  const floor = Math.floor(magnitude);
  const fraction = magnitude - floor;
  switch (mode) {
    case 'UP':
      return sign * Math.ceil(magnitude);
    case 'DOWN':
      return sign * floor;
    case 'CEILING':
      return Math.ceil(q);
    case 'FLOOR':
      return Math.floor(q);
    case 'HALF_UP':
      return sign * (fraction >= 0.5 ? floor + 1 : floor);
    case 'HALF_DOWN':
      return sign * (fraction > 0.5 ? floor + 1 : floor);
    case 'HALF_EVEN':
      return sign * (fraction > 0.5 || (fraction === 0.5 && floor % 2 === 1) ? floor + 1 : floor);
  }
}

export const SIGN_MODES = ['SIGNUM', 'ABSOLUTE', 'NEGATE'] as const;

/** `sign`: `SIGNUM` (default) gives -1, 0 or 1; `ABSOLUTE` drops the sign; `NEGATE` flips it. */
export const signMethod: ModifierMethod = {
  parameters: ['mode'],
  prepare(args) {
    const mode = args.mode('mode', SIGN_MODES, 'SIGNUM');
    return (value, path) => {
      const number = expectNumber('sign', value, path);
      return finite('sign', mode === 'SIGNUM' ? Math.sign(number) : mode === 'ABSOLUTE' ? Math.abs(number) : -number, path);
    };
  },
};
