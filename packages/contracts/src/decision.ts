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

// The answer of POST /event, `AuthorizationDecision`, is the type of `authorizationDecisionSchema` (schemas.ts).
