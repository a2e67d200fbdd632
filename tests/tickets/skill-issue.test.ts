// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { admin, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { setBrief } from "../helpers/fixtures.ts";
import { create, setup } from "./_helpers.ts";

async function setStatus(id: string, status: string) {
  const { db } = await (await import("../helpers/mod.ts")).env();
  await db.updateTable("tickets").set({ status }).where("id", "=", id).execute();
}

test("TKT-196 CTX-030 GET /skill returns the skill document at the version GET /context reports", async () => {
  const s = await setup();
  const res = await call("GET", "/skill", { token: s.agent.token });
  assert.equal(res.status, 200, res.text);
  const skill = res.body.data;
  assert.equal(skill.mediaType, "text/markdown");
  assert.ok(skill.content.startsWith("# "), "Markdown with a title");
  assert.equal(skill.totalChars, Array.from(skill.content as string).length);
  assert.match(skill.docsUrl, /\/docs$/);
  const ctx = await call("GET", "/context", { token: s.agent.token });
  assert.equal(ctx.status, 200, ctx.text);
  assert.equal(ctx.body.data.skillVersion, skill.version);
  assert.equal(res.headers.get("etag"), `"${skill.version}"`);
});

test("TKT-196 GET /skill answers 304 to If-None-Match with its ETag, 200 to another", async () => {
  const s = await setup();
  const first = await call("GET", "/skill", { token: s.agent.token });
  const etag = first.headers.get("etag")!;
  const again = await call("GET", "/skill", { token: s.agent.token, headers: { "If-None-Match": etag } });
  assert.equal(again.status, 304);
  assert.equal(again.text, "");
  const other = await call("GET", "/skill", {
    token: s.agent.token,
    headers: { "If-None-Match": '"skill-000000000000"' },
  });
  assert.equal(other.status, 200);
});

test("TKT-196 CTX-030 reporting the version from GET /skill as skill_hash makes skillStale false", async () => {
  const s = await setup();
  const version = (await call("GET", "/skill", { token: s.agent.token })).body.data.version;
  const stale = await call("POST", `/session/${s.agent.sessionId}/report`, {
    token: s.agent.token,
    body: { skill_hash: "skill-old" },
  });
  assert.ok(stale.status < 300, stale.text);
  assert.equal((await call("GET", "/context", { token: s.agent.token })).body.data.skillStale, true);
  const fresh = await call("POST", `/session/${s.agent.sessionId}/report`, {
    token: s.agent.token,
    body: { skill_hash: version },
  });
  assert.ok(fresh.status < 300, fresh.text);
  assert.equal((await call("GET", "/context", { token: s.agent.token })).body.data.skillStale, false);
});

test("TKT-196 GET /skill needs a token", async () => {
  const res = await call("GET", "/skill");
  assert.equal(res.status, 401);
  assert.equal(res.body.error.code, "UNAUTHORIZED");
});

test("TKT-196 PAIR-023 issuesUrl points at GET /issue, which lists the open tickets as issues", async () => {
  const project = await newProject();
  await setBrief(project.projectId);
  const code = await admin("POST", `/projects/${project.projectId}/pairing-codes`, { role: "generator" });
  const paired = await call("POST", "/pair/connect", {
    body: { code: code.code, agentName: "issues-reader" },
    headers: { "X-Forwarded-For": "10.99.1.2" },
  });
  assert.equal(paired.status, 200, paired.text);
  const issuesUrl = new URL(paired.body.data.issuesUrl);
  assert.equal(issuesUrl.pathname, "/api/issue");
  const token = paired.body.data.sessionToken;
  const open = await create(token, { tags: ["ui"] });
  const closed = await create(token);
  await setStatus(closed.id, "done");
  const res = await call("GET", issuesUrl.pathname, { token });
  assert.equal(res.status, 200, res.text);
  const data = res.body.data;
  assert.deepEqual(data.issues.map((i: any) => i.key), [open.ticketRef]);
  const issue = data.issues[0];
  assert.equal(issue.state, "open");
  assert.equal(issue.id, open.id);
  assert.deepEqual(issue.labels, ["ui"]);
  assert.match(issue.url, new RegExp(`/api/ticket\\?key=${open.ticketRef}$`));
  assert.equal(typeof issue.nextAction.action, "string");
  assert.equal(data.total, 1);
  assert.match(data.boardUrl, /\/api\/board$/);
  // The issue's url reads the whole ticket.
  const byUrl = await call("GET", new URL(issue.url).pathname + new URL(issue.url).search, { token });
  assert.equal(byUrl.status, 200, byUrl.text);
  assert.equal(byUrl.body.data.id, open.id);
});

test("TKT-196 GET /issue filters by state, labels and assignee, and pages with a cursor", async () => {
  const s = await setup();
  const a = await create(s.agent.token, { tags: ["api"] });
  const b = await create(s.agent.token, { tags: ["api", "ui"] });
  const c = await create(s.agent.token);
  await setStatus(c.id, "cancelled");
  const keys = async (q: string) =>
    (await call("GET", `/issue?${q}`, { token: s.agent.token })).body.data.issues.map((i: any) => i.key);
  assert.deepEqual(await keys("state=closed"), [c.ticketRef]);
  assert.deepEqual(await keys("state=all"), [a.ticketRef, b.ticketRef, c.ticketRef]);
  assert.deepEqual(await keys("labels=api,ui"), [b.ticketRef]);
  assert.deepEqual(await keys("assigneeId=me"), []);
  const page1 = await call("GET", "/issue?limit=1", { token: s.agent.token });
  assert.equal(page1.body.data.returned, 1);
  assert.equal(page1.body.data.total, 2);
  const cursor = page1.body.data.nextCursor;
  assert.equal(typeof cursor, "string");
  const page2 = await call("GET", `/issue?limit=1&cursor=${encodeURIComponent(cursor)}`, {
    token: s.agent.token,
  });
  assert.deepEqual(page2.body.data.issues.map((i: any) => i.key), [b.ticketRef]);
  assert.equal(page2.body.data.nextCursor, null);
});

test("TKT-196 GET /issue refuses an unknown state and a malformed assignee with 400 VALIDATION_ERROR", async () => {
  const s = await setup();
  for (const q of ["state=pending", "assigneeId=bob", "limit=0"]) {
    const res = await call("GET", `/issue?${q}`, { token: s.agent.token });
    assert.equal(res.status, 400, q);
    assert.equal(res.body.error.code, "VALIDATION_ERROR", q);
  }
});

test("TKT-196 GET /issue needs read:board and shows only the caller's project", async () => {
  const s = await setup();
  await create(s.agent.token);
  const other = await newProject();
  const stranger = await pairAgent(other.projectId);
  const res = await call("GET", "/issue?state=all", { token: stranger.token });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data.issues, []);
});
