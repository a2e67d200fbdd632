import { sql } from "kysely";
import type { AcceptanceCriterion, LedgerType } from "@/db/tables/work.ts";
import { toJson } from "@/db/tables/types.ts";
import { env } from "./mod.ts";

/**
 * Rows written straight to the database, for state whose write endpoints belong to another area than the
 * one under test. Times come from the service clock.
 */

export interface TicketSpec {
  /** Default: backlog. */
  status?: string;
  /** Default: `Ticket <number>`. */
  title?: string;
  description?: string | null;
  type?: string | null;
  /** Agent id, or null for unassigned. Default: unassigned. */
  assignee?: string | null;
  reviewer?: string | null;
  createdBy?: string | null;
  subAgentName?: string | null;
  sprintId?: string | null;
  /** Default: none (a bare ticket); the agent-first fields below are null unless given. */
  expectedFiles?: string[];
  doneDefinition?: string | null;
  verificationCommand?: string | null;
  riskClass?: "local" | "shared-state" | "irreversible" | null;
  criteria?: Record<string, unknown>[];
  /** Criteria acknowledged now. Default: false. */
  acknowledged?: boolean;
  humanOnly?: boolean;
  noArtifact?: boolean;
  reviewHandoff?: Record<string, unknown> | null;
  branch?: string | null;
  /** Default: the service clock's now. */
  statusChangedAt?: Date;
}

export interface InsertedTicket {
  id: string;
  number: number;
  /** `PREFIX-n`. */
  ref: string;
  /** Same as `ref`. */
  key: string;
}

/** Inserts a ticket row (numbered from the project's ticket sequence, like POST /ticket). */
export async function insertTicket(projectId: string, spec: TicketSpec = {}): Promise<InsertedTicket> {
  const { db, clock } = await env();
  const now = clock.now();
  const project = await db.updateTable("projects").set({ ticket_seq: sql`ticket_seq + 1` })
    .where("id", "=", projectId).returning(["ticket_seq", "ticket_prefix"]).executeTakeFirstOrThrow();
  const number = Number(project.ticket_seq);
  const id = crypto.randomUUID();
  await db.insertInto("tickets").values({
    id,
    project_id: projectId,
    number,
    title: spec.title ?? `Ticket ${number}`,
    description: spec.description ?? null,
    type: spec.type ?? null,
    status: spec.status ?? "backlog",
    expected_files: toJson(spec.expectedFiles ?? []),
    done_definition: spec.doneDefinition ?? null,
    verification_command: spec.verificationCommand ?? null,
    risk_class: spec.riskClass ?? null,
    out_of_scope: null,
    acceptance_criteria: toJson((spec.criteria ?? []) as AcceptanceCriterion[]),
    criteria_acknowledged_at: spec.acknowledged ? now : null,
    assignee_agent_id: spec.assignee ?? null,
    sub_agent_name: spec.subAgentName ?? null,
    reviewer_agent_id: spec.reviewer ?? null,
    review_handoff: spec.reviewHandoff ? toJson(spec.reviewHandoff) : null,
    parent_id: null,
    branch: spec.branch ?? null,
    sprint_id: spec.sprintId ?? null,
    human_only: spec.humanOnly ?? false,
    story_points: null,
    no_artifact: spec.noArtifact ?? false,
    no_artifact_reason: null,
    created_by_agent_id: spec.createdBy ?? null,
    idempotency_key: null,
    status_changed_at: spec.statusChangedAt ?? now,
    created_at: now,
    updated_at: now,
  }).execute();
  const ref = `${project.ticket_prefix}-${number}`;
  return { id, number, ref, key: ref };
}

