import { toJson } from "@/db/tables/types.ts";
import { revokeTokens } from "@/domain/auth/revoke.ts";
import { SUBAGENT_SCOPES } from "@/domain/auth/scopes.ts";
import { SUBAGENT_TOKEN_PREFIX } from "@/domain/auth/token-policy.ts";
import { recordEvent } from "@/domain/events/record.ts";
import { writeSystemEntry } from "@/domain/ledger/system-entry.ts";
import { closeSessions, OPEN_SESSION_STATUSES } from "@/domain/sessions/close.ts";
import { insertSession } from "@/domain/sessions/open.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { hashToken, randomSecret } from "@/domain/shared/crypto.ts";
import { fail, recovery } from "@/domain/shared/errors.ts";

export const SUBAGENT_DEFAULT_TTL_HOURS = 24;

export interface MintInput {
  name: string;
  role: "generator" | "evaluator" | "orchestrator";
  ttlHours: number;
}

/**
 * POST /subagent/session: registers the sub-agent name under the calling orchestrator, opens its own
 * session and issues a `svc_sub_` token minted from the caller's session token. Minting a name again
 * replaces it: its earlier tokens are revoked and its open sessions completed.
 */
export async function mintSubAgent(ctx: ActorCtx, input: MintInput) {
  const { actor } = ctx;
  if (actor.kind !== "session" || actor.subAgentName !== null) {
    throw fail.forbidden("Only a live svc_sess_ session token can mint sub-agent tokens", {
      guidance: "API keys, OAuth tokens and sub-agent tokens cannot mint; pair as an orchestrator and mint " +
        "with its session token",
      recovery: recovery(
        "REPAIR",
        "POST /pair/connect",
        "Pair as an orchestrator and call POST /subagent/session with its session token",
        { code: "<pairing code>" },
      ),
    });
  }
  if (input.role === "orchestrator") {
    throw fail.unprocessable("A sub-agent cannot be an orchestrator", {
      fields: [{ path: "role", message: "Use generator or evaluator", code: "invalid_value" }],
    });
  }
  const role = input.role;
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + input.ttlHours * 3600_000);
  const subAgentToken = `${SUBAGENT_TOKEN_PREFIX}${randomSecret(32)}`;
  const sessionId = await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto("sub_agents").values({
      id: crypto.randomUUID(),
      project_id: actor.projectId,
      parent_agent_id: actor.agentId,
      name: input.name,
      role,
      created_at: now,
    }).onConflict((oc) =>
      oc.columns(["parent_agent_id", "name"]).doUpdateSet({ role, revoked_at: null, created_at: now })
    ).execute();
    const earlier = await trx.selectFrom("tokens").select("id").where("agent_id", "=", actor.agentId)
      .where("kind", "=", "subagent").where("sub_agent_name", "=", input.name).where("revoked_at", "is", null)
      .execute();
    await revokeTokens(trx, earlier.map((t) => t.id), now);
    const open = await trx.selectFrom("sessions").select("id").where("agent_id", "=", actor.agentId)
      .where("sub_agent_name", "=", input.name).where("status", "in", [...OPEN_SESSION_STATUSES]).execute();
    await closeSessions(trx, {
      projectId: actor.projectId,
      sessionIds: open.map((s) => s.id),
      status: "complete",
      byAgentId: actor.agentId,
      reason: "sub_agent_reminted",
      now,
    });
    const sessionId = await insertSession(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: input.name,
      source: "subagent",
      now,
    });
    await trx.insertInto("tokens").values({
      id: crypto.randomUUID(),
      kind: "subagent",
      token_hash: await hashToken(subAgentToken),
      project_id: actor.projectId,
      agent_id: actor.agentId,
      session_id: sessionId,
      sub_agent_name: input.name,
      parent_token_id: actor.tokenId,
      name: input.name,
      scopes: toJson(SUBAGENT_SCOPES),
      created_at: now,
      expires_at: expiresAt,
      idle_expires_at: null,
      last_used_at: null,
    }).execute();
    await writeSystemEntry(trx, {
      projectId: actor.projectId,
      type: "AGENT_SPAWNED",
      content: `${actor.agentName} spawned sub-agent ${input.name} (${role}) for ${input.ttlHours} h`,
      agentId: actor.agentId,
      subAgentName: input.name,
      sessionId,
      payload: { name: input.name, role, ttlHours: input.ttlHours, expiresAt: expiresAt.toISOString() },
      now,
    });
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "subagent.spawned",
      entityType: "sub_agent",
      entityId: sessionId,
      agentId: actor.agentId,
      data: { name: input.name, role, expiresAt: expiresAt.toISOString() },
      now,
    });
    return sessionId;
  });
  return {
    subAgentToken,
    sessionId,
    name: input.name,
    expiresAt: expiresAt.toISOString(),
    role,
    scopes: [...SUBAGENT_SCOPES],
  };
}
