// deno-lint-ignore-file no-explicit-any
import { sql } from "kysely";
import { insertTicket } from "../helpers/fixtures.ts";
import {
  admin,
  type AgentFixture,
  type ApiResponse,
  call,
  env,
  newProject,
  pairAgent,
} from "../helpers/mod.ts";

/**
 * Two tenants for the tenancy fuzz: project A (organization A) with a canary string planted in every kind of
 * record through the real API, and project B (organization B) whose agents probe A's identifiers.
 */

async function must(res: Promise<ApiResponse>, what: string, status?: number): Promise<any> {
  const r = await res;
  if (status !== undefined ? r.status !== status : r.status >= 300) {
    throw new Error(`${what}: ${r.status} ${r.text}`);
  }
  return r.body?.data;
}

export interface ProjectA {
  projectId: string;
  orgId: string;
  prefix: string;
  /** The secret string: it appears in A's records and must never appear in an answer to B. */
  canary: string;
  /** A's identifiers (UUIDs, keys, cursors); none may appear in an answer to B unless B sent it. */
  ids: {
    ticketId: string;
    ticketKey: string;
    reviewTicketId: string;
    reviewTicketKey: string;
    sprintId: string;
    threadId: string;
    sessionId: string;
    subSessionId: string;
    agentId: string;
    orchestratorId: string;
    artifactId: string;
    qaRunId: string;
    ticketIdempotencyKey: string;
    assignIdempotencyKey: string;
  };
  names: { agent: string; orchestrator: string; subAgent: string; mentioned: string };
  /** Canary file paths, claimed live in A. */
  files: string[];
  cursors: { events: string; ledger: string; threads: string; board: string; brief: string; reviews: string };
  /** A's generator still holding the claims (its token stays valid). */
  holder: AgentFixture;
}

