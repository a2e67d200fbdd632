/**
 * True when `err` is a PostgreSQL unique violation (23505) of `constraint`. postgres.js reports the
 * constraint as `constraint_name`, PGlite as `constraint`; the message names it on both.
 */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { code?: unknown; constraint?: unknown; constraint_name?: unknown; message?: unknown };
  if (e.code !== "23505") return false;
  return e.constraint === constraint || e.constraint_name === constraint ||
    (typeof e.message === "string" && e.message.includes(constraint));
}

/** True when `err` is a PostgreSQL foreign-key violation (23503), e.g. a parent deleted meanwhile. */
export function isForeignKeyViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "23503";
}
