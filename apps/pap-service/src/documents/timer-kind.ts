import type { TimerResource } from '@custos/contracts';
import type { DocumentKind } from './kind';
import { validateTimer } from './timer-validation';

/** What a timer keeps beside id, solution and XML (policy-language.md §10). */
export type TimerMetadata = { description: string | null; cron: string };

export const TIMER_KIND: DocumentKind<TimerMetadata, TimerResource> = {
  name: 'timer',
  table: { name: 'pap.timers', versions: 'pap.timer_versions', metadata: ['description', 'cron'] },
  validate: validateTimer,
  toResource: (row) => ({
    id: { identifier: row.id },
    description: row.description,
    cron: row.cron,
    deployed: row.deployed,
    xml: row.xml,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }),
  listsDeployed: false,
};
