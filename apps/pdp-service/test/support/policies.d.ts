export declare const policyXml: (id: string, mechanisms: string) => string;
/** Inhibits every event of `action`. */
export declare const inhibitAll: (id: string, action: string, reason?: string) => string;
/** Allows every event of `action` (so DEFAULT_DECISION=inhibit does not apply). */
export declare const allowAll: (id: string, action: string) => string;
/**
 * Inhibits `action` when the number parameter `amount` equals `limit`; otherwise allows it with
 * modifiers of every value type, a delay and an execute.
 */
export declare const maskingPolicy: (id: string, action: string, limit?: number) => string;
/** Not a policy the engine accepts (unknown element). */
export declare const brokenPolicy: (id: string, action: string) => string;
