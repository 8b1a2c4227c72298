import { onlyRow } from '../src/index';

describe('onlyRow', () => {
  test('returns the first row of a result', () => {
    expect(onlyRow({ rows: [{ n: '3' }, { n: '4' }] }, 'count')).toEqual({ n: '3' });
  });

  test('names the statement when the row is missing', () => {
    expect(() => onlyRow({ rows: [] }, 'insert key')).toThrow('bug: `insert key` returned no row');
  });
});
