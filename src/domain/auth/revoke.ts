import type { DbOrTrx } from "@/db/database.ts";

/**
 * Revokes the tokens and every sub-agent token minted from them (spec: sub-agent tokens are invalidated
 * when the parent session token is revoked or rotated). Returns the ids revoked by this call.
 */
export async function revokeTokens(db: DbOrTrx, tokenIds: string[], now: Date): Promise<string[]> {
  if (tokenIds.length === 0) return [];
  const revoked = await db.updateTable("tokens").set({ revoked_at: now })
    .where("id", "in", tokenIds).where("revoked_at", "is", null).returning("id").execute();
  const children = await db.updateTable("tokens").set({ revoked_at: now })
    .where("parent_token_id", "in", tokenIds).where("kind", "=", "subagent").where("revoked_at", "is", null)
    .returning("id").execute();
  return [...revoked, ...children].map((t) => t.id);
}

/** Revokes every token bound to the sessions, with the sub-agent tokens minted from them. */
export async function revokeSessionTokens(db: DbOrTrx, sessionIds: string[], now: Date): Promise<void> {
  if (sessionIds.length === 0) return;
  const bound = await db.selectFrom("tokens").select("id").where("session_id", "in", sessionIds)
    .where("kind", "in", ["session", "subagent"]).execute();
  await revokeTokens(db, bound.map((t) => t.id), now);
}
