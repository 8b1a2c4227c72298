import type { TimerResource } from '@custos/contracts';
import { documentResource, type DocumentKind } from './kind';
import { validateTimer } from './timer-validation';

/** What a timer keeps beside id, solution and XML (policy-language.md §10). */
export type TimerMetadata = { description: string | null; cron: string };

export const TIMER_KIND: DocumentKind<TimerMetadata, TimerResource> = {
  name: 'timer',
  table: { name: 'pap.timers', versions: 'pap.timer_versions', metadata: ['description', 'cron'] },
  validate: validateTimer,
  toResource: (row) => documentResource(row, { description: row.description, cron: row.cron }),
  listsDeployed: false,
};