/** Project A: every kind of record carries the canary; tickets, claims and sessions are left live. */
export async function plantProjectA(): Promise<ProjectA> {
  const canary = `CANARY-${crypto.randomUUID()}`;
  const { projectId, orgId, prefix } = await newProject({ plan: "enterprise", reviewMode: "medium" });
  const tag = canary.slice(0, 40).toLowerCase();
  const agentName = `${canary.slice(0, 20)}-gen`;
  const [dev, dev2, holder, orch, mentioned] = await Promise.all([
    pairAgent(projectId, { name: agentName }),
    pairAgent(projectId, { name: `${canary.slice(0, 20)}-dev2` }),
    pairAgent(projectId, { name: `${canary.slice(0, 20)}-holder` }),
    pairAgent(projectId, { role: "orchestrator", name: `${canary.slice(0, 20)}-orch` }),
    pairAgent(projectId, { role: "evaluator", name: `Mention${canary.slice(7, 15)}` }),
  ]);
  const files = [`src/${canary}/app.ts`, `docs/${canary}.md`, `${canary}/held.ts`];

  // Brief: every field.
  await must(
    call("PATCH", "/brief", {
      token: dev!.token,
      body: {
        scope: `Scope ${canary}`,
        goals: [`Goal ${canary}`],
        stack: [`Stack ${canary}`],
        constraints: `Constraint ${canary}`,
        context: `Context ${canary}`,
        custom: { note: `Custom ${canary}`, long: Array.from({ length: 40 }, (_, i) => `${i} ${canary}`) },
      },
    }),
    "brief",
  );

  // Sprint (name, goal), active.
  const sprint = await must(
    call("POST", "/sprint", {
      token: dev!.token,
      body: { name: `Sprint ${canary}`, goal: `Goal ${canary}` },
    }),
    "sprint",
    201,
  );
  await must(
    call("PATCH", `/sprint/${sprint.id}`, { token: dev!.token, body: { status: "active" } }),
    "activate",
  );

  const ticketBody = (n: number, idempotencyKey?: string) => ({
    title: `Ticket ${n} ${canary}`,
    type: "feature",
    description: `Description ${canary}`,
    expectedFiles: [files[0], files[1]],
    doneDefinition: `Done when ${canary} works end to end`,
    verificationCommand: `deno test ${canary}`,
    riskClass: "local",
    outOfScope: `Out of scope ${canary}`,
    acceptanceCriteria: [
      { title: `Criterion ${canary}`, requiresEvidence: true },
      { text: `Second criterion ${canary}` },
    ],
    branch: `feat/${canary}-${n}`,
    tags: [tag, `t${n}`],
    priority: "high",
    sprintId: sprint.id,
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });
  const ticketIdempotencyKey = `idem-${crypto.randomUUID()}`;
  const reviewTicket = await must(
    call("POST", "/ticket", { token: dev!.token, body: ticketBody(1, ticketIdempotencyKey) }),
    "ticket 1",
    201,
  );
  const ticket = await must(
    call("POST", "/ticket", { token: dev!.token, body: ticketBody(2) }),
    "ticket 2",
    201,
  );
  const assignIdempotencyKey = `assign-${crypto.randomUUID()}`;
  await must(
    call("POST", "/sprint/assign", {
      token: dev!.token,
      body: { ticketId: ticket.id, sprintId: sprint.id, idempotencyKey: assignIdempotencyKey },
    }),
    "assign",
  );

  // Ticket 1 through the loop to review (QA run, artifact, handoff), by `dev`.
  await must(
    call("POST", "/begin", {
      token: dev!.token,
      body: { ticketId: reviewTicket.id, files: [files[1]], acknowledgeCriteria: true },
    }),
    "begin 1",
  );
  await must(
    call("PATCH", `/session/${dev!.sessionId}`, {
      token: dev!.token,
      body: { plan: [{ content: `Plan ${canary}`, status: "in_progress" }] },
    }),
    "plan",
  );
  await must(
    call("POST", `/session/${dev!.sessionId}/activity`, {
      token: dev!.token,
      body: {
        type: "action",
        body: `Activity ${canary}`,
        action: `act-${canary}`,
        parameter: `param ${canary}`,
        result: `Result ${canary}`,
      },
    }),
    "activity",
    201,
  );
  await must(
    call("POST", `/session/${dev!.sessionId}/report`, {
      token: dev!.token,
      body: {
        model: `model-${canary}`.slice(0, 100),
        platform: "claude-code",
        git_branch: `feat/${canary}`,
        working_dir: `/work/${canary}`,
        uncommitted_files: [files[1]],
      },
    }),
    "report",
  );
  for (const type of ["PROGRESS", "FOUND", "DECISION", "TESTED"]) {
    await must(
      call("POST", "/ledger", {
        token: dev!.token,
        body: {
          type,
          content: `${type} ${canary} deno test ${canary} passed`,
          sessionId: dev!.sessionId,
          ticketId: reviewTicket.id,
          fileRef: files[1],
          labels: ["security"],
          ...(type === "DECISION"
            ? { payload: { rationale: `Because ${canary}`, alternatives: [`Alt ${canary}`] } }
            : {}),
        },
      }),
      `ledger ${type}`,
      201,
    );
  }
  const artifact = await must(
    call("POST", `/ticket/${reviewTicket.id}/artifacts`, {
      token: dev!.token,
      body: {
        type: "pull_request",
        url: `https://example.com/${canary}/pull/1`,
        ref: `ref-${canary}`,
        title: `PR ${canary}`,
        metadata: { note: canary },
      },
    }),
    "artifact",
  );
  await must(
    call("POST", "/handoff", {
      token: dev!.token,
      body: {
        moduleName: `module-${canary}`,
        summary: `Summary ${canary}`,
        sessionId: dev!.sessionId,
        ticketId: reviewTicket.id,
        testResults: `Tests ${canary}`,
        diffStat: `diff ${canary}`,
      },
    }),
    "handoff",
  );
  const { db } = await env();
  const qa = await db.selectFrom("qa_runs").select("id").where("ticket_id", "=", reviewTicket.id)
    .executeTakeFirst();
  if (!qa) throw new Error("handoff made no QA run");

  // Ticket 2 in progress by `holder`, with live claims on the canary paths.
  await must(
    call("POST", "/begin", {
      token: holder!.token,
      body: { ticketId: ticket.id, files: [files[0]], acknowledgeCriteria: true },
    }),
    "begin 2",
  );
  await must(call("POST", "/claim", { token: holder!.token, body: { files: [files[2]] } }), "claim");
  await must(
    call("POST", "/ledger", {
      token: holder!.token,
      body: {
        type: "PROGRESS",
        content: `Holding ${canary}`,
        sessionId: holder!.sessionId,
        fileRef: files[0],
      },
    }),
    "ledger holder",
    201,
  );

  // Thread with a reply mentioning an agent (notification).
  const thread = await must(
    call("POST", "/thread", {
      token: holder!.token,
      body: { intent: `Thread ${canary}`, expectedFiles: [files[0]], ticketId: ticket.id },
    }),
    "thread",
    201,
  );
  await must(
    call("POST", `/thread/${thread.id}/reply`, {
      token: holder!.token,
      body: { content: `@${mentioned!.name} reply ${canary}` },
    }),
    "reply",
    201,
  );

  // A second thread, closed with an outcome; a second ticket in review (for the context cursors).
  const closed = await must(
    call("POST", "/thread", { token: dev2!.token, body: { intent: `Second thread ${canary}` } }),
    "thread 2",
    201,
  );
  await must(
    call("POST", `/thread/${closed.id}/close`, {
      token: dev2!.token,
      body: { outcome: `Outcome ${canary}` },
    }),
    "close",
  );
  await insertTicket(projectId, {
    status: "review",
    title: `Inserted review ${canary}`,
    description: `Inserted ${canary}`,
    expectedFiles: [files[2]!],
    assignee: holder!.agentId,
    branch: `fix/${canary}`,
  });

  // Sub-agent (name) with its own session and ledger entry.
  const subAgent = `${canary.slice(0, 30)}-sub`;
  const sub = await must(
    call("POST", "/subagent/session", { token: orch!.token, body: { name: subAgent, role: "generator" } }),
    "sub-agent",
    201,
  );
  await must(
    call("POST", "/ledger", {
      token: sub.subAgentToken,
      body: { type: "PROGRESS", content: `Sub-agent ${canary}`, sessionId: sub.sessionId },
    }),
    "sub ledger",
    201,
  );

  // Cursors of A: events, context sections, board.
  const events = await must(call("GET", "/events?limit=1", { token: holder!.token }), "events");
  const more = async (section: string) =>
    (await must(
      call("GET", `/context/more?section=${section}&limit=1`, { token: mentioned!.token }),
      section,
    ))
      .nextCursor ?? `${section}-none`;
  const board = await must(call("GET", "/board?limit=1", { token: holder!.token }), "board");
  const notes = await db.selectFrom("notifications").select(sql<number>`count(*)::int`.as("n"))
    .where("project_id", "=", projectId).executeTakeFirstOrThrow();
  if (notes.n < 1) throw new Error("the mention made no notification");

  return {
    projectId,
    orgId,
    prefix,
    canary,
    ids: {
      ticketId: ticket.id,
      ticketKey: ticket.ticketRef,
      reviewTicketId: reviewTicket.id,
      reviewTicketKey: reviewTicket.ticketRef,
      sprintId: sprint.id,
      threadId: thread.id,
      sessionId: holder!.sessionId,
      subSessionId: sub.sessionId,
      agentId: holder!.agentId,
      orchestratorId: orch!.agentId,
      artifactId: artifact.id,
      qaRunId: qa.id,
      ticketIdempotencyKey,
      assignIdempotencyKey,
    },
    names: { agent: holder!.name, orchestrator: orch!.name, subAgent, mentioned: mentioned!.name },
    files,
    cursors: {
      events: events.nextCursor,
      ledger: await more("ledger"),
      threads: await more("threads"),
      brief: await more("brief"),
      reviews: await more("reviews"),
      board: board.nextCursor ?? "board-none",
    },
    holder: holder!,
  };
}

