import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import type { LedgerType } from "@/db/tables/work.ts";
import { type AgentFixture, call, env, newProject, pairAgent } from "../helpers/mod.ts";

/** State set up directly in the database, for the parts of the loop other areas own. */

export interface TicketSpec {
  status?: string;
  assigneeAgentId?: string | null;
  subAgentName?: string | null;
  expectedFiles?: string[];
  verificationCommand?: string | null;
  riskClass?: "local" | "shared-state" | "irreversible";
  criteria?: { title: string; requiresEvidence?: boolean }[];
  humanOnly?: boolean;
  noArtifact?: boolean;
}

export async function makeTicket(
  projectId: string,
  spec: TicketSpec = {},
): Promise<{ id: string; number: number }> {
  const { db, clock } = await env();
  const now = clock.now();
  const { ticket_seq: number } = await db.updateTable("projects").set({ ticket_seq: sql`ticket_seq + 1` })
    .where("id", "=", projectId).returning("ticket_seq").executeTakeFirstOrThrow();
  const id = crypto.randomUUID();
  await db.insertInto("tickets").values({
    id,
    project_id: projectId,
    number,
    title: `Ticket ${number}`,
    description: null,
    type: null,
    tags: toJson([]),
    status: spec.status ?? "in_progress",
    expected_files: toJson(spec.expectedFiles ?? ["src/a.ts"]),
    done_definition: "The thing works and is covered by tests",
    verification_command: spec.verificationCommand === undefined
      ? "deno test tests/a"
      : spec.verificationCommand,
    risk_class: spec.riskClass ?? "shared-state",
    out_of_scope: null,
    acceptance_criteria: toJson(spec.criteria ?? [{ title: "It works" }]),
    criteria_acknowledged_at: now,
    assignee_agent_id: spec.assigneeAgentId ?? null,
    sub_agent_name: spec.subAgentName ?? null,
    reviewer_agent_id: null,
    review_history: toJson([]),
    review_handoff: null,
    parent_id: null,
    branch: null,
    sprint_id: null,
    human_only: spec.humanOnly ?? false,
    story_points: null,
    no_artifact: spec.noArtifact ?? false,
    no_artifact_reason: null,
    created_by_agent_id: null,
    idempotency_key: null,
    status_changed_at: now,
    created_at: now,
    updated_at: now,
  }).execute();
  return { id, number };
}

export async function addEntry(
  projectId: string,
  e: {
    type: LedgerType;
    content?: string;
    agentId: string;
    sessionId: string;
    ticketId?: string | null;
    fileRef?: string | null;
    subAgentName?: string | null;
  },
): Promise<void> {
  const { db, clock } = await env();
  await db.insertInto("ledger_entries").values({
    id: crypto.randomUUID(),
    project_id: projectId,
    type: e.type,
    content: e.content ?? `${e.type} entry`,
    source: "agent",
    agent_id: e.agentId,
    sub_agent_name: e.subAgentName ?? null,
    session_id: e.sessionId,
    ticket_id: e.ticketId ?? null,
    thread_id: null,
    file_ref: e.fileRef ?? null,
    line_ref: null,
    payload: null,
    created_at: clock.now(),
  }).execute();
}

export async function addClaim(
  projectId: string,
  c: {
    agentId: string;
    files: string[];
    ticketId?: string | null;
    sessionId?: string | null;
    subAgentName?: string;
  },
): Promise<string> {
  const { db, clock } = await env();
  const now = clock.now();
  const id = crypto.randomUUID();
  await db.insertInto("claims").values({
    id,
    project_id: projectId,
    agent_id: c.agentId,
    sub_agent_name: c.subAgentName ?? null,
    session_id: c.sessionId ?? null,
    ticket_id: c.ticketId ?? null,
    commit_sha: null,
    allow_sub_agents: false,
    claimed_at: now,
    expires_at: new Date(now.getTime() + 30 * 60_000),
  }).execute();
  await db.insertInto("claim_files").values(
    c.files.map((file) => ({ claim_id: id, project_id: projectId, file })),
  )
    .execute();
  return id;
}

/** Links the session to the ticket (what POST /begin does) and optionally posts the report. */
export async function linkSession(sessionId: string, ticketId: string | null, report = false): Promise<void> {
  const { db, clock } = await env();
  await db.updateTable("sessions").set({
    ticket_id: ticketId,
    ...(report ? { report: toJson({ model: "m", platform: "claude-code" }), report_at: clock.now() } : {}),
  }).where("id", "=", sessionId).execute();
}

export async function ticketRow(id: string) {
  const { db } = await env();
  return await db.selectFrom("tickets").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
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
    : await makeTicket(projectId, { assigneeAgentId: agent.agentId, ...(options.ticket ?? {}) });
  if (options.progress !== false) {
    await addEntry(projectId, {
      type: "PROGRESS",
      content: "Wrote src/a.ts",
      agentId: agent.agentId,
      sessionId: agent.sessionId,
      ticketId: ticket?.id ?? null,
    });
  }
  if (options.tested !== false && ticket) {
    await addEntry(projectId, {
      type: "TESTED",
      content: options.tested ?? "Ran deno test tests/a: 12 passed",
      agentId: agent.agentId,
      sessionId: agent.sessionId,
      ticketId: ticket.id,
    });
  }
  if (options.claim !== false) {
    await addClaim(projectId, {
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
