import type { Trx } from "@/db/database.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import type { SprintRow } from "./common.ts";

export interface DoneTicket {
  id: string;
  number: number;
  title: string;
  type: string | null;
  storyPoints: number | null;
  assigneeAgentName: string | null;
}

export interface CarriedTicket {
  id: string;
  number: number;
  title: string;
  status: string;
}

/**
 * Release notes of a completed sprint (SPRINT-013): the done tickets (by number) with who did them,
 * the non-done tickets that left the sprint, counts, and the same content as Markdown.
 */
export function buildReleaseNotes(
  sprint: Pick<SprintRow, "id" | "number" | "name" | "goal">,
  prefix: string,
  done: DoneTicket[],
  carried: CarriedTicket[],
  completedAt: Date,
) {
  const items = done.map((t) => ({
    ticketId: t.id,
    ticketRef: `${prefix}-${t.number}`,
    title: t.title,
    type: t.type,
    assigneeAgentName: t.assigneeAgentName,
    storyPoints: t.storyPoints,
  }));
  const carriedOver = carried.map((t) => ({
    ticketId: t.id,
    ticketRef: `${prefix}-${t.number}`,
    title: t.title,
    status: t.status,
  }));
  const title = `Sprint ${sprint.number}: ${sprint.name}`;
  const lines = [`# ${title}`];
  if (sprint.goal) lines.push("", `Goal: ${sprint.goal}`);
  lines.push("", `## Done (${items.length})`);
  if (items.length === 0) lines.push("- Nothing was completed.");
  for (const i of items) {
    lines.push(`- ${i.ticketRef} ${i.title}${i.assigneeAgentName ? ` (${i.assigneeAgentName})` : ""}`);
  }
  if (carriedOver.length > 0) {
    lines.push("", `## Carried over (${carriedOver.length})`);
    for (const c of carriedOver) lines.push(`- ${c.ticketRef} ${c.title} [${c.status}]`);
  }
  return {
    title,
    sprint: { id: sprint.id, number: sprint.number, name: sprint.name, goal: sprint.goal },
    completedAt: completedAt.toISOString(),
    summary: {
      done: items.length,
      carriedOver: carriedOver.length,
      storyPointsDone: items.reduce((sum, i) => sum + (i.storyPoints ?? 0), 0),
    },
    items,
    carriedOver,
    markdown: lines.join("\n"),
  };
}

export type ReleaseNotes = ReturnType<typeof buildReleaseNotes>;

/**
 * Publishing (SPRINT-012, SPRINT-013): a sprint that completes with at least one done ticket publishes
 * release `sprint-<number>` to the project's own channels: a system `STATUS` ledger entry carrying the
 * notes, and a `sprint.released` event on GET /events. With no done ticket nothing is published
 * (`reason: no_done_tickets`). The service has no outbound release integration.
 */
export async function publishRelease(
  trx: Trx,
  input: { projectId: string; agentId: string; sprint: SprintRow; notes: ReleaseNotes; now: Date },
) {
  const version = `sprint-${input.sprint.number}`;
  if (input.notes.summary.done === 0) {
    return {
      published: false,
      reason: "no_done_tickets",
      channel: null,
      ledgerEntryId: null,
      eventKind: null,
      version: null,
    };
  }
  const ledgerEntryId = await writeSystemEntry(trx, {
    projectId: input.projectId,
    type: "STATUS",
    content: `Released ${version}: ${input.notes.title} (${input.notes.summary.done} done, ` +
      `${input.notes.summary.carriedOver} carried over)`,
    agentId: input.agentId,
    payload: { event: "sprint.released", version, releaseNotes: input.notes },
    now: input.now,
  });
  await recordEvent(trx, {
    projectId: input.projectId,
    kind: "sprint.released",
    entityType: "sprint",
    entityId: input.sprint.id,
    agentId: input.agentId,
    data: { version, done: input.notes.summary.done, ledgerEntryId },
    now: input.now,
  });
  return {
    published: true,
    reason: null,
    channel: "ledger" as const,
    ledgerEntryId,
    eventKind: "sprint.released" as const,
    version,
  };
}
