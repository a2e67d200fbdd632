import type { z } from "zod";
import type { LedgerBatchData } from "@/contracts/ledger.ts";
import { LedgerEntryBody } from "@/contracts/ledger.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { fieldErrors } from "@/shared/field-errors.ts";
import { appendEntry } from "./append.ts";

export const MAX_BATCH = 20;

/** One result of POST /ledger/batch, for the entry at the same index. */
export type BatchItemResult = z.output<typeof LedgerBatchData>["results"][number];

/**
 * POST /ledger/batch: 1 to 20 entries, each validated and written on its own, in input order; a failing
 * entry does not stop the others. No side effects: no suspension on a critical ALERT, no ticket move on
 * BLOCKED, no thread for blockedByFile. Each entry counts against the ledger-write budget.
 */
export async function appendBatch(ctx: ActorCtx, entries: Record<string, unknown>[]) {
  if (entries.length > MAX_BATCH) {
    throw new DomainError(
      "unprocessable",
      "VALIDATION_ERROR",
      `At most ${MAX_BATCH} entries per batch (got ${entries.length})`,
      {
        count: entries.length,
        max: MAX_BATCH,
        recovery: {
          action: "SPLIT_BATCH",
          endpoint: "POST /ledger/batch",
          hint: `Send the entries in batches of at most ${MAX_BATCH}`,
          payloadHint: { entries: ["<up to 20 entries>"] },
        },
      },
    );
  }
  const results: BatchItemResult[] = [];
  for (const raw of entries) {
    const parsed = LedgerEntryBody.safeParse(raw);
    if (!parsed.success) {
      results.push({
        ok: false,
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid entry",
          details: {
            fields: fieldErrors(parsed.error),
          },
        },
      });
      continue;
    }
    try {
      const written = await appendEntry(ctx, parsed.data, "batch");
      results.push({ ok: true, id: written.id, createdAt: written.createdAt });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      results.push({
        ok: false,
        error: {
          code: error.code,
          message: error.message,
          ...(error.details ? { details: error.details } : {}),
        },
      });
    }
  }
  const succeeded = results.filter((r) => r.ok).length;
  return { ok: succeeded === results.length, results, succeeded, failed: results.length - succeeded };
}
