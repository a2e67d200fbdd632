import type { LedgerType } from "@/db/tables/work.ts";
import { type AgentFixture, call, env, newProject, pairAgent } from "../helpers/mod.ts";
import {
  type InsertedTicket,
  insertLedgerEntry,
  insertTicket,
  type TicketSpec,
} from "../helpers/fixtures.ts";

export interface Board {
  projectId: string;
  prefix: string;
  /** Generator that owns the tickets made with `ticket()` unless told otherwise. */
  dev: AgentFixture;
  other: AgentFixture;
  evaluator: AgentFixture;
  orchestrator: AgentFixture;
}

/** A project with a generator, a second generator, an evaluator and an orchestrator. */
export async function board(
  options: { reviewMode?: string; settings?: Record<string, unknown>; plan?: string } = {},
): Promise<Board> {
  const { projectId, prefix } = await newProject({ plan: options.plan ?? "enterprise", ...options });
  const [dev, other, evaluator, orchestrator] = await Promise.all([
    pairAgent(projectId),
    pairAgent(projectId),
    pairAgent(projectId, { role: "evaluator" }),
    pairAgent(projectId, { role: "orchestrator" }),
  ]);
  return { projectId, prefix, dev: dev!, other: other!, evaluator: evaluator!, orchestrator: orchestrator! };
}

export interface TicketOptions extends TicketSpec {
  /** Also log a TESTED entry on it (`logTested`). */
  tested?: boolean;
}

/** What a ticket on this board looks like unless told otherwise: agent-first fields set, criteria acknowledged. */
const BOARD_TICKET: TicketSpec = {
  description: "Original description",
  type: "feature",
  expectedFiles: ["src/a.ts"],
  doneDefinition: "The feature works and its tests pass",
  verificationCommand: "deno task test",
  riskClass: "local",
  criteria: [{ title: "It works" }],
  acknowledged: true,
};

/** Inserts a ticket (the create endpoint is another area's), created by `dev` unless told otherwise. */
export async function ticket(
  b: Board,
  { tested, ...spec }: TicketOptions = {},
): Promise<InsertedTicket> {
  const t = await insertTicket(b.projectId, { ...BOARD_TICKET, createdBy: b.dev.agentId, ...spec });
  if (tested) await logTested(b, t.id);
  return t;
}

/** A ledger entry by `dev` on the ticket quoting its verification command. */
export async function logTested(b: Board, ticketId: string, type: LedgerType = "TESTED"): Promise<void> {
  await insertLedgerEntry(b.projectId, {
    type,
    content: "deno task test: 12 passed",
    agentId: b.dev.agentId,
    ticketId,
  });
}

export const HANDOFF = { summary: "Implemented the feature", changedFiles: ["src/a.ts"], branch: "feat/a" };

export function patch(token: string, body: Record<string, unknown>) {
  return call("PATCH", "/ticket", { token, body });
}

export async function liveFiles(b: Board, agentId?: string): Promise<string[]> {
  const { db } = await env();
  let q = db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id").select("f.file")
    .where("f.project_id", "=", b.projectId).where("f.released_at", "is", null);
  if (agentId) q = q.where("c.agent_id", "=", agentId);
  return (await q.orderBy("f.file").execute()).map((r) => r.file);
}
