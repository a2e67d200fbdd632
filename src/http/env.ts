import type { Clock } from "@/clock.ts";
import type { Config } from "@/config.ts";
import type { Db } from "@/db/database.ts";
import type { Engine } from "@/db/dialect.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ActorCtx, ServiceCtx } from "@/domain/core/context.ts";

/** What the app is built from: one database, one clock, one configuration. */
export interface AppDeps {
  db: Db;
  engine: Engine;
  clock: Clock;
  config: Config;
}

export interface AppEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    actor: Actor;
    /** Set by the rate limiter: units left in the hourly window (absent on unlimited plans). */
    callsRemaining: number | undefined;
    /** Compact update about the caller's own situation for `meta.context` (see http/meta.ts). */
    metaContext: Record<string, unknown> | undefined;
    /** The admission row with the columns the route's policy prefetches (see RoutePolicy.prefetch). */
    prefetched: Record<string, unknown> | undefined;
  };
}

export function serviceCtx(deps: AppDeps): ServiceCtx {
  return { db: deps.db, clock: deps.clock, publicUrl: deps.config.publicUrl };
}

export function actorCtx(deps: AppDeps, actor: Actor): ActorCtx {
  return { ...serviceCtx(deps), actor };
}
