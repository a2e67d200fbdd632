/**
 * What may be logged of an unexpected error: its name, message, stack and SQLSTATE code, never the other
 * properties a driver attaches (postgres.js adds the query and its `parameters`, which may hold token
 * hashes or user text). Error messages of this service never include a secret.
 */
export function loggableError(err: unknown): string {
  if (!(err instanceof Error)) return typeof err === "string" ? err : Object.prototype.toString.call(err);
  const code = (err as { code?: unknown }).code;
  const head = err.stack ?? `${err.name}: ${err.message}`;
  return typeof code === "string" ? `${head} (code ${code})` : head;
}
