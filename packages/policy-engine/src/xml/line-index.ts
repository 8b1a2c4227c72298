import type { SourceLocation } from '../diagnostics';

/** Maps character offsets to line/column, counting `\n`, `\r\n` and a lone `\r` as one line break (as XML does). */
export class LineIndex {
  private readonly lineStarts: number[] = [0];

  constructor(text: string) {
    const breaks = /\r\n?|\n/g;
    for (let match = breaks.exec(text); match !== null; match = breaks.exec(text)) {
      this.lineStarts.push(match.index + match[0].length);
    }
  }

  locate(offset: number): SourceLocation {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.lineStarts[middle] ?? Infinity) <= offset) low = middle;
      else high = middle - 1;
    }
    // lineStarts always holds 0 (the first line), so `low` names a line.
    return { line: low + 1, column: offset - (this.lineStarts[low] ?? 0) + 1 };
  }
}
