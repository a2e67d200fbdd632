import assert from "node:assert/strict";
import { createSvcClient, type SvcClient } from "../../generated/client.ts";
import { JOB_HANDLERS } from "@/domain/jobs/handlers.ts";
import { runPendingJobs } from "@/domain/jobs/run.ts";
import { admin, env, newProject, test } from "../helpers/mod.ts";

/** The typed client over the in-process app (no socket). */
async function client(token?: string): Promise<SvcClient> {
  const e = await env();
  return createSvcClient({
    baseUrl: "http://localhost:8787/api",
    ...(token ? { token } : {}),
    fetch: async (req: Request) => {
      const url = new URL(req.url);
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.text();
      return await e.fetch(url.pathname + url.search, {
        method: req.method,
        headers: req.headers,
        body: body ?? null,
      });
    },
  });
}

let ip = 0;

/** Pairs through the typed client with an admin-issued code. */
async function pair(projectId: string, agentName: string) {
  const code = await admin("POST", `/projects/${projectId}/pairing-codes`, { role: "generator" });
  const api = await client();
  const { data, response } = await api.POST("/pair/connect", {
    body: { code: code.code, agentName, platform: "claude-code" },
    headers: { "X-Forwarded-For": `10.99.${++ip}.${Math.floor(Math.random() * 250)}` },
  });
  assert.equal(response.status, 200);
  return { token: data!.data.sessionToken, sessionId: data!.data.sessionId, agentId: data!.data.agent.id };
}

/** Brief, ticket, begin and the ledger entries of a piece of work, all through the typed client. */
async function work(reviewMode: string) {
  const { projectId, prefix } = await newProject({ reviewMode });
  const agent = await pair(projectId, `loop-${crypto.randomUUID().slice(0, 6)}`);
  const api = await client(agent.token);

  const brief = await api.PATCH("/brief", { body: { scope: "A login page for the demo app" } });
  assert.equal(brief.response.status, 200, JSON.stringify(brief.error));

  const created = await api.POST("/ticket", {
    body: {
      title: "Login form",
      expectedFiles: ["src/login.ts", "src/login.test.ts"],
      doneDefinition: "A user can sign in with email and password",
      verificationCommand: "deno test src/login.test.ts",
      riskClass: "shared-state",
      acceptanceCriteria: [
        { title: "Valid credentials sign in", requiresEvidence: true },
        { title: "Errors are shown inline" },
      ],
    },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const ticketId = created.data!.data.id;

  const begun = await api.POST("/begin", {
    body: { ticketId, files: ["src/login.ts", "src/login.test.ts"], acknowledgeCriteria: true },
  });
  assert.equal(begun.response.status, 200, JSON.stringify(begun.error));

  const entries = [
    { type: "PROGRESS" as const, content: "Built the login form in src/login.ts" },
    { type: "TESTED" as const, content: "deno test src/login.test.ts: 6 passed" },
  ];
  for (const entry of entries) {
    const res = await api.POST("/ledger", { body: { ...entry, sessionId: agent.sessionId, ticketId } });
    assert.ok(res.response.ok, JSON.stringify(res.error));
  }
  const changed = await api.POST("/ledger", {
    body: {
      type: "CHANGED",
      content: "Added tests in src/login.test.ts",
      fileRef: "src/login.test.ts",
      sessionId: agent.sessionId,
      ticketId,
    },
  });
  assert.ok(changed.response.ok, JSON.stringify(changed.error));
  return { projectId, prefix, agent, api, ticketId };
}

test("the agent work loop end to end through the typed client: pair, begin, ledger, handoff", async () => {
  const { projectId, prefix, agent, api, ticketId } = await work("medium");
  const e = await env();

  const handed = await api.POST("/handoff", {
    body: {
      moduleName: "login",
      summary: "Login form with inline errors",
      sessionId: agent.sessionId,
      ticketId,
      testResults: "6 passed",
      diffStat: "2 files changed, 120 insertions(+)",
      artifacts: [{ type: "pull_request", url: "https://git.example.com/demo/pull/1", title: "Login form" }],
      toolResults: [{ command: "deno lint src/login.ts", output: "no problems", exitCode: 0 }],
    },
  });
  assert.equal(handed.response.status, 200, JSON.stringify(handed.error));
  const data = handed.data!.data;
  assert.equal(data.ok, true);
  assert.equal(data.modulesDone, 1);
  assert.equal(data.ticketAdvanced, true);
  assert.equal(data.review?.ticketStatus, "review");
  assert.equal(data.review?.qaTestCount, 1);
  assert.equal(data.warnings, undefined, JSON.stringify(data.warnings));
  assert.deepEqual(data.pullRequest, {
    url: "https://git.example.com/demo/pull/1",
    ref: null,
    title: "Login form",
  });
  assert.equal(data.nextAction?.action, "WAIT");

  // The session token stopped working; the ticket is in review, its claims free, the QA run readable.
  const me = await api.GET("/me");
  assert.equal(me.response.status, 401);
  const reader = await pair(projectId, `reader-${crypto.randomUUID().slice(0, 6)}`);
  const other = await client(reader.token);
  const ticket = await other.GET("/ticket", { params: { query: { key: `${prefix}-1` } } });
  assert.equal(ticket.response.status, 200, JSON.stringify(ticket.error));
  assert.equal(ticket.data!.data.status, "review");
  const check = await other.GET("/claim/check", {
    params: { query: { files: "src/login.ts,src/login.test.ts" } },
  });
  assert.ok(check.data!.data.files.every((f) => f.available));
  const qa = await other.GET("/qa/{qaRunId}", { params: { path: { qaRunId: data.review!.qaRunId! } } });
  assert.equal(qa.data!.data.tests[0]!.title, "Valid credentials sign in");

  // toolResults are classified after the response.
  await runPendingJobs({ db: e.db, clock: e.clock, jobs: JOB_HANDLERS });
  const ledger = await other.GET("/ledger", {
    params: { query: { sessionId: agent.sessionId, type: "TESTED", limit: 50 } },
  });
  assert.equal(ledger.response.status, 200, JSON.stringify(ledger.error));
  assert.ok(
    ledger.data!.data.entries.some((x) => x.content.includes("deno lint src/login.ts")),
    JSON.stringify(ledger.data!.data.entries.map((x) => x.content)),
  );
});

test("the closeout path end to end through the typed client: report, then POST /session/complete", async () => {
  const { agent, api } = await work("light");
  const early = await api.POST("/session/complete", { body: { sessionId: agent.sessionId } });
  assert.equal(early.response.status, 422);
  assert.equal(early.error?.error.code, "PRECONDITION_FAILED");
  assert.deepEqual(early.error?.error.details?.missing, ["environment_report"]);
  const report = await api.POST("/session/{sessionId}/report", {
    params: { path: { sessionId: agent.sessionId } },
    body: { model: "opus", platform: "claude-code", git_branch: "feat/login" },
  });
  assert.equal(report.response.status, 200, JSON.stringify(report.error));
  const done = await api.POST("/session/complete", { body: { sessionId: agent.sessionId } });
  assert.equal(done.response.status, 200, JSON.stringify(done.error));
  assert.deepEqual(done.data!.data, { ok: true, sessionId: agent.sessionId });
  assert.equal((await api.GET("/me")).response.status, 401);
});
