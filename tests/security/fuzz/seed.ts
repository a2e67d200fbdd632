import { ADMIN_TOKEN, type AgentFixture, call, env, newProject, pairAgent } from "../../helpers/mod.ts";
import { insertClaim, insertLedgerEntry, insertSubAgent, insertTicket } from "../../helpers/fixtures.ts";

/**
 * The seeded project the fuzzer aims at: real ids of every kind (tickets, threads, sprints, sessions,
 * artifacts, QA runs, agents, sub-agents, pairing codes), so that many generated requests get past
 * validation and into the handlers. Pools grow as the fuzzer's own requests create things.
 */
export interface World {
  projectId: string;
  prefix: string;
  agents: Record<Role, AgentFixture>;
  /** A `svc_sub_` token minted by the orchestrator, and the sub-agent's name. */
  subToken: string;
  subName: string;
  subSessionId: string;
  /** A sub-agent of the generator, for `X-Svc-SubAgent`. */
  headerSubName: string;
  apiKey: string;
  ticketIds: string[];
  ticketKeys: string[];
  threadIds: string[];
  sprintIds: string[];
  sessionIds: string[];
  artifacts: { ticketId: string; id: string }[];
  qaRunIds: string[];
  agentIds: string[];
  pairingCodes: string[];
  /** Session tokens that `POST /session/refresh` may spend (it revokes the token it is given). */
  spareTokens: string[];
  cursors: string[];
}

export type Role = "generator" | "evaluator" | "observer" | "orchestrator";
export const ROLES: Role[] = ["generator", "evaluator", "observer", "orchestrator"];

export const FILES = ["src/a.ts", "src/b.ts", "src/lib/util.ts", "README.md", "tests/a.test.ts"];

