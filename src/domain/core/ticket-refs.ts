import type { DbOrTrx } from "@/db/database.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY = /^([A-Z]{2,10})-(\d{1,9})$/;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Recovery for a ticket reference that does not resolve. */
export function resolveRefRecovery(ref: string) {
  return recovery(
    "RESOLVE_TICKET_REF",
    "GET /board",
    `No ticket "${ref}" in this project: list the board and use a ticket's id or its <PREFIX>-<number> key`,
    null,
  );
}

export function ticketNotFound(
  ref: string,
  kind: "not_found" | "unprocessable" = "not_found",
  code = "TICKET_NOT_FOUND",
): DomainError {
  return new DomainError(kind, code, `Cannot find ticket "${ref}" in this project`, {
    ref,
    recovery: resolveRefRecovery(ref),
  });
}

/**
 * 404 for a path id that is not a ticket of the project. Paths take the id (UUID), never the key: a key
 * there gets a recovery that reads the ticket by key (for its id), never one that suggests the key again.
 */
export function pathTicketNotFound(ref: string): DomainError {
  return new DomainError("not_found", "TICKET_NOT_FOUND", `Cannot find ticket "${ref}" in this project`, {
    ref,
    recovery: isUuid(ref) ? pathRefRecovery(ref) : recovery(
      "RESOLVE_TICKET_REF",
      `GET /ticket?key=${encodeURIComponent(ref)}`,
      "Paths take the ticket's id (UUID), not its key: read the ticket by key and use its id",
      null,
    ),
  });
}

function pathRefRecovery(ref: string) {
  return recovery(
    "RESOLVE_TICKET_REF",
    "GET /board",
    `No ticket "${ref}" in this project: list the board and use a ticket's id (paths take the id, not the key)`,
    null,
  );
}

/** What a ticket reference names: an id (UUID), or a key's prefix and number; null when it is neither. */
export function parseTicketRef(ref: string): { id: string } | { prefix: string; number: number } | null {
  if (isUuid(ref)) return { id: ref.toLowerCase() };
  const match = KEY.exec(ref);
  return match ? { prefix: match[1]!, number: Number(match[2]) } : null;
}

/**
 * Resolves a ticket reference (UUID or `<PREFIX>-<number>` with the project's upper-case prefix)
 * within the project. Returns the ticket id, or null when it does not resolve.
 */
export async function findTicketId(db: DbOrTrx, projectId: string, ref: string): Promise<string | null> {
  const query = ticketIdQuery(db, projectId, ref);
  return query ? (await query.executeTakeFirst())?.id ?? null : null;
}

/** The query of `findTicketId` (to run alone or inside another statement), or null for a malformed ref. */
export function ticketIdQuery(db: DbOrTrx, projectId: string, ref: string) {
  const parsed = parseTicketRef(ref);
  if (!parsed) return null;
  if ("id" in parsed) {
    return db.selectFrom("tickets as t").select("t.id").where("t.id", "=", parsed.id)
      .where("t.project_id", "=", projectId);
  }
  return db.selectFrom("tickets as t").innerJoin("projects as p", "p.id", "t.project_id")
    .select("t.id").where("t.project_id", "=", projectId).where("p.ticket_prefix", "=", parsed.prefix)
    .where("t.number", "=", parsed.number);
}

/** Like `findTicketId`, but refuses an unresolved reference with 404 TICKET_NOT_FOUND (recovery RESOLVE_TICKET_REF). */
export async function resolveTicketRef(db: DbOrTrx, projectId: string, ref: string): Promise<string> {
  const id = await findTicketId(db, projectId, ref);
  if (!id) throw ticketNotFound(ref);
  return id;
}
