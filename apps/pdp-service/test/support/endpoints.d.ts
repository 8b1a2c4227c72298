/** One call a test endpoint received. */
export interface ReceivedCall {
    body: any;
    at: number;
}
/** What the endpoint does with the next call: answer a JSON value, a status, wait first, or drop the connection. */
export interface Behaviour {
    answer?: unknown;
    status?: number;
    delayMs?: number;
    /** Destroys the socket without answering. */
    hangUp?: boolean;
    /** Raw text instead of JSON. */
    raw?: string;
}
/**
 * A real HTTP PIP or PXP on 127.0.0.1 for tests: it records every `POST /execute` body and answers with
 * `behaviour(call)` (default: `defaultAnswer` as JSON).
 */
export declare class TestEndpoint {
    defaultAnswer: unknown;
    readonly calls: ReceivedCall[];
    behaviour: (call: ReceivedCall, index: number) => Behaviour;
    private server;
    private readonly open;
    private readonly delays;
    url: string;
    constructor(defaultAnswer?: unknown);
    start(): Promise<this>;
    private handle;
    stop(): Promise<void>;
}
