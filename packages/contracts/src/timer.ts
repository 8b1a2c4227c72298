/** `{"identifier": "urn:timer:<solution>:<name>"}`, as PolicyId is for policies. */
export interface TimerId {
  identifier: string;
}

/** A timer as `GET /ws/timer/{id}` shows it (policy-language.md §10; api.md §4 "Timers"). */
export interface TimerResource {
  id: TimerId;
  description: string | null;
  /** The quartz cron expression (seconds first), as written. */
  cron: string;
  deployed: boolean;
  xml: string;
  createdAt: string;
  updatedAt: string;
}
