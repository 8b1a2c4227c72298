/** Errors after which a connection must not go back to the pool. */
export function isConnectionError(error: Error): boolean {
  const code = (error as { code?: string }).code;
  return code === undefined || code.startsWith('08') || code === '57P01';
}