export interface Actor {
  label: string;
  token: string;
  headers?: Record<string, string>;
}

export interface ProjectB {
  projectId: string;
  prefix: string;
  actors: Actor[];
  generator: AgentFixture;
  orchestrator: AgentFixture;
  /** B's own open ticket, B's own thread and session: targets for probes that carry A's ids in bodies. */
  ticketId: string;
  threadId: string;
  sprintId: string;
}

/** Project B in another organization: one agent of each role, an API key, a sub-agent token and header. */
export async function projectB(): Promise<ProjectB> {
  const { projectId, prefix } = await newProject({ plan: "enterprise", reviewMode: "medium" });
  const [generator, evaluator, observer, orchestrator] = await Promise.all([
    pairAgent(projectId),
    pairAgent(projectId, { role: "evaluator" }),
    pairAgent(projectId, { role: "observer" }),
    pairAgent(projectId, { role: "orchestrator" }),
  ]);
  await must(call("PATCH", "/brief", { token: generator!.token, body: { scope: "Project B" } }), "brief B");
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "b-key-agent" });
  const sub = await must(
    call("POST", "/subagent/session", {
      token: orchestrator!.token,
      body: { name: "b-worker", role: "generator" },
    }),
    "sub B",
    201,
  );
  await must(
    call("POST", "/subagent/session", {
      token: orchestrator!.token,
      body: { name: "b-helper", role: "generator" },
    }),
    "sub B header",
    201,
  );
  const ticket = await must(
    call("POST", "/ticket", {
      token: generator!.token,
      body: {
        title: "B's own ticket",
        type: "feature",
        expectedFiles: ["src/b.ts"],
        doneDefinition: "B's ticket works end to end",
        verificationCommand: "deno test b",
        riskClass: "local",
        acceptanceCriteria: [{ title: "B works" }],
      },
    }),
    "ticket B",
    201,
  );
  const thread = await must(
    call("POST", "/thread", { token: generator!.token, body: { intent: "B's thread" } }),
    "thread B",
    201,
  );
  const sprint = await must(
    call("POST", "/sprint", { token: generator!.token, body: { name: "B sprint" } }),
    "sprint B",
    201,
  );
  return {
    projectId,
    prefix,
    generator: generator!,
    orchestrator: orchestrator!,
    ticketId: ticket.id,
    threadId: thread.id,
    sprintId: sprint.id,
    actors: [
      { label: "generator", token: generator!.token },
      { label: "evaluator", token: evaluator!.token },
      { label: "observer", token: observer!.token },
      { label: "orchestrator", token: orchestrator!.token },
      { label: "api-key", token: key.key },
      { label: "sub-agent-token", token: sub.subAgentToken },
      { label: "x-svc-subagent", token: orchestrator!.token, headers: { "X-Svc-SubAgent": "b-helper" } },
    ],
  };
}

