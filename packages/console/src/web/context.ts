import type { ConsoleApi } from './logic/api';
import type { Session } from './logic/session';

/** What every page gets: the API with the session's token, and the newest revision the console caused. */
export interface ConsoleContext {
  api: ConsoleApi;
  session: Session;
  /** The highest `Policy-Revision` a change made in this console answered with: explanations wait for it. */
  lastRevision: number | undefined;
  sawRevision(revision: number | undefined): void;
}
