import type { Trx } from "@/db/database.ts";
import { recordEvent } from "@/domain/events/record.ts";
import { writeSystemEntry } from "@/domain/ledger/system-entry.ts";

export interface ReleaseInput {
  projectId: string;
  agentId: string;
  /** The holding identity; omitted or null means the agent itself, not its sub-agents. */
  subAgentName?: string | null;
  /** Frees every claim that includes any of these files (whole claims). */
  files?: string[];
  /** Frees every claim of the identity (or of the ticket, with `ticketId`). */
  all?: boolean;
  /** Restricts to claims linked to this ticket (resolved id). */
  ticketId?: string;
  /** Frees matching claims of any holder (ticket approval); ignores `agentId`/`subAgentName`. */
  anyHolder?: boolean;
  sessionId?: string | null;
  now: Date;
}

/**
 * Releases whole claims inside the caller's transaction and returns the files that were actively
 * held (sorted, no duplicates). Expired claims that match are released too but not reported.
 * Nothing matches when neither `files`, `all` nor `ticketId` is given.
 */
export async function releaseClaims(trx: Trx, input: ReleaseInput): Promise<string[]> {
  const { projectId, now } = input;
  if (!input.all && !input.files && !input.ticketId) return [];
  if (input.files && input.files.length === 0) return [];
  let query = trx.updateTable("claims")
    .set({ released_at: now })
    .where("project_id", "=", projectId)
    .where("released_at", "is", null);
  if (!input.anyHolder) {
    query = query.where("agent_id", "=", input.agentId)
      .where("sub_agent_name", "is not distinct from", input.subAgentName ?? null);
  }
  if (input.ticketId) query = query.where("ticket_id", "=", input.ticketId);
  if (input.files && !input.all) {
    const files = input.files;
    query = query.where(
      "id",
      "in",
      (eb) =>
        eb.selectFrom("claim_files").select("claim_id").where("project_id", "=", projectId)
          .where("file", "in", files).where("released_at", "is", null),
    );
  }
  const claims = await query.returning(["id", "expires_at", "agent_id", "sub_agent_name", "ticket_id"])
    .execute();
  if (claims.length === 0) return [];
  const rows = await trx.updateTable("claim_files").set({ released_at: now })
    .where("claim_id", "in", claims.map((c) => c.id)).where("released_at", "is", null)
    .returning(["claim_id", "file"]).execute();
  const active = new Set(claims.filter((c) => c.expires_at > now).map((c) => c.id));
  const released = [...new Set(rows.filter((r) => active.has(r.claim_id)).map((r) => r.file))].sort();
  if (released.length === 0) return [];

  const holder = claims[0]!;
  await writeSystemEntry(trx, {
    projectId,
    type: "CONTEXT",
    content: `Released ${
      released.length > 5
        ? `${released.slice(0, 5).join(", ")} and ${released.length - 5} more`
        : released.join(", ")
    }`,
    agentId: input.anyHolder ? holder.agent_id : input.agentId,
    subAgentName: input.anyHolder ? holder.sub_agent_name : input.subAgentName ?? null,
    sessionId: input.sessionId ?? null,
    ticketId: input.ticketId ?? holder.ticket_id,
    fileRef: released.length === 1 ? released[0] : null,
    payload: { action: "release", files: released },
    now,
  });
  await recordEvent(trx, {
    projectId,
    kind: "claim.released",
    entityType: "claim",
    entityId: holder.id,
    agentId: input.anyHolder ? holder.agent_id : input.agentId,
    data: { files: released, claimIds: claims.map((c) => c.id), ticketId: input.ticketId ?? null },
    now,
  });
  return released;
}
