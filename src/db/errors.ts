/**
 * Driver errors, classified once. PGlite and postgres.js both expose the SQLSTATE as `code`;
 * postgres.js names a violated constraint `constraint_name`, PGlite `constraint`, and the message
 * names it on both.
 */

/** SQLSTATE of a driver error, if it has one. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/** True when `err` is a unique violation (23505), of `constraint` when given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (sqlState(err) !== "23505") return false;
  if (!constraint) return true;
  const e = err as { constraint?: unknown; constraint_name?: unknown; message?: unknown };
  return e.constraint === constraint || e.constraint_name === constraint ||
    (typeof e.message === "string" && e.message.includes(constraint));
}

/** True when `err` is a foreign-key violation (23503), e.g. a parent deleted meanwhile. */
export function isForeignKeyViolation(err: unknown): boolean {
  return sqlState(err) === "23503";
}
