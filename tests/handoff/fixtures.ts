import { toJson } from "@/db/tables/types.ts";
import { type AgentFixture, call, env, newProject, pairAgent } from "../helpers/mod.ts";
import { insertClaim, insertLedgerEntry, insertTicket, type TicketSpec } from "../helpers/fixtures.ts";

/** State set up directly in the database, for the parts of the loop other areas own. */

/** A ticket in the loop unless told otherwise: in progress, agent-first fields set, criteria acknowledged. */
export const LOOP_TICKET: TicketSpec = {
  status: "in_progress",
  expectedFiles: ["src/a.ts"],
  doneDefinition: "The thing works and is covered by tests",
  verificationCommand: "deno test tests/a",
  riskClass: "shared-state",
  criteria: [{ title: "It works" }],
  acknowledged: true,
};

/** Links the session to the ticket (what POST /begin does) and optionally posts the report. */
export async function linkSession(sessionId: string, ticketId: string | null, report = false): Promise<void> {
  const { db, clock } = await env();
  await db.updateTable("sessions").set({
    ticket_id: ticketId,
    ...(report ? { report: toJson({ model: "m", platform: "claude-code" }), report_at: clock.now() } : {}),
  }).where("id", "=", sessionId).execute();
}

export async function sessionRow(id: string) {
  const { db } = await env();
  return await db.selectFrom("sessions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

export async function entriesOf(sessionId: string) {
  const { db } = await env();
  return await db.selectFrom("ledger_entries").selectAll().where("session_id", "=", sessionId)
    .orderBy("seq").execute();
}

export async function liveClaimFiles(agentId: string): Promise<string[]> {
  const { db } = await env();
  const rows = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select("f.file").where("c.agent_id", "=", agentId).where("f.released_at", "is", null).execute();
  return rows.map((r) => r.file).sort();
}

/** An API key for an existing agent (same name, so the same agent). */
export async function apiKeyFor(projectId: string, agentName: string, scopes?: string[]): Promise<string> {
  const res = await call("POST", `/admin/projects/${projectId}/api-keys`, {
    token: "test-admin-token",
    body: { agentName, ...(scopes ? { scopes } : {}) },
  });
  if (res.status !== 201) throw new Error(`api key failed: ${res.status} ${res.text}`);
  return res.body.data.key;
}

export function handoffBody(sessionId: string, extra: Record<string, unknown> = {}) {
  return { moduleName: "auth", summary: "Implemented the thing", sessionId, ...extra };
}

export interface Ready {
  projectId: string;
  prefix: string;
  agent: AgentFixture;
  ticket: { id: string; number: number } | null;
}

/**
 * A project with a paired generator that is working on an in-progress ticket assigned to it: a PROGRESS
 * entry in its session, a TESTED entry quoting the verification command, and a claim on the ticket's files.
 */
export async function ready(options: {
  reviewMode?: string;
  settings?: Record<string, unknown>;
  ticket?: TicketSpec | false;
  claim?: string[] | false;
  progress?: boolean;
  tested?: string | false;
} = {}): Promise<Ready> {
  const { projectId, prefix } = await newProject({
    ...(options.reviewMode ? { reviewMode: options.reviewMode } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
  });
  const agent = await pairAgent(projectId);
  const ticket = options.ticket === false
    ? null
    : await insertTicket(projectId, { ...LOOP_TICKET, assignee: agent.agentId, ...(options.ticket ?? {}) });
  if (options.progress !== false) {
    await insertLedgerEntry(projectId, {
      type: "PROGRESS",
      content: "Wrote src/a.ts",
      agentId: agent.agentId,
      sessionId: agent.sessionId,
      ticketId: ticket?.id ?? null,
    });
  }
  if (options.tested !== false && ticket) {
    await insertLedgerEntry(projectId, {
      type: "TESTED",
      content: options.tested ?? "Ran deno test tests/a: 12 passed",
      agentId: agent.agentId,
      sessionId: agent.sessionId,
      ticketId: ticket.id,
    });
  }
  if (options.claim !== false) {
    await insertClaim(projectId, {
      agentId: agent.agentId,
      files: options.claim ?? ["src/a.ts"],
      ticketId: ticket?.id ?? null,
      sessionId: agent.sessionId,
    });
  }
  return { projectId, prefix, agent, ticket };
}

export async function handOff(r: Ready, extra: Record<string, unknown> = {}, token = r.agent.token) {
  return await call("POST", "/handoff", {
    token,
    body: handoffBody(r.agent.sessionId, { ...(r.ticket ? { ticketId: r.ticket.id } : {}), ...extra }),
  });
}
