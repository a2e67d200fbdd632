import type { ActorCtx } from "@/domain/shared/context.ts";
import { readCounter } from "@/domain/shared/counters.ts";
import { PLAN_HOURLY_UNITS, PROJECT_HOURLY_FACTOR } from "@/domain/limits/rate-limit.ts";
import { projectPhase } from "@/domain/projects/overview.ts";

export const ME_CACHE_MS = 30_000;
const MAX_CACHED = 10_000;

interface CachedMe {
  body: Record<string, unknown>;
  cachedAt: number;
}

/** Per-process cache of /me bodies by token, 30 seconds; the call budget is never cached. */
const cache = new Map<string, CachedMe>();

/** GET /me: who the caller is; cached 30 seconds except `plan.callsRemaining`. */
export async function describeMe(ctx: ActorCtx) {
  const now = ctx.clock.now().getTime();
  const key = `${ctx.actor.tokenId}:${ctx.actor.subAgentName ?? ""}`;
  let entry = cache.get(key);
  if (!entry || now - entry.cachedAt >= ME_CACHE_MS || now < entry.cachedAt) {
    entry = { body: await buildMe(ctx), cachedAt: now };
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, entry);
  }
  const limit = PLAN_HOURLY_UNITS[ctx.actor.plan];
  // Same figure as meta.callsRemaining: the lower of the agent's and the project's hourly windows.
  let remaining: number | null = null;
  if (limit !== null) {
    const at = ctx.clock.now();
    const agentUsed = await readCounter(ctx.db, `units:agent:${ctx.actor.agentId}`, 3600_000, at);
    const projectUsed = await readCounter(ctx.db, `units:project:${ctx.actor.projectId}`, 3600_000, at);
    remaining = Math.max(0, Math.min(limit - agentUsed, limit * PROJECT_HOURLY_FACTOR - projectUsed));
  }
  return {
    ...entry.body,
    plan: {
      tier: ctx.actor.plan,
      callsRemaining: remaining,
      callsLimit: limit,
    },
    cachedAt: entry.cachedAt,
  };
}

async function buildMe(ctx: ActorCtx): Promise<Record<string, unknown>> {
  const { actor, db } = ctx;
  const agent = await db.selectFrom("agents").select(["id", "name", "platform", "model", "company"])
    .where("id", "=", actor.agentId).executeTakeFirstOrThrow();
  const project = await db.selectFrom("projects").select(["id", "name"]).where("id", "=", actor.projectId)
    .executeTakeFirstOrThrow();
  const session = actor.sessionId
    ? await db.selectFrom("sessions").select(["id", "status", "started_at"]).where("id", "=", actor.sessionId)
      .executeTakeFirst()
    : undefined;
  const phase = await projectPhase(db, actor.projectId);
  return {
    agent: { ...agent, ...(actor.subAgentName ? { subAgentName: actor.subAgentName } : {}) },
    project: { id: project.id, name: project.name, phase: phase.phase, subphase: phase.subphase },
    org: { id: actor.orgId, plan: actor.plan },
    scopes: actor.scopes,
    sessionId: actor.sessionId,
    session: session
      ? { id: session.id, status: session.status, startedAt: session.started_at.toISOString() }
      : null,
    role: actor.role,
  };
}
