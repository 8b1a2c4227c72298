import { placeDiagnostics } from '../src/web/logic/diagnostics';

const TEXT = ['<policy id="x">', '  <mechanism event="urn:action:acme:a">', '    <allow/>', '  </mechanism>', '</policy>'].join('\n');
const offsetOf = (line: number, column: number) =>
  TEXT.split('\n').slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + column - 1;

describe('placeDiagnostics', () => {
  test('a line and column cover the word that starts there', () => {
    const [placed] = placeDiagnostics(TEXT, [{ message: 'bad', line: 2, column: 4 }]);
    // Column 4 of line 2 is where `mechanism` starts.
    expect(placed).toEqual({ from: offsetOf(2, 4), to: offsetOf(2, 4) + 'mechanism'.length, line: 2, message: 'bad' });
    expect(TEXT.slice(placed?.from, placed?.to)).toBe('mechanism');
  });

  test('a line without a column covers the whole line', () => {
    const [placed] = placeDiagnostics(TEXT, [{ message: 'bad', line: 3 }]);
    expect(TEXT.slice(placed?.from, placed?.to)).toBe('    <allow/>');
    expect(placed?.line).toBe(3);
  });

  test('no location: the first line, so the problem is still seen; no line number for people', () => {
    const [placed] = placeDiagnostics(TEXT, [{ message: 'whole document' }]);
    expect(placed).toEqual({ from: 0, to: '<policy id="x">'.length, line: null, message: 'whole document' });
  });

  test('a line past the end lands on the last line, a column past the end at its end', () => {
    const [late, wide] = placeDiagnostics(TEXT, [
      { message: 'late', line: 99 },
      { message: 'wide', line: 1, column: 500 },
    ]);
    expect(late?.line).toBe(5);
    expect(TEXT.slice(late?.from, late?.to)).toBe('</policy>');
    expect(wide?.from).toBe('<policy id="x">'.length);
  });

  test('an empty text still gives a place', () => {
    expect(placeDiagnostics('', [{ message: 'empty', line: 1, column: 1 }])).toEqual([{ from: 0, to: 0, line: 1, message: 'empty' }]);
  });
});
