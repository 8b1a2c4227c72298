import type { DocumentRestoreAnswer, DocumentVersion } from '@custos/contracts';

/** Who stored a version, for people: the client id, or a word for versions from before history was kept. */
export function authorOf(version: Pick<DocumentVersion, 'clientId'>): string {
  return version.clientId ?? 'unknown (stored before versions were kept)';
}

/** The two versions a history tab compares first: the one before the current, and the current (oldest first list). */
export function initialPair(versions: readonly Pick<DocumentVersion, 'number' | 'current'>[]): { from: number; to: number } | undefined {
  const currentAt = versions.findIndex((v) => v.current);
  const to = versions[currentAt >= 0 ? currentAt : versions.length - 1];
  if (to === undefined) return undefined;
  const before = versions.filter((v) => v.number < to.number).at(-1);
  return { from: before?.number ?? to.number, to: to.number };
}

/** How the diff view marks lines (a coloured bar in its gutter; nothing is struck through), said once for every caption. */
export const DIFF_LEGEND = 'removed lines have a red bar, added lines a green one';

/** The caption over the diff a "Review changes" dialog shows before a replace. */
export const REVIEW_CAPTION = `Changes from the stored text: ${DIFF_LEGEND}.`;

/** What the diff between two chosen versions shows, in words. */
export function pairCaption(from: number, to: number): string {
  if (from === to) return `Version ${from} compared with itself: nothing differs.`;
  const direction = from < to ? 'what changed' : 'what a restore of the older one would change back';
  return `From version ${from} to version ${to} (${direction}): ${DIFF_LEGEND}.`;
}

/** The outcome of a restore as the editor says it, with the revision it took effect at when the deployed set changed. */
export function restoreOutcome(id: string, restored: number, answer: DocumentRestoreAnswer): { text: string; revision?: number } {
  const base = `Restored version ${restored} of ${id} as version ${answer.version}`;
  if (!answer.deployed) return { text: `${base}; it is not deployed` };
  if (!answer.changed) return { text: `${base}; the deployed text was already the same (revision ${answer.revision})` };
  return { text: `${base} and deployed it`, revision: answer.revision };
}
