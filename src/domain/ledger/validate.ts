import { DecisionPayload, type LedgerEntryInput, ProgressPayload } from "@/contracts/ledger.ts";
import type { DbOrTrx } from "@/db/database.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { DomainError, fail, recovery } from "@/domain/core/errors.ts";
import { findTicketId, resolveRefRecovery } from "@/domain/core/ticket-refs.ts";
import { LEDGER_LABELS, unknownLabels } from "./labels.ts";
import { fieldErrors } from "@/shared/field-errors.ts";

const MAX_CONTENT = 2000;

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

/** Who may write which type: some types are the service's only, lifecycle ones also orchestrators'. */
export function checkEntryType(actor: Pick<Actor, "role">, type: LedgerEntryInput["type"]): void {
  if (SERVICE_ONLY.has(type)) {
    throw new DomainError("unprocessable", "INVALID", `${type} entries are written by the service only`, {
      field: "type",
    });
  }
  if (ORCHESTRATOR_LIFECYCLE.has(type) && actor.role !== "orchestrator") {
    throw new DomainError(
      "unprocessable",
      "INVALID",
      `${type} entries are written by the service, or by orchestrators for their sub-agents`,
      { field: "type", actualRole: actor.role },
    );
  }
}

/**
 * The stored content and payload: a PROGRESS payload `{ did, next, blockers? }` also writes the content;
 * a DECISION needs `payload.rationale`. Other types store what was sent.
 */
export function entryBody(
  input: Pick<LedgerEntryInput, "type" | "content" | "payload">,
): Pick<PreparedEntry, "content" | "payload"> {
  if (input.type === "PROGRESS" && input.payload !== undefined) {
    const parsed = ProgressPayload.safeParse(input.payload);
    if (!parsed.success) {
      throw fail.validation("A PROGRESS payload is { did, next, blockers? }", {
        fields: fieldErrors(parsed.error, "payload"),
      });
    }
    const { did, next } = parsed.data;
    const blockers = parsed.data.blockers ?? [];
    const content = truncate(
      `Did: ${did}\nNext: ${next}` + (blockers.length > 0 ? `\nBlockers: ${blockers.join("; ")}` : ""),
    );
    return { content, payload: { did, next, blockers } };
  }
  const content = input.content ?? "";
  if (input.type === "DECISION") {
    const parsed = DecisionPayload.safeParse(input.payload ?? {});
    if (!parsed.success) {
      throw fail.unprocessable("A DECISION needs payload.rationale (1 to 2000 characters)", {
        fields: fieldErrors(parsed.error, "payload"),
        payloadHint: { rationale: "<why this option>", alternatives: ["<option considered>"] },
      });
    }
    return {
      content,
      payload: { rationale: parsed.data.rationale, alternatives: parsed.data.alternatives ?? [] },
    };
  }
  return { content, payload: input.payload ?? null };
}

/** The labels without duplicates; an unknown one refuses the entry. */
export function entryLabels(labels: string[] | undefined): string[] {
  const unique = [...new Set(labels ?? [])];
  const unknown = unknownLabels(unique);
  if (unknown.length > 0) {
    throw new DomainError("unprocessable", "INVALID", `Unknown ledger label(s): ${unknown.join(", ")}`, {
      field: "labels",
      unknownLabels: unknown,
      validLabels: [...LEDGER_LABELS],
    });
  }
  return unique;
}

/** Applies the payload, type, label, session, ticket and thread rules; throws the spec's refusals. */
export async function prepareEntry(
  db: DbOrTrx,
  actor: Actor,
  input: LedgerEntryInput,
): Promise<PreparedEntry> {
  checkEntryType(actor, input.type);
  const { content, payload } = entryBody(input);
  const labels = entryLabels(input.labels);
  const sessionId = await resolveSession(db, actor, input.sessionId);
  const ticketId = input.ticketId === undefined ? null : await resolveTicket(db, actor, input.ticketId);
  const threadId = input.threadId === undefined ? null : await resolveThread(db, actor, input.threadId);
  return { type: input.type, content, payload, sessionId, ticketId, threadId, labels };
}

/** The entry's ticket by UUID or key; one that does not resolve is a 422 on `ticketId`. */
async function resolveTicket(db: DbOrTrx, actor: Actor, ref: string): Promise<string> {
  const ticketId = await findTicketId(db, actor.projectId, ref);
  if (!ticketId) {
    throw fail.unprocessable(`Cannot find ticket "${ref}" in this project`, {
      ref,
      fields: [{ path: "ticketId", message: "does not resolve", code: "custom" }],
      recovery: resolveRefRecovery(ref),
    });
  }
  return ticketId;
}

/** The entry's thread, in the caller's project; an unknown one is a 422 on `threadId`. */
async function resolveThread(db: DbOrTrx, actor: Actor, ref: string): Promise<string> {
  const thread = await db.selectFrom("threads").select("id").where("id", "=", ref.toLowerCase())
    .where("project_id", "=", actor.projectId).executeTakeFirst();
  if (!thread) {
    throw fail.unprocessable(`No thread ${ref} in this project`, {
      fields: [{ path: "threadId", message: "unknown thread", code: "custom" }],
    });
  }
  return thread.id;
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
