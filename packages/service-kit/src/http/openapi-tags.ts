const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * The same OpenAPI paths with every operation under the tag `tagOf` gives its path, so /docs groups
 * them (operations that name their own tags keep them).
 */
export function tagOperations<T extends Record<string, object>>(paths: T, tagOf: (path: string) => string): T {
  const tagged = Object.entries(paths).map(([path, item]) => [
    path,
    Object.fromEntries(
      Object.entries(item).map(([key, operation]: [string, unknown]) =>
        OPERATION_METHODS.has(key) && typeof operation === 'object' && operation !== null
          ? [key, { tags: [tagOf(path)], ...operation }]
          : [key, operation],
      ),
    ),
  ]);
  return Object.fromEntries(tagged) as T;
}
