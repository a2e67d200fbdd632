import type { ActorCtx } from "@/domain/core/context.ts";
import { hitCounter } from "@/domain/core/counters.ts";
import { DomainError } from "@/domain/core/errors.ts";

const ENDPOINT = "PATCH /brief";

/** PATCH /brief budgets per agent (spec: Limits, backpressure): 20 a minute and 200 an hour, fixed windows. */
export const BRIEF_WINDOWS = [
  { name: "minute", ms: 60_000, limit: 20 },
  { name: "hour", ms: 3_600_000, limit: 200 },
] as const;

/**
 * Counts one PATCH /brief call of the caller's agent in both windows; over either budget refuses with
 * 429 ENDPOINT_RATE_LIMITED (`details.endpoint`, `details.window`, headers X-RateLimit-Endpoint,
 * X-RateLimit-Window, Retry-After). Refused calls count too, so hammering does not open the window early.
 */
export async function chargeBriefWrite(ctx: ActorCtx): Promise<void> {
  const now = ctx.clock.now();
  let refusal: DomainError | null = null;
  for (const window of BRIEF_WINDOWS) {
    const { count, resetAt } = await hitCounter(
      ctx.db,
      `endpoint:brief:${window.name}:${ctx.actor.agentId}`,
      window.ms,
      now,
    );
    if (count > window.limit && !refusal) {
      const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
      refusal = new DomainError(
        "limited",
        "ENDPOINT_RATE_LIMITED",
        `More than ${window.limit} ${ENDPOINT} calls in one ${window.name}; retry after ${retryAfter} s`,
        { endpoint: ENDPOINT, window: window.name, limit: window.limit, retryAfterSeconds: retryAfter },
        { retryAfterSeconds: retryAfter, endpoint: { name: ENDPOINT, window: window.name } },
      );
    }
  }
  if (refusal) throw refusal;
}
