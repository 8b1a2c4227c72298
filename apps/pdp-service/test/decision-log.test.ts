import { withoutValues } from '../src/decision/log';

describe('decision log', () => {
  it('blanks quoted user values in error messages', () => {
    expect(withoutValues('cannot compare `secret value` with `42`')).toBe('cannot compare `…` with `…`');
    expect(withoutValues('division by zero')).toBe('division by zero');
  });
});