/** The ticket's row as stored. Loosely typed on purpose: tests assert on it. */
// deno-lint-ignore no-explicit-any
export async function ticketRow(id: string): Promise<any> {
  const { db } = await env();
  return await db.selectFrom("tickets").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

export interface LedgerEntrySpec {
  type: LedgerType;
  /** Default: `<type> entry`. */
  content?: string;
  source?: "agent" | "system";
  audit?: boolean;
  agentId?: string | null;
  sessionId?: string | null;
  ticketId?: string | null;
  fileRef?: string | null;
  subAgentName?: string | null;
  envHealth?: Record<string, unknown> | null;
  /** Default: the service clock's now. */
  createdAt?: Date;
}

/** Inserts a ledger entry (default source: agent); returns its id. */
export async function insertLedgerEntry(projectId: string, e: LedgerEntrySpec): Promise<string> {
  const { db, clock } = await env();
  const id = crypto.randomUUID();
  await db.insertInto("ledger_entries").values({
    id,
    project_id: projectId,
    type: e.type,
    content: e.content ?? `${e.type} entry`,
    source: e.source ?? "agent",
    audit: e.audit ?? false,
    agent_id: e.agentId ?? null,
    sub_agent_name: e.subAgentName ?? null,
    session_id: e.sessionId ?? null,
    ticket_id: e.ticketId ?? null,
    file_ref: e.fileRef ?? null,
    env_health: e.envHealth ? toJson(e.envHealth) : null,
    created_at: e.createdAt ?? clock.now(),
  }).execute();
  return id;
}

export interface ClaimSpec {
  agentId: string;
  files: string[];
  ticketId?: string | null;
  sessionId?: string | null;
  subAgentName?: string | null;
  /** How long from now the claim runs. Default: 30 minutes. */
  ttlMs?: number;
  /** Default: the service clock's now. */
  claimedAt?: Date;
  /** Overrides `ttlMs`. */
  expiresAt?: Date;
  /** Already released (claim and files). Default: live. */
  released?: boolean;
}

/** Inserts a claim on `files` (one claim_files row each); returns the claim id. */
export async function insertClaim(projectId: string, c: ClaimSpec): Promise<string> {
  const { db, clock } = await env();
  const now = clock.now();
  const id = crypto.randomUUID();
  const releasedAt = c.released ? now : null;
  await db.insertInto("claims").values({
    id,
    project_id: projectId,
    agent_id: c.agentId,
    sub_agent_name: c.subAgentName ?? null,
    session_id: c.sessionId ?? null,
    ticket_id: c.ticketId ?? null,
    commit_sha: null,
    claimed_at: c.claimedAt ?? now,
    expires_at: c.expiresAt ?? new Date(now.getTime() + (c.ttlMs ?? 30 * 60_000)),
    released_at: releasedAt,
  }).execute();
  if (c.files.length > 0) {
    await db.insertInto("claim_files").values(
      c.files.map((file) => ({ claim_id: id, project_id: projectId, file, released_at: releasedAt })),
    ).execute();
  }
  return id;
}

/**
 * Registers a sub-agent of `parentAgentId` (a no-op when it exists); act as it with the
 * `X-Svc-SubAgent` header.
 */
export async function insertSubAgent(
  projectId: string,
  parentAgentId: string,
  name: string,
  role: "generator" | "evaluator" | "observer" = "generator",
): Promise<void> {
  const { db, clock } = await env();
  await db.insertInto("sub_agents").values({
    id: crypto.randomUUID(),
    project_id: projectId,
    parent_agent_id: parentAgentId,
    name,
    role,
    created_at: clock.now(),
  }).onConflict((oc) => oc.columns(["parent_agent_id", "name"]).doNothing()).execute();
}

/** Inserts a planning sprint; returns its id. */
export async function insertSprint(
  projectId: string,
  spec: { number?: number; name?: string } = {},
): Promise<string> {
  const { db, clock } = await env();
  const id = crypto.randomUUID();
  const now = clock.now();
  const number = spec.number ?? 1;
  await db.insertInto("sprints").values({
    id,
    project_id: projectId,
    number,
    name: spec.name ?? `S${number}`,
    goal: null,
    start_date: null,
    end_date: null,
    capacity_points: null,
    created_at: now,
    updated_at: now,
  }).execute();
  return id;
}

/**
 * Gives the project a brief (version 1), so its first ticket can be created. With `version`, the brief is
 * stored as that version like a brief update: `brief_updated_at` is set and the version is kept in
 * `brief_versions`.
 */
export async function setBrief(
  projectId: string,
  content: Record<string, unknown> = { scope: "Test project" },
  version?: number,
): Promise<void> {
  const { db, clock } = await env();
  if (version === undefined) {
    await db.updateTable("projects").set({ brief: toJson(content), brief_version: 1 })
      .where("id", "=", projectId).execute();
    return;
  }
  const now = clock.now();
  await db.updateTable("projects").set({
    brief: toJson(content),
    brief_version: version,
    brief_updated_at: now,
  })
    .where("id", "=", projectId).execute();
  await db.insertInto("brief_versions").values({
    project_id: projectId,
    version,
    content: toJson(content),
    agent_id: null,
    created_at: now,
  }).onConflict((oc) => oc.columns(["project_id", "version"]).doNothing()).execute();
}
