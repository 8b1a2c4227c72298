import type { Diagnostic } from '../api';
import { diagnostic, messageStyle } from '../diagnostics';

/** libxml2 severity levels: 1 warning, 2 error (e.g. an undeclared prefix), 3 fatal. */
const ERROR_LEVEL = 2;

interface LibxmlErrorShape {
  message?: unknown;
  line?: unknown;
  column?: unknown;
  level?: unknown;
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