/**
 * Every row that belongs to a project, table by table (ordered, whole rows), so a before/after comparison
 * catches any insert, update or delete: counts, versions, `updated_at`, statuses.
 */
export async function snapshotProject(projectId: string): Promise<Record<string, unknown[]>> {
  const { db } = await env();
  const q = async (text: string) => (await sql.raw<any>(text).execute(db)).rows;
  const p = `'${projectId}'`;
  const out: Record<string, unknown[]> = {};
  const direct = [
    "agents",
    "sub_agents",
    "sessions",
    "tokens",
    "pairing_codes",
    "sprints",
    "tickets",
    "claims",
    "claim_files",
    "threads",
    "ledger_entries",
    "brief_versions",
    "notifications",
    "events",
    "event_cursors",
    "memberships",
    "agent_context_state",
  ];
  // Rows of any project that point at one of A's agents count as A's too (a notification, claim or
  // ticket of B naming A's agent is a change to A).
  const agentColumns: Record<string, string[]> = {
    sub_agents: ["parent_agent_id"],
    sessions: ["agent_id"],
    tokens: ["agent_id"],
    tickets: ["assignee_agent_id", "reviewer_agent_id", "created_by_agent_id"],
    claims: ["agent_id"],
    threads: ["agent_id"],
    ledger_entries: ["agent_id"],
    brief_versions: ["agent_id"],
    notifications: ["recipient_agent_id"],
    events: ["agent_id"],
    agent_context_state: ["agent_id"],
  };
  const agentsOfA = `(SELECT id FROM agents WHERE project_id = ${p})`;
  for (const table of direct) {
    const extra = (agentColumns[table] ?? []).map((col) => ` OR ${col} IN ${agentsOfA}`).join("");
    out[table] = await q(`SELECT to_jsonb(t) AS r FROM ${table} t WHERE project_id = ${p}${extra}`);
  }
  // Counters (rate limits, backpressure, request bursts) keyed by A's project, agents, sessions or tokens:
  // B's traffic must not spend A's budgets.
  out.rate_counters = await q(
    `SELECT to_jsonb(r) AS r FROM rate_counters r WHERE r.key LIKE '%' || ${p} || '%'
       OR EXISTS (SELECT 1 FROM agents x WHERE x.project_id = ${p} AND r.key LIKE '%' || x.id::text || '%')
       OR EXISTS (SELECT 1 FROM sessions x WHERE x.project_id = ${p} AND r.key LIKE '%' || x.id::text || '%')
       OR EXISTS (SELECT 1 FROM tokens x WHERE x.project_id = ${p} AND r.key LIKE '%' || x.id::text || '%')`,
  );
  out.projects = await q(`SELECT to_jsonb(t) AS r FROM projects t WHERE id = ${p}`);
  const viaTicket = ["ticket_comments", "ticket_artifacts", "qa_runs"];
  for (const table of viaTicket) {
    out[table] = await q(
      `SELECT to_jsonb(x) AS r FROM ${table} x JOIN tickets t ON t.id = x.ticket_id WHERE t.project_id = ${p}`,
    );
  }
  out.qa_tests = await q(
    `SELECT to_jsonb(x) AS r FROM qa_tests x JOIN qa_runs q ON q.id = x.qa_run_id JOIN tickets t ON t.id = q.ticket_id
     WHERE t.project_id = ${p}`,
  );
  out.thread_messages = await q(
    `SELECT to_jsonb(x) AS r FROM thread_messages x JOIN threads t ON t.id = x.thread_id WHERE t.project_id = ${p}`,
  );
  out.session_activities = await q(
    `SELECT to_jsonb(x) AS r FROM session_activities x JOIN sessions s ON s.id = x.session_id
     WHERE s.project_id = ${p}`,
  );
  for (const key of Object.keys(out)) {
    out[key] = out[key]!.map((row: any) => JSON.stringify(row.r)).sort();
  }
  return out;
}
