import { sql } from "kysely";
import type { ActorCtx } from "@/domain/core/context.ts";
import { readCounter } from "@/domain/core/counters.ts";
import { PLAN_HOURLY_UNITS, PROJECT_HOURLY_FACTOR } from "@/domain/limits/rate-limit.ts";
import { projectPhase } from "@/domain/projects/overview.ts";
import { toJson } from "@/db/tables/types.ts";
import type { DbOrTrx } from "@/db/database.ts";
import { compileTemplate, runTemplate, Slot, type Template } from "@/db/compiled.ts";
import type { Prefetch } from "@/domain/core/prefetch.ts";

export const ME_CACHE_MS = 30_000;

/** The keyed read of `me_cache`, compiled once (issue 27.1). */
let cacheReadTemplate: Template | undefined;

type CacheRow = { body: unknown; cached_at: Date };

async function readCache(db: DbOrTrx, tokenId: string, subAgentName: string, now: Date) {
  cacheReadTemplate ??= compileTemplate(
    db,
    sql`SELECT body, cached_at FROM me_cache
      WHERE token_id = ${new Slot("tokenId")} AND sub_agent_name = ${new Slot("subAgentName")}`,
    now,
  );
  const rows = await runTemplate<CacheRow>(db, cacheReadTemplate, now, { tokenId, subAgentName });
  return rows[0];
}

/**
 * GET /me reads the caller's `me_cache` entry in its admission statement (issue 27.1: one round trip
 * instead of two). The admission path serves tokens without a sub-agent name, whose entry has key ''.
 */
export const ME_CACHE_PREFETCH: Prefetch = {
  name: "me_cache",
  columns: (tokenId) =>
    sql`(SELECT mc.body FROM me_cache mc WHERE mc.token_id = ${tokenId} AND mc.sub_agent_name = '') AS me_body,
      (SELECT mc.cached_at FROM me_cache mc WHERE mc.token_id = ${tokenId} AND mc.sub_agent_name = '')
        AS me_cached_at`,
};

/** The entry the admission statement read (`ME_CACHE_PREFETCH`), as `readCache` answers it. */
function prefetchedEntry(row: Record<string, unknown>): CacheRow | undefined {
  const at = row.me_cached_at;
  if (at === null || at === undefined) return undefined;
  return { body: row.me_body, cached_at: at instanceof Date ? at : new Date(String(at)) };
}

/**
 * The cached body of GET /me for this token (and sub-agent name), from `me_cache`, so that every
 * instance on the database answers the same body and `cachedAt` for 30 seconds (SESS-033/035). A hit
 * is one keyed read. A stale or missing entry is rebuilt and upserted; when another instance refreshed
 * it in the meantime, its entry wins and is returned instead.
 */
async function cachedBody(
  ctx: ActorCtx,
  prefetched: Record<string, unknown> | undefined,
): Promise<{ body: MeBody; cachedAt: number }> {
  const now = ctx.clock.now();
  const key = { token_id: ctx.actor.tokenId, sub_agent_name: ctx.actor.subAgentName ?? "" };
  const fresh = (at: Date) => Math.abs(now.getTime() - at.getTime()) < ME_CACHE_MS;
  const hit = prefetched && key.sub_agent_name === ""
    ? prefetchedEntry(prefetched)
    : await readCache(ctx.db, key.token_id, key.sub_agent_name, now);
  if (hit && fresh(hit.cached_at)) return { body: hit.body as MeBody, cachedAt: hit.cached_at.getTime() };
  const body = await buildMe(ctx);
  const staleBefore = new Date(now.getTime() - ME_CACHE_MS);
  const staleAfter = new Date(now.getTime() + ME_CACHE_MS);
  const written = await ctx.db.insertInto("me_cache")
    .values({ ...key, body: toJson(body), cached_at: now })
    .onConflict((oc) =>
      oc.columns(["token_id", "sub_agent_name"])
        .doUpdateSet({
          body: (eb) => eb.ref("excluded.body"),
          cached_at: (eb) => eb.ref("excluded.cached_at"),
        })
        .where((eb) =>
          eb.or([eb("me_cache.cached_at", "<=", staleBefore), eb("me_cache.cached_at", ">=", staleAfter)])
        )
    )
    .returning(["body", "cached_at"]).executeTakeFirst();
  if (written) return { body: written.body as MeBody, cachedAt: written.cached_at.getTime() };
  // A concurrent call (on this or another instance) stored a fresh entry first: answer with it.
  const winner = await readCache(ctx.db, key.token_id, key.sub_agent_name, now);
  if (!winner) throw new Error("me_cache: the entry that won the upsert is gone");
  return { body: winner.body as MeBody, cachedAt: winner.cached_at.getTime() };
}

/**
 * GET /me: who the caller is; cached 30 seconds (in the database) except `plan.callsRemaining`.
 * `prefetched`: the admission row holding `ME_CACHE_PREFETCH`'s columns, when the admission read them.
 */
export async function describeMe(ctx: ActorCtx, prefetched?: Record<string, unknown>) {
  const entry = await cachedBody(ctx, prefetched);
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

/** The cached part of GET /me; `me_cache.body` holds exactly this, as JSON (only `buildMe` writes it). */
type MeBody = Awaited<ReturnType<typeof buildMe>>;

async function buildMe(ctx: ActorCtx) {
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
