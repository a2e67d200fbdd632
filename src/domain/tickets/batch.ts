import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { createTicket, type CreateTicketFields } from "./create.ts";
import { ticketUrl } from "./project-info.ts";
import { loggableError } from "@/shared/log-safe.ts";

/** A batch row after validation: the parsed fields, or the refusal a single create would have given. */
export type BatchRow = { ok: true; input: CreateTicketFields } | {
  ok: false;
  title: string | null;
  error: DomainError;
};

export interface BatchCreated {
  index: number;
  id: string;
  number: number;
  ticketRef: string;
  status: string;
  createdAt: string;
  url: string;
  idempotent?: true;
}

/** A row that was not created, with its refusal (the surface maps it to a status and an error). */
export interface BatchError {
  index: number;
  title: string | null;
  refusal: DomainError;
}

/**
 * POST /ticket/batch: each row is an independent single create (own transaction, same rules: brief
 * required for the project's first ticket, idempotencyKey, settings, parent, sprint), in order. A row
 * with `assignToSelf` starts in `claimed`; criteria, branch and priority are accepted but not applied.
 * A failing row is reported in `errors` and never stops or rolls back the others.
 */
export async function createBatch(ctx: ActorCtx, rows: BatchRow[]) {
  const created: BatchCreated[] = [];
  const errors: BatchError[] = [];
  for (const [index, row] of rows.entries()) {
    if (!row.ok) {
      errors.push(errorItem(index, row.title, row.error));
      continue;
    }
    try {
      const outcome = await createTicket(ctx, row.input, "batch");
      const t = outcome.row;
      created.push({
        index,
        id: t.id,
        number: t.number,
        ticketRef: `${outcome.project.prefix}-${t.number}`,
        status: t.status,
        createdAt: t.created_at.toISOString(),
        url: ticketUrl(ctx.publicUrl, t.id),
        ...(outcome.kind === "idempotent" ? { idempotent: true as const } : {}),
      });
    } catch (err) {
      // The database went away: the whole request fails with 503 rather than every row with INTERNAL.
      if (isDatabaseUnavailable(err)) throw err;
      if (!(err instanceof DomainError)) {
        console.error(`ticket batch row ${index} failed:`, loggableError(err));
      }
      const refusal = err instanceof DomainError
        ? err
        : new DomainError("internal", "INTERNAL", "Unexpected failure creating this row; retry it");
      errors.push(errorItem(index, row.input.title, refusal));
    }
  }
  return { created, errors, total: rows.length };
}

function errorItem(index: number, title: string | null, refusal: DomainError): BatchError {
  return { index, title, refusal };
}
