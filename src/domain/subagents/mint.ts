import type { z } from "zod";
import type { SubAgentMintRequest } from "@/contracts/subagents.ts";
import type { Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { revokeTokens } from "@/domain/auth/revoke.ts";
import { SUBAGENT_SCOPES } from "@/domain/core/scopes.ts";
import { SUBAGENT_TOKEN_PREFIX } from "@/domain/auth/token-policy.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { closeSessions, OPEN_SESSION_STATUSES } from "@/domain/sessions/close.ts";
import { insertSession } from "@/domain/sessions/open.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { hashToken, randomSecret } from "@/domain/core/crypto.ts";
import { fail, recovery } from "@/domain/core/errors.ts";

/** POST /subagent/session's body, as the route has parsed it. */
export type MintInput = z.output<typeof SubAgentMintRequest>;

/**
 * Who may mint, and what: only a live session token of an agent (not a sub-agent); a sub-agent is a
 * generator or an evaluator, never an orchestrator. Returns the sub-agent's role.
 */
export function checkMint(actor: Pick<Actor, "kind" | "subAgentName">, input: MintInput): SubAgentRole {
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
  return input.role;
}

type SubAgentRole = Exclude<MintInput["role"], "orchestrator">;

/** What one mint writes: the name, its role, its token, and until when. */
interface Mint {
  name: string;
  role: SubAgentRole;
  ttlHours: number;
  token: string;
  now: Date;
  expiresAt: Date;
}

/**
 * POST /subagent/session: registers the sub-agent name under the calling orchestrator, opens its own
 * session and issues a `svc_sub_` token minted from the caller's session token. Minting a name again
 * replaces it: its earlier tokens are revoked and its open sessions completed.
 */
export async function mintSubAgent(ctx: ActorCtx, input: MintInput) {
  const { actor } = ctx;
  const role = checkMint(actor, input);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + input.ttlHours * 3600_000);
  const token = `${SUBAGENT_TOKEN_PREFIX}${randomSecret(32)}`;
  const mint: Mint = { name: input.name, role, ttlHours: input.ttlHours, token, now, expiresAt };
  const sessionId = await ctx.db.transaction().execute((trx) => writeMint(trx, actor, mint));
  return {
    subAgentToken: token,
    sessionId,
    name: input.name,
    expiresAt: expiresAt.toISOString(),
    role,
    scopes: [...SUBAGENT_SCOPES],
  };
}

/** The mint's writes, in its one transaction; returns the sub-agent's new session id. */
async function writeMint(trx: Trx, actor: Actor, m: Mint): Promise<string> {
  const { name, role, now } = m;
  await trx.insertInto("sub_agents").values({
    id: crypto.randomUUID(),
    project_id: actor.projectId,
    parent_agent_id: actor.agentId,
    name,
    role,
    created_at: now,
  }).onConflict((oc) =>
    oc.columns(["parent_agent_id", "name"]).doUpdateSet({ role, revoked_at: null, created_at: now })
  )
    .execute();
  await retireEarlier(trx, actor, name, now);
  const sessionId = await insertSession(trx, {
    projectId: actor.projectId,
    agentId: actor.agentId,
    subAgentName: name,
    source: "subagent",
    now,
  });
  await trx.insertInto("tokens").values({
    id: crypto.randomUUID(),
    kind: "subagent",
    token_hash: hashToken(m.token),
    project_id: actor.projectId,
    agent_id: actor.agentId,
    session_id: sessionId,
    sub_agent_name: name,
    parent_token_id: actor.tokenId,
    name,
    scopes: toJson(SUBAGENT_SCOPES),
    created_at: now,
    expires_at: m.expiresAt,
    idle_expires_at: null,
    last_used_at: null,
  }).execute();
  const expiresAt = m.expiresAt.toISOString();
  await writeSystemEntry(trx, {
    projectId: actor.projectId,
    type: "AGENT_SPAWNED",
    content: `${actor.agentName} spawned sub-agent ${name} (${role}) for ${m.ttlHours} h`,
    agentId: actor.agentId,
    subAgentName: name,
    sessionId,
    payload: { name, role, ttlHours: m.ttlHours, expiresAt },
    now,
  });
  await recordEvent(trx, {
    projectId: actor.projectId,
    kind: "subagent.spawned",
    entityType: "sub_agent",
    entityId: sessionId,
    agentId: actor.agentId,
    data: { name, role, expiresAt },
    now,
  });
  return sessionId;
}

/** A re-minted name: its earlier tokens are revoked and its open sessions completed. */
async function retireEarlier(trx: Trx, actor: Actor, name: string, now: Date): Promise<void> {
  const earlier = await trx.selectFrom("tokens").select("id").where("agent_id", "=", actor.agentId)
    .where("kind", "=", "subagent").where("sub_agent_name", "=", name).where("revoked_at", "is", null)
    .execute();
  await revokeTokens(trx, earlier.map((t) => t.id), now);
  const open = await trx.selectFrom("sessions").select("id").where("agent_id", "=", actor.agentId)
    .where("sub_agent_name", "=", name).where("status", "in", [...OPEN_SESSION_STATUSES]).execute();
  await closeSessions(trx, {
    projectId: actor.projectId,
    sessionIds: open.map((s) => s.id),
    status: "complete",
    byAgentId: actor.agentId,
    reason: "sub_agent_reminted",
    now,
  });
}
