/**
 * The candidate a misspelt name was most likely meant to be: the one fewest single-character edits away (insert,
 * delete, replace, or swap two neighbours), if that is few enough for the length of the name: at most 1 edit for
 * names up to 4 characters, 2 up to 8, else 3. Case differences count as edits. Null when nothing is that close.
 */
export function closestName(name: string, candidates: Iterable<string>): string | null {
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === name || Math.abs(candidate.length - name.length) >= bestDistance) continue;
    const distance = editDistance(name, candidate, bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance; stops early (returning `ceiling`) once every path costs at least that much. */
function editDistance(a: string, b: string, ceiling: number): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum >= ceiling) return ceiling;
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? ceiling;
}

/** ``; did you mean `x`?`` when a close candidate exists, else the empty string: appended to a message. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const closest = closestName(name, candidates);
  return closest === null ? '' : `; did you mean \`${closest}\`?`;
}
