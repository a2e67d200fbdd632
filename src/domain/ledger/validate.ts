import { z } from "zod";
import type { LedgerEntryInput } from "@/contracts/ledger.ts";
import type { DbOrTrx } from "@/db/database.ts";
import type { Actor } from "@/domain/shared/actor.ts";
import { DomainError, fail, recovery } from "@/domain/shared/errors.ts";
import { findTicketId, resolveRefRecovery } from "@/domain/tickets/refs.ts";
import { LEDGER_LABELS, unknownLabels } from "./labels.ts";
import { fieldErrors } from "@/shared/field-errors.ts";

const MAX_CONTENT = 2000;

const ProgressPayload = z.object({
  did: z.string().min(1).max(1000),
  next: z.string().min(1).max(1000),
  blockers: z.array(z.string().min(1).max(500)).max(10).optional(),
});

const DecisionPayload = z.object({
  rationale: z.string().min(1).max(2000),
  alternatives: z.array(z.string().min(1).max(500)).max(10).optional(),
});

const SERVICE_ONLY = new Set(["AGENT_JOINED"]);
const ORCHESTRATOR_LIFECYCLE = new Set(["AGENT_SPAWNED", "AGENT_ASSIGNED", "AGENT_COMPLETED"]);

/** The entry as it will be stored, after the rules of POST /ledger. */
export interface PreparedEntry {
  type: LedgerEntryInput["type"];
  content: string;
  payload: Record<string, unknown> | null;
  sessionId: string | null;
  ticketId: string | null;
  threadId: string | null;
  labels: string[];
}

function truncate(text: string): string {
  return text.length <= MAX_CONTENT ? text : `${text.slice(0, MAX_CONTENT - 1)}…`;
}

/** Applies the payload, type, label, session, ticket and thread rules; throws the spec's refusals. */
export async function prepareEntry(
  db: DbOrTrx,
  actor: Actor,
  input: LedgerEntryInput,
): Promise<PreparedEntry> {
  if (SERVICE_ONLY.has(input.type)) {
    throw new DomainError(422, "INVALID", `${input.type} entries are written by the service only`, {
      field: "type",
    });
  }
  if (ORCHESTRATOR_LIFECYCLE.has(input.type) && actor.role !== "orchestrator") {
    throw new DomainError(
      422,
      "INVALID",
      `${input.type} entries are written by the service, or by orchestrators for their sub-agents`,
      { field: "type", actualRole: actor.role },
    );
  }

  let content = input.content ?? "";
  let payload: Record<string, unknown> | null = input.payload ?? null;
  if (input.type === "PROGRESS" && input.payload !== undefined) {
    const parsed = ProgressPayload.safeParse(input.payload);
    if (!parsed.success) {
      throw fail.validation("A PROGRESS payload is { did, next, blockers? }", {
        fields: fieldErrors(parsed.error, "payload"),
      });
    }
    const blockers = parsed.data.blockers ?? [];
    payload = { did: parsed.data.did, next: parsed.data.next, blockers };
    content = truncate(
      `Did: ${parsed.data.did}\nNext: ${parsed.data.next}` +
        (blockers.length > 0 ? `\nBlockers: ${blockers.join("; ")}` : ""),
    );
  }
  if (input.type === "DECISION") {
    const parsed = DecisionPayload.safeParse(input.payload ?? {});
    if (!parsed.success) {
      throw fail.unprocessable("A DECISION needs payload.rationale (1 to 2000 characters)", {
        fields: fieldErrors(parsed.error, "payload"),
        payloadHint: { rationale: "<why this option>", alternatives: ["<option considered>"] },
      });
    }
    payload = { rationale: parsed.data.rationale, alternatives: parsed.data.alternatives ?? [] };
  }

  const labels = [...new Set(input.labels ?? [])];
  const unknown = unknownLabels(labels);
  if (unknown.length > 0) {
    throw new DomainError(422, "INVALID", `Unknown ledger label(s): ${unknown.join(", ")}`, {
      field: "labels",
      unknownLabels: unknown,
      validLabels: [...LEDGER_LABELS],
    });
  }

  const sessionId = await resolveSession(db, actor, input.sessionId);

  let ticketId: string | null = null;
  if (input.ticketId !== undefined) {
    ticketId = await findTicketId(db, actor.projectId, input.ticketId);
    if (!ticketId) {
      throw fail.unprocessable(`Cannot find ticket "${input.ticketId}" in this project`, {
        ref: input.ticketId,
        fields: [{ path: "ticketId", message: "does not resolve", code: "custom" }],
        recovery: resolveRefRecovery(input.ticketId),
      });
    }
  }

  let threadId: string | null = null;
  if (input.threadId !== undefined) {
    const thread = await db.selectFrom("threads").select("id").where("id", "=", input.threadId.toLowerCase())
      .where("project_id", "=", actor.projectId).executeTakeFirst();
    if (!thread) {
      throw fail.unprocessable(`No thread ${input.threadId} in this project`, {
        fields: [{ path: "threadId", message: "unknown thread", code: "custom" }],
      });
    }
    threadId = thread.id;
  }

  return { type: input.type, content, payload, sessionId, ticketId, threadId, labels };
}

/**
 * sessionId: defaults to the token's session; required with OAuth tokens (400 PROVIDE_SESSION_ID);
 * (design) a session that is not the caller's own (another agent or sub-agent, another project,
 * unknown) answers 403 FORBIDDEN without saying which.
 */
async function resolveSession(
  db: DbOrTrx,
  actor: Actor,
  sessionId: string | undefined,
): Promise<string | null> {
  if (sessionId === undefined) {
    if (actor.kind === "oauth") {
      throw fail.validation("sessionId is required with an OAuth token", {
        fields: [{ path: "sessionId", message: "Required", code: "invalid_type" }],
        recovery: recovery(
          "PROVIDE_SESSION_ID",
          "POST /ledger",
          "Send the sessionId of your session (GET /me shows it)",
          { sessionId: "<your session id>" },
        ),
      });
    }
    return actor.sessionId;
  }
  const id = sessionId.toLowerCase();
  if (id === actor.sessionId) return id;
  const row = await db.selectFrom("sessions").select(["agent_id", "sub_agent_name"]).where("id", "=", id)
    .where("project_id", "=", actor.projectId).executeTakeFirst();
  if (!row || row.agent_id !== actor.agentId || (row.sub_agent_name ?? null) !== actor.subAgentName) {
    throw fail.forbidden("sessionId is not one of your sessions", {
      field: "sessionId",
      recovery: recovery(
        "PROVIDE_SESSION_ID",
        "POST /ledger",
        "Use your own session id (GET /me), or omit sessionId to use your token's session",
        { sessionId: "<your session id>" },
      ),
    });
  }
  return id;
}
