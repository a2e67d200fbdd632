import { revokeAgentIn } from "@/domain/agents/revoke.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { closeSessions, OPEN_SESSION_STATUSES } from "@/domain/sessions/close.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import type { OperatorCtx } from "./operator.ts";

/**
 * The operator undoes what it created. Every credential check (service tokens, OAuth access and refresh
 * tokens, dashboard pages) reads the rows these verbs write on each request, and nothing caches the
 * decision in a process, so a revocation is refused by every instance on the database from the next
 * request. Revocations are idempotent: a second one answers 200 with `alreadyRevoked: true` (and the
 * first `revokedAt`); removing a member deletes the membership, so a second removal is 404.
 */

async function requireProject(ctx: OperatorCtx, projectId: string): Promise<void> {
  const project = await ctx.db.selectFrom("projects").select("id").where("id", "=", projectId)
    .executeTakeFirst();
  if (!project) throw fail.notFound(`Project "${projectId}" not found`);
}

/** Revokes an API key of the project; a key of another project, or another kind of token, is 404. */
export async function revokeApiKey(ctx: OperatorCtx, projectId: string, keyId: string) {
  await requireProject(ctx, projectId);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const key = await trx.selectFrom("tokens").select(["id", "agent_id", "name", "revoked_at"])
      .where("id", "=", keyId).where("project_id", "=", projectId).where("kind", "=", "api_key")
      .forUpdate().executeTakeFirst();
    if (!key) throw fail.notFound(`Cannot revoke API key "${keyId}": not found in project "${projectId}"`);
    if (key.revoked_at) {
      return { keyId, agentId: key.agent_id, revokedAt: key.revoked_at.toISOString(), alreadyRevoked: true };
    }
    await trx.updateTable("tokens").set({ revoked_at: now }).where("id", "=", keyId).execute();
    await recordEvent(trx, {
      projectId,
      kind: "api_key.revoked",
      entityType: "api_key",
      entityId: keyId,
      agentId: null,
      data: { keyAgentId: key.agent_id, name: key.name, via: "operator" },
      now,
    });
    return { keyId, agentId: key.agent_id, revokedAt: now.toISOString(), alreadyRevoked: false };
  });
}

/**
 * Revokes an agent of the project as the dashboard does (keys, session and sub-agent tokens revoked,
 * open sessions canceled, claims released, sub-agents unregistered; one transaction).
 */
export async function revokeAgent(ctx: OperatorCtx, projectId: string, agentId: string) {
  await requireProject(ctx, projectId);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const agent = await trx.selectFrom("agents").select(["id", "name", "status"])
      .where("id", "=", agentId).where("project_id", "=", projectId).forUpdate().executeTakeFirst();
    if (!agent) throw fail.notFound(`Cannot revoke agent "${agentId}": not found in project "${projectId}"`);
    const revoked = agent.status === "revoked" ? null : await revokeAgentIn(trx, {
      projectId,
      agentId,
      byAgentId: null,
      byLabel: "the operator",
      via: "operator",
      now,
    });
    return {
      agentId,
      name: agent.name,
      status: "revoked" as const,
      alreadyRevoked: revoked === null,
      revokedKeyIds: (revoked?.revokedTokens ?? []).filter((t) => t.kind === "api_key").map((t) => t.id),
      revokedTokens: revoked?.revokedTokens.length ?? 0,
      canceledSessionIds: revoked?.canceledSessionIds ?? [],
      releasedFiles: revoked?.releasedFiles ?? [],
      revokedSubAgents: revoked?.revokedSubAgents ?? 0,
    };
  });
}

/** Ends an open session (`canceled`, its tokens and the sub-agent tokens minted from them revoked). */
export async function endSession(ctx: OperatorCtx, sessionId: string) {
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const session = await trx.selectFrom("sessions").select([
      "id",
      "project_id",
      "agent_id",
      "status",
      "ended_at",
    ])
      .where("id", "=", sessionId).forUpdate().executeTakeFirst();
    if (!session) throw fail.notFound(`Cannot end session "${sessionId}": not found`);
    const open = (OPEN_SESSION_STATUSES as readonly string[]).includes(session.status);
    if (open) {
      await closeSessions(trx, {
        projectId: session.project_id,
        sessionIds: [session.id],
        status: "canceled",
        byAgentId: null,
        reason: "ended_by_operator",
        now,
      });
    }
    return {
      sessionId,
      projectId: session.project_id,
      agentId: session.agent_id,
      status: open ? "canceled" : session.status,
      endedAt: open ? now.toISOString() : session.ended_at?.toISOString() ?? null,
      alreadyEnded: !open,
    };
  });
}

/**
 * Removes a user from a project: the membership is deleted (the dashboard, OAuth access tokens and
 * refresh all check it on each request, so the user loses the project at once) and the user's OAuth
 * refresh tokens for the project are revoked (being added again needs a new consent). The user's other
 * projects and browser sign-in are untouched. Removing the project's last admin is refused (409
 * `LAST_ADMIN`): nobody could mint pairing codes or revoke agents from the dashboard any more.
 */
export async function removeMember(ctx: OperatorCtx, projectId: string, userId: string) {
  await requireProject(ctx, projectId);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    // Lock the project's admins first: two concurrent removals of its last two admins cannot both pass.
    const admins = await trx.selectFrom("memberships").select("user_id").where("project_id", "=", projectId)
      .where("role", "=", "admin").forUpdate().execute();
    const member = await trx.selectFrom("memberships").select(["role"]).where("project_id", "=", projectId)
      .where("user_id", "=", userId).forUpdate().executeTakeFirst();
    if (!member) {
      throw fail.notFound(`Cannot remove user "${userId}": not a member of project "${projectId}"`);
    }
    if (member.role === "admin" && admins.length <= 1) throw lastAdmin(projectId, userId);
    await trx.deleteFrom("memberships").where("project_id", "=", projectId).where("user_id", "=", userId)
      .execute();
    const refresh = await trx.updateTable("oauth_refresh_tokens").set({ revoked_at: now })
      .where("project_id", "=", projectId).where("user_id", "=", userId).where("revoked_at", "is", null)
      .returning("id").execute();
    await recordEvent(trx, {
      projectId,
      kind: "member.removed",
      entityType: "user",
      entityId: userId,
      agentId: null,
      data: { role: member.role, via: "operator" },
      now,
    });
    return {
      projectId,
      userId,
      role: member.role,
      removedAt: now.toISOString(),
      revokedRefreshTokens: refresh.length,
    };
  });
}

function lastAdmin(projectId: string, userId: string) {
  return fail.conflict(
    `Cannot remove user "${userId}": the last admin of project "${projectId}"`,
    {
      userId,
      recovery: recovery(
        "ADD_ANOTHER_ADMIN",
        `POST /admin/projects/${projectId}/members`,
        "Make another user admin of the project first (or archive the project), then remove this one",
        { userId: "<another user's id>", role: "admin" },
      ),
    },
    "LAST_ADMIN",
  );
}
