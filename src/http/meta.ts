import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { callerSituationOnce, metaContextOf } from "@/domain/core/silence.ts";
import { loggableError } from "@/shared/log-safe.ts";

/**
 * `meta.context` for an authenticated call (CONV-009/010), computed with one indexed statement before the
 * handler runs. Keys, each present only when non-zero: `unreadNotifications` (waiting for the next
 * GET /context), `expiringClaims` (your live claims expiring within 5 minutes), `expiredClaims` (yours,
 * expired and not released), `ledgerStale` `{ minutesSilent, thresholdMinutes, stale }` (while you hold
 * work, from 5 minutes before LEDGER_STALE applies). Nothing to report: no `meta.context` at all.
 * A failure here never fails the call: the update is simply left out.
 */
export async function metaContextFor(ctx: ActorCtx): Promise<Record<string, unknown> | undefined> {
  try {
    const situation = await callerSituationOnce(ctx.actor, ctx.db, {
      projectId: ctx.actor.projectId,
      agentId: ctx.actor.agentId,
      subAgentName: ctx.actor.subAgentName,
      sessionId: ctx.actor.sessionId,
      now: ctx.clock.now(),
    });
    const context = metaContextOf(situation);
    return Object.keys(context).length > 0 ? context : undefined;
  } catch (err) {
    // The database is down: the request itself answers 503 and logs it; no stack here.
    if (!isDatabaseUnavailable(err)) console.error("meta.context unavailable:", loggableError(err));
    return undefined;
  }
}
