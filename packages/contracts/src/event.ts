/** A typed value as enforcement points send it; `type` is a Java-style name and only informational. */
export interface ParameterValue {
  value: unknown;
  type: string;
  isComplex: boolean;
}

export interface EventParameter {
  name: string;
  value: ParameterValue;
}

/** Either the split form or the compatible `{urn}` form of api.md §3. */
export type ActionId = { scope: string; action: string } | { urn: string };

export interface Event {
  actionId: ActionId;
  timestamp: number;
  parameters: EventParameter[];
}
