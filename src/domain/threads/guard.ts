import type { DbOrTrx } from "@/db/database.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { hitCounter } from "@/domain/core/counters.ts";
import { DomainError } from "@/domain/core/errors.ts";

/** 404 FEATURE_DISABLED on every thread endpoint while the project setting `threadsEnabled` is false. */
export async function assertThreadsEnabled(db: DbOrTrx, projectId: string): Promise<void> {
  const project = await db.selectFrom("projects").select("settings").where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  if (project.settings?.threadsEnabled === false) {
    throw new DomainError("not_found", "FEATURE_DISABLED", "Threads are disabled for this project", {
      feature: "threads",
      setting: "threadsEnabled",
    });
  }
}

/** Thread budgets (spec: Limits, per-action backpressure), 5-minute fixed windows. */
export const THREAD_BUDGETS = {
  open: { limit: 20, label: "new threads", endpoint: "POST /thread" },
  reply: { limit: 25, label: "thread replies", endpoint: "POST /thread/{threadId}/reply" },
  close: { limit: 15, label: "thread closes", endpoint: "POST /thread/{threadId}/close" },
} as const;
const WINDOW_MS = 5 * 60_000;

/**
 * Counts one thread action against the caller's budget and refuses with 429 BACKPRESSURE (Retry-After)
 * over it. Counted per identity like the ledger budgets: an agent, or each of its sub-agents, has its
 * own budget. Every attempt counts. A bulk close is one close call, whatever it closes; closing through
 * PATCH status `closed` counts as a close; reopening and intent edits are not budgeted.
 */
export async function chargeThreadAction(
  db: DbOrTrx,
  actor: Pick<Actor, "agentId" | "subAgentName">,
  action: keyof typeof THREAD_BUDGETS,
  now: Date,
): Promise<void> {
  const budget = THREAD_BUDGETS[action];
  const identity = actor.subAgentName ? `${actor.agentId}/${actor.subAgentName}` : actor.agentId;
  const { count, resetAt } = await hitCounter(db, `bp:thread-${action}:${identity}`, WINDOW_MS, now);
  if (count <= budget.limit) return;
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  throw new DomainError(
    "limited",
    "BACKPRESSURE",
    `Too many ${budget.label}: at most ${budget.limit} per 5 minutes; slow down`,
    {
      action: `thread.${action}`,
      limit: budget.limit,
      windowSeconds: WINDOW_MS / 1000,
      retryAfterSeconds: retryAfter,
      recovery: {
        action: "RETRY_LATER",
        endpoint: budget.endpoint,
        hint: `Wait ${retryAfter} seconds, then retry`,
        payloadHint: null,
      },
    },
    { retryAfterSeconds: retryAfter },
  );
}
