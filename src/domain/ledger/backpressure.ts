import type { DbOrTrx } from "@/db/database.ts";
import { counterHit } from "@/domain/core/counters.ts";
import { DomainError } from "@/domain/core/errors.ts";
import type { Actor } from "@/domain/core/actor.ts";

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
  const hit = backpressureHit(actor, name, now, amount);
  const { rows } = await hit.query.execute(db);
  const refusal = backpressureRefusal(name, Number(rows[0]!.count), hit.resetAt, now);
  if (refusal) throw refusal;
}

/**
 * The budget's counter hit as one statement (`INSERT ... RETURNING count`), to run alone or as a CTE of
 * the statement that writes when the count is within `limit`: the hit is counted either way.
 */
export function backpressureHit(
  actor: Pick<Actor, "agentId" | "subAgentName">,
  name: BudgetName,
  now: Date,
  amount = 1,
) {
  const budget = BACKPRESSURE[name];
  const identity = actor.subAgentName ? `${actor.agentId}/${actor.subAgentName}` : actor.agentId;
  return { ...counterHit(`bp:${name}:${identity}`, budget.windowMs, now, amount), limit: budget.limit };
}

/** The 429 BACKPRESSURE for a count over the budget, or null within it. */
export function backpressureRefusal(
  name: BudgetName,
  count: number,
  resetAt: Date,
  now: Date,
): DomainError | null {
  return count <= BACKPRESSURE[name].limit ? null : backpressureError(name, resetAt, now);
}

/** 429 BACKPRESSURE: the budget is spent until `resetAt`. */
export function backpressureError(name: BudgetName, resetAt: Date, now: Date): DomainError {
  const budget = BACKPRESSURE[name];
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  return new DomainError(
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
