import { idPath, type Api } from './api';
import type { DocumentKind } from './document-id';
import { solutionOfId } from './document-id';
import type { CurrentDocument, DesiredDocument } from './plan';

const KINDS: readonly DocumentKind[] = ['policy', 'timer'];
/** Texts fetched at once: enough to hide latency, few enough not to crowd the pap. */
const PARALLEL_FETCHES = 8;

function idsOf(body: unknown): string[] {
  if (!Array.isArray(body)) return [];
  return body
    .map((entry: unknown) => (typeof entry === 'object' && entry !== null ? (entry as { identifier?: unknown }).identifier : undefined))
    .filter((id): id is string => typeof id === 'string');
}

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      if (item !== undefined) await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * What the pap has of the solutions in scope and of the directory's documents: ids and deployed state of every
 * policy and timer, and the stored text of those the directory names (to see whether a replace is needed).
 */
export async function currentState(api: Api, solutions: ReadonlySet<string>, desired: readonly DesiredDocument[]): Promise<CurrentDocument[]> {
  const wanted = new Set(desired.map((document) => document.id));
  const current: CurrentDocument[] = [];
  for (const kind of KINDS) {
    const all = idsOf(await api.papJson('GET', `/ws/${kind}-ids`));
    const deployed = new Set(idsOf(await api.papJson('GET', `/ws/${kind}-ids/deployed`)));
    for (const id of all) {
      const solution = solutionOfId(id);
      if (wanted.has(id) || (solution !== undefined && solutions.has(solution))) current.push({ id, kind, deployed: deployed.has(id) });
    }
  }
  const toRead = current.filter((document) => wanted.has(document.id));
  await inParallel(toRead, PARALLEL_FETCHES, async (document) => {
    const answer = await api.pap('GET', `/ws/${document.kind}/${idPath(document.id)}`, { accept: 'application/xml' });
    document.xml = answer.text;
  });
  return current;
}