function ok(res: Awaited<ReturnType<typeof call>>, what: string) {
  if (res.status >= 300) throw new Error(`seed: ${what} failed: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body.data;
}

const CRITERIA = [{ title: "It works", requiresEvidence: true }, { title: "It is tested" }];

export async function seedWorld(): Promise<World> {
  const { projectId, prefix } = await newProject({ plan: "enterprise", reviewMode: "medium" });
  const agents = {} as Record<Role, AgentFixture>;
  for (const role of ROLES) agents[role] = await pairAgent(projectId, { role });
  const g = agents.generator;
  await ok(
    await call("PATCH", "/brief", {
      token: agents.orchestrator.token,
      body: { scope: "A service to fuzz", goals: ["no 5xx"], stack: "Deno" },
    }),
    "brief",
  );
  const sprint = await ok(
    await call("POST", "/sprint", {
      token: agents.orchestrator.token,
      body: { name: "Sprint one", goal: "Fuzz" },
    }),
    "sprint",
  );
  // Active, so that GET /sprint/current and sprint assignment have something to work on.
  await ok(
    await call("PATCH", `/sprint/${sprint.id}`, {
      token: agents.orchestrator.token,
      body: { status: "active" },
    }),
    "sprint activation",
  );
  const created = await ok(
    await call("POST", "/ticket", {
      token: g.token,
      body: {
        title: "Fuzz target ticket",
        expectedFiles: ["src/a.ts"],
        doneDefinition: "Done when the fuzzer finds nothing",
        verificationCommand: "deno task test",
        riskClass: "local",
        acceptanceCriteria: CRITERIA,
        sprintId: sprint.id,
      },
    }),
    "ticket",
  );
  const loop = {
    expectedFiles: ["src/a.ts", "src/b.ts"],
    doneDefinition: "The thing works and is covered by tests",
    verificationCommand: "deno test tests/a",
    riskClass: "shared-state" as const,
    criteria: CRITERIA,
    acknowledged: true,
  };
  const tickets = [
    await insertTicket(projectId, {
      ...loop,
      status: "in_progress",
      assignee: g.agentId,
      sprintId: sprint.id,
    }),
    await insertTicket(projectId, {
      ...loop,
      status: "review",
      assignee: g.agentId,
      reviewer: agents.evaluator.agentId,
      reviewHandoff: { summary: "Ready", changedFiles: ["src/a.ts"], testsRun: "deno test", risks: "none" },
    }),
    await insertTicket(projectId, { ...loop, status: "backlog" }),
    await insertTicket(projectId, { ...loop, status: "blocked", assignee: g.agentId }),
    await insertTicket(projectId, { ...loop, status: "done", assignee: g.agentId }),
    await insertTicket(projectId, { status: "cancelled" }),
    await insertTicket(projectId, { ...loop, status: "needs_review", assignee: agents.evaluator.agentId }),
  ];
  const ticketIds = [created.id as string, ...tickets.map((t) => t.id)];
  const ticketKeys = [`${prefix}-${created.number}`, ...tickets.map((t) => t.key)];
  const inProgress = tickets[0]!.id;
  const { db, clock } = await env();
  await db.updateTable("sessions").set({ ticket_id: inProgress }).where("id", "=", g.sessionId).execute();
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    content: "Wrote src/a.ts",
    agentId: g.agentId,
    sessionId: g.sessionId,
    ticketId: inProgress,
  });
  await insertClaim(projectId, {
    agentId: g.agentId,
    files: ["src/a.ts"],
    ticketId: inProgress,
    sessionId: g.sessionId,
  });
  const thread = await ok(
    await call("POST", "/thread", {
      token: g.token,
      body: { intent: "Coordinate on src/a.ts", ticketId: inProgress },
    }),
    "thread",
  );
  const artifact = await ok(
    await call("POST", `/ticket/${inProgress}/artifacts`, {
      token: g.token,
      body: { type: "pull_request", url: "https://example.com/pr/1", title: "PR 1" },
    }),
    "artifact",
  );
  const qaRunId = crypto.randomUUID();
  await db.insertInto("qa_runs").values({
    id: qaRunId,
    ticket_id: tickets[1]!.id,
    session_id: g.sessionId,
    agent_id: g.agentId,
    created_at: clock.now(),
    completed_at: null,
  }).execute();
  await db.insertInto("qa_tests").values({
    id: crypto.randomUUID(),
    qa_run_id: qaRunId,
    criterion_index: 0,
    title: "It works",
    evidence: null,
    updated_at: clock.now(),
  }).execute();
  const sub = await ok(
    await call("POST", "/subagent/session", {
      token: agents.orchestrator.token,
      body: { name: "fuzz-worker", role: "generator" },
    }),
    "subagent",
  );
  await insertSubAgent(projectId, g.agentId, "helper-1");
  const key = await call("POST", `/admin/projects/${projectId}/api-keys`, {
    token: ADMIN_TOKEN,
    body: { agentName: g.name },
  });
  const apiKey = (await ok(key, "api key")).key as string;
  const world: World = {
    projectId,
    prefix,
    agents,
    subToken: sub.subAgentToken,
    subName: "fuzz-worker",
    subSessionId: sub.sessionId,
    headerSubName: "helper-1",
    apiKey,
    ticketIds,
    ticketKeys,
    threadIds: [thread.id ?? thread.threadId],
    sprintIds: [sprint.id],
    sessionIds: [...ROLES.map((r) => agents[r].sessionId), sub.sessionId],
    artifacts: [{ ticketId: inProgress, id: artifact.id }],
    qaRunIds: [qaRunId],
    agentIds: ROLES.map((r) => agents[r].agentId),
    pairingCodes: [],
    spareTokens: [],
    cursors: [],
  };
  await topUp(world);
  return world;
}

/** Fresh pairing codes and spare tokens for the operations that consume them. */
export async function topUp(world: World): Promise<void> {
  while (world.pairingCodes.length < 2) {
    const res = await call("POST", `/admin/projects/${world.projectId}/pairing-codes`, {
      token: ADMIN_TOKEN,
      body: { role: "generator" },
    });
    world.pairingCodes.push((await ok(res, "pairing code")).code);
  }
  while (world.spareTokens.length < 2) {
    const spare = await pairAgent(world.projectId, { role: "observer" });
    world.spareTokens.push(spare.token);
  }
}

let repairs = 0;

/** Re-pairs agents whose tokens stopped working (handoff, session complete, refresh) and refills pools. */
export async function repair(world: World): Promise<number> {
  let fixed = 0;
  for (const role of ROLES) {
    const me = await call("GET", "/me", { token: world.agents[role].token });
    if (me.status === 401) {
      const fresh = await pairAgent(world.projectId, { role });
      world.agents[role] = fresh;
      world.sessionIds.push(fresh.sessionId);
      world.agentIds.push(fresh.agentId);
      fixed++;
    }
  }
  const sub = await call("GET", "/me", { token: world.subToken });
  if (sub.status === 401) {
    const name = `fuzz-worker-${++repairs}`;
    const minted = await ok(
      await call("POST", "/subagent/session", {
        token: world.agents.orchestrator.token,
        body: { name, role: "generator" },
      }),
      "subagent",
    );
    world.subToken = minted.subAgentToken;
    world.subName = name;
    world.subSessionId = minted.sessionId;
    world.sessionIds.push(minted.sessionId);
    fixed++;
  }
  const header = await call("GET", "/me", {
    token: world.agents.generator.token,
    headers: { "X-Svc-SubAgent": world.headerSubName },
  });
  if (header.status === 401) {
    world.headerSubName = `helper-${++repairs}`;
    await insertSubAgent(world.projectId, world.agents.generator.agentId, world.headerSubName);
    fixed++;
  }
  while (world.ticketIds.length < 6) {
    const t = await insertTicket(world.projectId, {
      status: "in_progress",
      assignee: world.agents.generator.agentId,
      expectedFiles: ["src/a.ts"],
      doneDefinition: "The thing works and is covered by tests",
      verificationCommand: "deno test tests/a",
      riskClass: "local",
      criteria: CRITERIA,
      acknowledged: true,
    });
    world.ticketIds.push(t.id);
    world.ticketKeys.push(t.key);
    fixed++;
  }
  await topUp(world);
  return fixed;
}
