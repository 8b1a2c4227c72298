import type { EventParameter } from './event';

export interface ModifierEngine {
  method: string;
  parameters: EventParameter[];
}

export interface Modifier {
  name: string;
  expression: string;
  engine: [ModifierEngine];
}

export interface AuthorizationDecision {
  id: { identifier: string };
  eventAllowed: boolean;
  modifiers: Modifier[];
  delay: number;
}
