import { CLAIM_GRACE_MS, isStale } from "@/domain/core/claim-policy.ts";
import { identityName } from "@/domain/core/actor.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import type { DashboardMember } from "./access.ts";

/** A claim that ends within this long is marked "expiring soon". */
export const EXPIRING_SOON_MS = 5 * 60_000;
export const CLAIMS_PAGE_SIZE = 100;

export interface ClaimRow {
  id: string;
  holder: string;
  agentId: string;
  ticketKey: string | null;
  files: string[];
  claimedAt: Date;
  expiresAt: Date;
  expiringSoon: boolean;
  /** Held over 10 minutes (the claim verbs' stale rule) or past its expiry: a human may release it. */
  stale: boolean;
  expired: boolean;
}

/** Live claims (not released; expired ones still inside the grace window), oldest first. Two queries. */
export async function liveClaims(ctx: ServiceCtx, member: DashboardMember): Promise<ClaimRow[]> {
  const now = ctx.clock.now();
  const { project } = member;
  const claims = await ctx.db.selectFrom("claims as c")
    .innerJoin("agents as a", "a.id", "c.agent_id")
    .leftJoin("tickets as t", "t.id", "c.ticket_id")
    .select([
      "c.id",
      "c.agent_id",
      "c.sub_agent_name",
      "c.claimed_at",
      "c.expires_at",
      "a.name as agent_name",
      "t.number as ticket_number",
    ])
    .where("c.project_id", "=", project.id).where("c.released_at", "is", null)
    .where("c.expires_at", ">", new Date(now.getTime() - CLAIM_GRACE_MS))
    .orderBy("c.claimed_at", "asc").limit(CLAIMS_PAGE_SIZE).execute();
  if (claims.length === 0) return [];
  const files = await ctx.db.selectFrom("claim_files").select(["claim_id", "file"])
    .where("claim_id", "in", claims.map((c) => c.id)).where("released_at", "is", null).orderBy("file")
    .execute();
  return claims.map((c) => {
    const expired = c.expires_at <= now;
    return {
      id: c.id,
      holder: identityName(c.agent_name, c.sub_agent_name),
      agentId: c.agent_id,
      ticketKey: c.ticket_number === null ? null : `${project.prefix}-${c.ticket_number}`,
      files: files.filter((f) => f.claim_id === c.id).map((f) => f.file),
      claimedAt: c.claimed_at,
      expiresAt: c.expires_at,
      expiringSoon: !expired && c.expires_at.getTime() - now.getTime() < EXPIRING_SOON_MS,
      stale: expired || isStale(c.claimed_at, now),
      expired,
    };
  });
}
