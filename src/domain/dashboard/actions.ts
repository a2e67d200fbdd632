import { isStale } from "@/domain/core/claim-policy.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import { releaseClaims } from "@/domain/claims/release.ts";
import { revokeAgentIn } from "@/domain/agents/revoke.ts";
import { ADMIN_CODE_TTL_SECONDS, issueAgentCode, type IssuedCode } from "@/domain/pairing/codes.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const PAIRABLE_ROLES = ["generator", "evaluator", "observer", "orchestrator"] as const;
export type PairableRole = typeof PAIRABLE_ROLES[number];

/**
 * A project admin mints a pairing code from the dashboard: an admin code (5 minutes, as the operator
 * API's), attributed to the admin's agent, recorded as `pairing_code.issued`.
 */
export async function mintPairingCode(
  ctx: ActorCtx,
  input: { agentName?: string | undefined; role: PairableRole },
): Promise<IssuedCode> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const agentName = input.agentName?.trim() || undefined;
  if (agentName !== undefined && (agentName.length > 100 || agentName.includes("\u0000"))) {
    throw fail.validation("An agent name has 1 to 100 characters", { field: "agentName" });
  }
  return await ctx.db.transaction().execute((trx) =>
    issueAgentCode(trx, {
      projectId: actor.projectId,
      agentName,
      role: input.role,
      issuedByAgentId: actor.agentId,
      ttlSeconds: ADMIN_CODE_TTL_SECONDS,
      now,
    }, "dashboard")
  );
}

/**
 * Revokes an agent of the project: status `revoked`, every live credential revoked (keys, session,
 * sub-agent and refresh tokens), its open sessions canceled, its claims released and its sub-agents
 * unregistered. Pairing as that agent is refused afterwards (AGENT_REVOKED). One transaction.
 */
export async function revokeAgent(ctx: ActorCtx, agentId: string): Promise<{ id: string; name: string }> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  if (!UUID.test(agentId)) throw fail.notFound(`Cannot revoke agent "${agentId}": not found`);
  if (agentId.toLowerCase() === actor.agentId) {
    throw fail.validation("Cannot revoke your own agent from the dashboard", { agentId });
  }
  return await ctx.db.transaction().execute(async (trx) => {
    const revoked = await revokeAgentIn(trx, {
      projectId: actor.projectId,
      agentId: agentId.toLowerCase(),
      byAgentId: actor.agentId,
      byLabel: `${actor.agentName} from the dashboard`,
      via: "dashboard",
      now,
    });
    if (!revoked) throw fail.notFound(`Cannot revoke agent "${agentId}": not found or already revoked`);
    return { id: revoked.id, name: revoked.name };
  });
}

/**
 * Releases a stale claim (held over 10 minutes, or expired) on behalf of its holder; a fresh claim is
 * refused (409) so a human never pulls files from under an agent that is working.
 */
export async function releaseStaleClaim(ctx: ActorCtx, claimId: string): Promise<string[]> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  if (!UUID.test(claimId)) throw fail.notFound(`Cannot release claim "${claimId}": not found`);
  return await ctx.db.transaction().execute(async (trx) => {
    await lockProjectClaims(trx, actor.projectId); // the release grants waiters: the queue's lock first
    const claim = await trx.selectFrom("claims").select([
      "id",
      "agent_id",
      "sub_agent_name",
      "claimed_at",
      "expires_at",
    ])
      .where("id", "=", claimId.toLowerCase()).where("project_id", "=", actor.projectId)
      .where("released_at", "is", null).forUpdate().executeTakeFirst();
    if (!claim) throw fail.notFound(`Cannot release claim "${claimId}": not found or already released`);
    if (claim.expires_at > now && !isStale(claim.claimed_at, now)) {
      throw fail.conflict("Cannot release a claim that is not stale: its holder is still within 10 minutes", {
        claimId,
      });
    }
    const files = await trx.selectFrom("claim_files").select("file").where("claim_id", "=", claim.id)
      .where("released_at", "is", null).execute();
    const released = await releaseClaims(trx, {
      projectId: actor.projectId,
      agentId: claim.agent_id,
      subAgentName: claim.sub_agent_name,
      files: files.map((f) => f.file),
      now,
    });
    return released;
  });
}

/** The project's brief as stored (for the brief form). */
export async function currentBrief(ctx: ActorCtx | { db: ActorCtx["db"] }, projectId: string) {
  const row = await ctx.db.selectFrom("projects").select(["brief", "brief_version"]).where(
    "id",
    "=",
    projectId,
  )
    .executeTakeFirstOrThrow();
  return { content: row.brief ?? {}, version: row.brief_version };
}
