import type { z } from "zod";
import {
  type AddArtifactBody,
  ARTIFACT_METADATA_MAX_BYTES,
  type PatchArtifactBody,
} from "@/contracts/workflow.ts";
import { type Selectable, sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import type { TicketArtifactsTable } from "@/db/tables/work.ts";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { ticketByPathId } from "./approve.ts";
import { relationOf } from "./permissions.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { isUuid } from "@/domain/core/ticket-refs.ts";

export type ArtifactType = "pull_request" | "branch" | "commit" | "deploy";
export type ArtifactStatus = "open" | "merged" | "closed";

/** POST /ticket/{ticketId}/artifacts' body, as the route has parsed it. */
export type AddArtifactInput = z.output<typeof AddArtifactBody>;

/** PATCH /ticket/{ticketId}/artifacts/{artifactId}'s body, as the route has parsed it. */
export type PatchArtifactInput = z.output<typeof PatchArtifactBody>;

function toArtifact(row: Selectable<TicketArtifactsTable>) {
  return {
    id: row.id,
    ticketId: row.ticket_id,
    type: row.type,
    url: row.url,
    ref: row.ref,
    title: row.title,
    metadata: row.metadata ?? {},
    status: row.status,
    agentId: row.agent_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function checkMetadata(metadata: Record<string, unknown> | undefined): void {
  if (metadata && new TextEncoder().encode(JSON.stringify(metadata)).length > ARTIFACT_METADATA_MAX_BYTES) {
    throw fail.validation(`metadata is over ${ARTIFACT_METADATA_MAX_BYTES / 1024} KB`, {
      fields: [{
        path: "metadata",
        message: `At most ${ARTIFACT_METADATA_MAX_BYTES / 1024} KB of JSON`,
        code: "too_big",
      }],
    });
  }
}

/** Who may attach or update artifacts (design: TKT-194): the assignee, reviewer, creator or an orchestrator. */
function assertMayEdit(ctx: ActorCtx, ticket: TicketRow): void {
  const rel = relationOf(ctx.actor, ticket);
  if (rel.orchestrator || rel.assignee || rel.reviewer || rel.creator) return;
  throw fail.forbidden(
    "Only the ticket's assignee, reviewer, creator or an orchestrator may change its artifacts",
    {
      assigneeAgentId: ticket.assignee_agent_id,
      reviewerAgentId: ticket.reviewer_agent_id,
    },
  );
}

/**
 * Records an artifact on a ticket in ONE statement: the ticket's artifact with the same type and URL
 * (unique index `ticket_artifacts_key`) is updated in place, the fields sent replacing the stored ones;
 * otherwise a new one is inserted, `closed` for a commit and `open` for anything else unless a status is
 * sent. Concurrent records of one artifact leave one row (the index, not a read-then-write). Used by
 * POST /ticket/{id}/artifacts and POST /handoff. `created` tells whether the row is new.
 */
export async function upsertArtifact(
  trx: Trx,
  input: AddArtifactInput & { ticketId: string; agentId: string; now: Date },
): Promise<{ row: Selectable<TicketArtifactsTable>; created: boolean }> {
  const stored = await trx.insertInto("ticket_artifacts").values({
    id: crypto.randomUUID(),
    ticket_id: input.ticketId,
    type: input.type,
    url: input.url,
    ref: input.ref ?? null,
    title: input.title ?? null,
    metadata: toJson(input.metadata ?? {}),
    status: input.status ?? (input.type === "commit" ? "closed" : "open"),
    agent_id: input.agentId,
    created_at: input.now,
    updated_at: input.now,
  }).onConflict((oc) =>
    oc.expression(sql`ticket_id, type, md5(url)`).doUpdateSet((eb) => ({
      ...(input.ref !== undefined ? { ref: eb.ref("excluded.ref") } : {}),
      ...(input.title !== undefined ? { title: eb.ref("excluded.title") } : {}),
      ...(input.metadata !== undefined ? { metadata: eb.ref("excluded.metadata") } : {}),
      ...(input.status !== undefined ? { status: eb.ref("excluded.status") } : {}),
      updated_at: eb.ref("excluded.updated_at"),
    })).whereRef("ticket_artifacts.url", "=", "excluded.url")
  ).returningAll().returning(sql<boolean>`xmax = 0`.as("inserted")).executeTakeFirst();
  // Only a different URL with the same md5 on this ticket and type gets here (no row inserted or updated).
  if (!stored) {
    throw fail.conflict("Another artifact of this ticket has a URL with the same hash; use a different URL", {
      type: input.type,
      url: input.url,
    });
  }
  const { inserted, ...row } = stored;
  return { row, created: inserted };
}

/**
 * POST /ticket/{ticketId}/artifacts (design: TKT-194). An artifact with the same type and URL on the
 * ticket is updated in place (sent fields replace) instead of duplicated: `created` tells which.
 */
export async function addArtifact(ctx: ActorCtx, ticketRef: string, input: AddArtifactInput) {
  checkMetadata(input.metadata);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const ticket = await ticketByPathId(trx, ctx.actor.projectId, ticketRef);
    assertMayEdit(ctx, ticket);
    const { row, created } = await upsertArtifact(trx, {
      ticketId: ticket.id,
      agentId: ctx.actor.agentId,
      now,
      ...input,
    });
    await recordEvent(trx, {
      projectId: ctx.actor.projectId,
      kind: created ? "artifact.added" : "artifact.updated",
      entityType: "artifact",
      entityId: row.id,
      agentId: ctx.actor.agentId,
      data: { ticketId: ticket.id, type: row.type, url: row.url, status: row.status },
      now,
    });
    return { artifact: toArtifact(row), created };
  });
}

/** GET /ticket/{ticketId}/artifacts: oldest first, with counts. */
export async function listArtifacts(ctx: ActorCtx, ticketRef: string) {
  return await ctx.db.transaction().execute(async (trx) => {
    const ticket = await ticketByPathId(trx, ctx.actor.projectId, ticketRef);
    const rows = await trx.selectFrom("ticket_artifacts").selectAll().where("ticket_id", "=", ticket.id)
      .orderBy("created_at").orderBy("id").execute();
    const artifacts = rows.map(toArtifact);
    return { artifacts, total: artifacts.length, open: artifacts.filter((a) => a.status === "open").length };
  });
}

/** PATCH /ticket/{ticketId}/artifacts/{artifactId}: status, ref, title (null clears), metadata (replaces). */
export async function patchArtifact(
  ctx: ActorCtx,
  ticketRef: string,
  artifactId: string,
  input: PatchArtifactInput,
) {
  checkMetadata(input.metadata);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const ticket = await ticketByPathId(trx, ctx.actor.projectId, ticketRef);
    assertMayEdit(ctx, ticket);
    const row = isUuid(artifactId)
      ? await trx.updateTable("ticket_artifacts").set({
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(input.ref !== undefined ? { ref: input.ref } : {}),
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.metadata !== undefined ? { metadata: toJson(input.metadata) } : {}),
        updated_at: now,
      }).where("id", "=", artifactId.toLowerCase()).where("ticket_id", "=", ticket.id).returningAll()
        .executeTakeFirst()
      : undefined;
    if (!row) throw fail.notFound(`Cannot find artifact "${artifactId}" on this ticket`, { artifactId });
    await recordEvent(trx, {
      projectId: ctx.actor.projectId,
      kind: "artifact.updated",
      entityType: "artifact",
      entityId: row.id,
      agentId: ctx.actor.agentId,
      data: { ticketId: ticket.id, type: row.type, status: row.status },
      now,
    });
    return toArtifact(row);
  });
}
