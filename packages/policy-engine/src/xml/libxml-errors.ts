import type { Diagnostic } from '../api';
import { diagnostic, messageStyle } from '../diagnostics';

/** libxml2 severity levels: 1 warning, 2 error (e.g. an undeclared prefix), 3 fatal. */
const ERROR_LEVEL = 2;

interface LibxmlErrorShape {
  message?: unknown;
  line?: unknown;
  column?: unknown;
  level?: unknown;
  /** libxml2's error number (`xmlParserErrors`). */
  code?: unknown;
  /** The first string argument of the message, e.g. the prefix of an undeclared prefix error. */
  str1?: unknown;
}

/** libxml2's number of an error and its first string argument, when it gave them. */
export function libxmlErrorDetails(error: unknown): { code: number | undefined; argument: string | undefined } {
  const shape: LibxmlErrorShape = typeof error === 'object' && error !== null ? (error as LibxmlErrorShape) : {};
  return {
    code: typeof shape.code === 'number' ? shape.code : undefined,
    argument: typeof shape.str1 === 'string' ? shape.str1 : undefined,
  };
}

/** True for entries of `Document.errors` that make the document unusable (warnings are not). */
export function isLibxmlError(error: LibxmlErrorShape): boolean {
  return typeof error.level !== 'number' || error.level >= ERROR_LEVEL;
}

/** Turns what libxmljs2 throws or collects into a diagnostic in our message style. */
export function libxmlDiagnostic(error: unknown): Diagnostic {
  const shape: LibxmlErrorShape = typeof error === 'object' && error !== null ? (error as LibxmlErrorShape) : {};
  const raw = typeof shape.message === 'string' ? shape.message : String(error);
  const line = positiveInteger(shape.line);
  const column = positiveInteger(shape.column);
  const location = line === undefined ? undefined : column === undefined ? { line } : { line, column };
  return diagnostic('malformed_xml', `malformed xml: ${ourStyle(raw)}`, location);
}

/** libxml2 quotes names with '…'; our messages put user values in backticks. */
function ourStyle(message: string): string {
  return messageStyle(message).replace(/'([^']*)'/g, '`$1`');
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
