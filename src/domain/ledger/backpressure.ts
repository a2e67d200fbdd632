import type { DbOrTrx } from "@/db/database.ts";
import { hitCounter } from "@/domain/shared/counters.ts";
import { DomainError } from "@/domain/shared/errors.ts";
import type { Actor } from "@/domain/shared/actor.ts";

/** Per-action budgets (spec: Limits, per-action backpressure). */
export const BACKPRESSURE = {
  ledger: { limit: 90, windowMs: 5 * 60_000, label: "ledger writes", endpoint: "POST /ledger" },
  criticalAlert: { limit: 3, windowMs: 60_000, label: "critical alerts", endpoint: "POST /ledger" },
  claim: { limit: 45, windowMs: 5 * 60_000, label: "claim calls", endpoint: "POST /claim" },
  release: { limit: 30, windowMs: 5 * 60_000, label: "release calls", endpoint: "POST /release" },
} as const;

export type BudgetName = keyof typeof BACKPRESSURE;

/**
 * (design) Budgets are counted per identity: an agent, or one of its sub-agents, each with its own
 * budget, in fixed windows shared by every instance through the database. Every attempt counts.
 * Over budget: 429 BACKPRESSURE with Retry-After (seconds to the window's end).
 */
export async function assertBackpressure(
  db: DbOrTrx,
  actor: Pick<Actor, "agentId" | "subAgentName">,
  name: BudgetName,
  now: Date,
  amount = 1,
): Promise<void> {
  const budget = BACKPRESSURE[name];
  const identity = actor.subAgentName ? `${actor.agentId}/${actor.subAgentName}` : actor.agentId;
  const { count, resetAt } = await hitCounter(db, `bp:${name}:${identity}`, budget.windowMs, now, amount);
  if (count <= budget.limit) return;
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  throw new DomainError(
    "limited",
    "BACKPRESSURE",
    `Too many ${budget.label}: at most ${budget.limit} per ${budget.windowMs / 60_000} minute(s); slow down`,
    {
      action: name,
      limit: budget.limit,
      windowSeconds: budget.windowMs / 1000,
      retryAfterSeconds: retryAfter,
      recovery: {
        action: "RETRY_LATER",
        endpoint: budget.endpoint,
        hint: `Wait ${retryAfter} seconds, then retry; batch your work into fewer calls`,
        payloadHint: null,
      },
    },
    { retryAfterSeconds: retryAfter },
  );
}
