/** One located problem of a problem+json answer (api.md §5). */
export interface ProblemItem {
  message: string;
  line?: number;
  column?: number;
  path?: string;
}

/** A non-2xx answer of a Custos service, read from its problem+json body when it has one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | undefined,
    readonly errors: readonly ProblemItem[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function problemItems(raw: unknown): ProblemItem[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isRecord).map((item) => ({
    message: typeof item.message === 'string' ? item.message : 'unknown problem',
    ...(typeof item.line === 'number' ? { line: item.line } : {}),
    ...(typeof item.column === 'number' ? { column: item.column } : {}),
    ...(typeof item.path === 'string' ? { path: item.path } : {}),
  }));
}

/**
 * The error of an answer: problem+json gives detail, code and errors; the token endpoint's OAuth error gives
 * `error_description`; anything else is named by its status.
 */
export function apiErrorOf(status: number, body: unknown): ApiError {
  if (isRecord(body)) {
    const detail = typeof body.detail === 'string' ? body.detail : typeof body.title === 'string' ? body.title : undefined;
    if (detail !== undefined) {
      return new ApiError(status, detail, typeof body.code === 'string' ? body.code : undefined, problemItems(body.errors));
    }
    if (typeof body.error === 'string') {
      const description = typeof body.error_description === 'string' ? body.error_description : body.error;
      return new ApiError(status, description, body.error, []);
    }
  }
  return new ApiError(status, `the server answered ${status}`, undefined, []);
}

/**
 * Where a located problem is, in words: `line 4, column 9` for a document, the field path of a JSON body as the
 * service wrote it (`parameters[2].value.type`), or '' when it has no location.
 */
export function placeOf(item: ProblemItem): string {
  if (item.line !== undefined) return item.column !== undefined ? `line ${item.line}, column ${item.column}` : `line ${item.line}`;
  return item.path !== undefined && item.path !== '' && item.path !== '(body)' ? item.path : '';
}

/** One problem as a line for people: its place, then its message. */
export function problemLine(item: ProblemItem): string {
  const place = placeOf(item);
  return place === '' ? item.message : `${place}: ${item.message}`;
}
