import { type Logger } from '@custos/service-kit';
/** A real pino logger whose lines are kept in memory as parsed JSON. */
export declare function memoryLogger(level?: string): {
    logger: Logger;
    lines: Array<Record<string, unknown>>;
};
