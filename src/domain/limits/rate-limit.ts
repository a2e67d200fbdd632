import type { Plan } from "@/db/tables/foundation.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { hitCounters } from "@/domain/core/counters.ts";

type Counted = { count: number; resetAt: Date };
import { DomainError } from "@/domain/core/errors.ts";

/** Units per hour per agent by plan (spec: Limits); null is unlimited. */
export const PLAN_HOURLY_UNITS: Record<Plan, number | null> = {
  free: 500,
  builder: 1500,
  growth: 4000,
  team: 15000,
  enterprise: null,
};
export const AGENT_BURST_UNITS = 240;
export const PROJECT_BURST_UNITS = 720;
/** The project hourly window is three times the per-agent limit. */
export const PROJECT_HOURLY_FACTOR = 3;

const HOUR = 3600_000;
const MINUTE = 60_000;

export interface RateState {
  limit: number | null;
  remaining: number | null;
  resetAt: Date;
  burstRemaining: number;
}

/** The windows one call charges, in a fixed order (the admission statement charges the same). */
export function rateWindows(actor: Pick<ActorCtx["actor"], "agentId" | "projectId" | "plan">, cost: number) {
  const hourly = PLAN_HOURLY_UNITS[actor.plan];
  return [
    { key: `burst:agent:${actor.agentId}`, windowMs: MINUTE, amount: cost },
    { key: `burst:project:${actor.projectId}`, windowMs: MINUTE, amount: cost },
    ...(hourly === null ? [] : [
      { key: `units:agent:${actor.agentId}`, windowMs: HOUR, amount: cost },
      { key: `units:project:${actor.projectId}`, windowMs: HOUR, amount: cost },
    ]),
  ];
}

/** Window bounds of a fixed window of `windowMs` containing `now`. */
export function windowOf(now: Date, windowMs: number): { start: Date; end: Date } {
  const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  return { start, end: new Date(start.getTime() + windowMs) };
}
export const RATE_WINDOWS = { MINUTE, HOUR } as const;

/** Counts after this call's charge: the two burst windows, and the hourly ones on limited plans. */
export interface ChargedCounts {
  agentBurst: Counted;
  projectBurst: Counted;
  agent?: Counted | undefined;
  project?: Counted | undefined;
}

/**
 * Charges `cost` units to the caller's agent and project windows (hourly and one-minute burst) and
 * refuses with 429 RATE_LIMITED when any window is exhausted. Counters live in the database.
 */
export async function chargeUnits(ctx: ActorCtx, cost: number): Promise<RateState> {
  const now = ctx.clock.now();
  const [agentBurst, projectBurst, agent, project] = await hitCounters(
    ctx.db,
    rateWindows(ctx.actor, cost),
    now,
  );
  return judgeRate(
    ctx.actor.plan,
    { agentBurst: agentBurst!, projectBurst: projectBurst!, agent, project },
    now,
  );
}

/** The rate state after a charge; throws 429 RATE_LIMITED when a window is exhausted. */
export function judgeRate(plan: Plan, counts: ChargedCounts, now: Date): RateState {
  const hourly = PLAN_HOURLY_UNITS[plan];
  const { agentBurst, projectBurst, agent, project } = counts;
  const burstRemaining = Math.max(
    0,
    Math.min(AGENT_BURST_UNITS - agentBurst.count, PROJECT_BURST_UNITS - projectBurst.count),
  );
  let state: RateState = { limit: null, remaining: null, resetAt: agentBurst.resetAt, burstRemaining };
  if (hourly !== null && agent && project) {
    const remaining = Math.min(hourly - agent.count, hourly * PROJECT_HOURLY_FACTOR - project.count);
    state = { limit: hourly, remaining: Math.max(0, remaining), resetAt: agent.resetAt, burstRemaining };
    if (remaining < 0) throw rateLimited(state, now, agent.resetAt);
  }
  if (agentBurst.count > AGENT_BURST_UNITS || projectBurst.count > PROJECT_BURST_UNITS) {
    throw rateLimited(state, now, agentBurst.resetAt);
  }
  return state;
}

function rateLimited(state: RateState, now: Date, resetAt: Date): DomainError {
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  return new DomainError(
    "limited",
    "RATE_LIMITED",
    "Rate limit exceeded; retry after the window resets",
    undefined,
    {
      retryAfterSeconds: retryAfter,
      rate: { limit: state.limit, resetAt, burstRemaining: state.burstRemaining },
    },
  );
}
