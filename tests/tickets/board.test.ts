// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import { insertClaim, insertSprint } from "../helpers/fixtures.ts";
import { create, setup } from "./_helpers.ts";

async function board(token: string, query = "") {
  return await call("GET", `/board${query ? `?${query}` : ""}`, { token });
}

async function setStatus(id: string, status: string) {
  const { db } = await env();
  await db.updateTable("tickets").set({ status }).where("id", "=", id).execute();
}

const numbers = (res: any) => res.body.data.tickets.map((t: any) => t.number);

test("TKT-140 the board has tickets, total, statusCounts, returned, ticketPrefix, hasMore, nextCursor, collisionWarnings", async () => {
  const s = await setup();
  await create(s.agent.token);
  const res = await board(s.agent.token);
  assert.equal(res.status, 200);
  for (
    const key of [
      "tickets",
      "total",
      "statusCounts",
      "returned",
      "ticketPrefix",
      "hasMore",
      "nextCursor",
      "collisionWarnings",
    ]
  ) {
    assert.ok(key in res.body.data, key);
  }
  assert.equal(res.body.data.ticketPrefix, s.prefix);
  assert.equal(res.body.data.hasMore, false);
  assert.equal(res.body.data.nextCursor, null);
  assert.deepEqual(res.body.data.collisionWarnings, []);
});

test("TKT-131 TKT-084 a status filter must be a board status; unknown answers 400 with validStatuses", async () => {
  const s = await setup();
  const a = await create(s.agent.token);
  const b = await create(s.agent.token);
  await setStatus(b.id, "in_progress");
  assert.deepEqual(numbers(await board(s.agent.token, "status=backlog")), [a.number]);
  assert.deepEqual(numbers(await board(s.agent.token, "status=backlog,in_progress")), [a.number, b.number]);
  const res = await board(s.agent.token, "status=doing");
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
  assert.ok(res.body.error.details.validStatuses.includes("backlog"));
  assert.equal(res.body.error.details.recovery.action, "USE_VALID_STATUS");
});

test("TKT-132 the board filters by type", async () => {
  const s = await setup();
  const bug = await create(s.agent.token, { type: "bug" });
  await create(s.agent.token, { type: "feature" });
  assert.deepEqual(numbers(await board(s.agent.token, "type=bug")), [bug.number]);
});

test("TKT-133 tags is a comma list; a ticket matches only with all the tags", async () => {
  const s = await setup();
  const both = await create(s.agent.token, { tags: ["ui", "auth", "x"] });
  await create(s.agent.token, { tags: ["ui"] });
  await create(s.agent.token, { tags: ["auth"] });
  assert.deepEqual(numbers(await board(s.agent.token, "tags=ui,auth")), [both.number]);
  assert.equal((await board(s.agent.token, "tags=ui")).body.data.total, 2);
});

test("TKT-134 the board filters by assigneeId (UUID, me, none)", async () => {
  const s = await setup();
  const other = await pairAgent(s.projectId);
  const mine = await create(s.agent.token, { assignToSelf: true });
  const theirs = await create(other.token, { assignToSelf: true });
  const open = await create(s.agent.token);
  assert.deepEqual(numbers(await board(s.agent.token, `assigneeId=${other.agentId}`)), [theirs.number]);
  assert.deepEqual(numbers(await board(s.agent.token, "assigneeId=me")), [mine.number]);
  assert.deepEqual(numbers(await board(s.agent.token, "assigneeId=none")), [open.number]);
  assert.equal((await board(s.agent.token, "assigneeId=bob")).status, 400);
});

test("TKT-135 the board filters by sprintId; a malformed one answers 400 with LIST_SPRINTS", async () => {
  const s = await setup();
  const sprintId = await insertSprint(s.projectId);
  const inSprint = await create(s.agent.token, { sprintId });
  const outside = await create(s.agent.token);
  assert.deepEqual(numbers(await board(s.agent.token, `sprintId=${sprintId}`)), [inSprint.number]);
  assert.deepEqual(numbers(await board(s.agent.token, "sprintId=none")), [outside.number]);
  const res = await board(s.agent.token, "sprintId=sprint-1");
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.recovery.action, "LIST_SPRINTS");
});

test("TKT-136 TKT-137 cancelled tickets are hidden unless include=cancelled (without status filter)", async () => {
  const s = await setup();
  const open = await create(s.agent.token);
  const cancelled = await create(s.agent.token);
  await setStatus(cancelled.id, "cancelled");
  const dflt = await board(s.agent.token);
  assert.deepEqual(numbers(dflt), [open.number]);
  assert.equal("cancelled" in dflt.body.data.statusCounts, false);
  const all = await board(s.agent.token, "include=cancelled");
  assert.deepEqual(numbers(all), [open.number, cancelled.number]);
  assert.equal(all.body.data.statusCounts.cancelled, 1);
  assert.deepEqual(numbers(await board(s.agent.token, "include=cancelled&status=backlog")), [open.number]);
  assert.deepEqual(numbers(await board(s.agent.token, "status=cancelled")), [cancelled.number]);
});

test("TKT-138 limit is at most 1000, default 50", async () => {
  const s = await setup();
  const { db } = await env();
  await db.updateTable("projects").set({ ticket_seq: 60 }).where("id", "=", s.projectId).execute();
  await bulkInsert(s.projectId, s.agent.agentId, 60);
  const dflt = await board(s.agent.token, "include=cancelled");
  assert.equal(dflt.body.data.returned, 50);
  assert.equal(dflt.body.data.hasMore, true);
  assert.equal((await board(s.agent.token, "include=cancelled&limit=1000")).body.data.returned, 60);
  assert.equal((await board(s.agent.token, "limit=1")).body.data.returned, 1);
  for (const limit of [0, 1001]) assert.equal((await board(s.agent.token, `limit=${limit}`)).status, 400);
});

test("TKT-139 TKT-141 cursor pagination walks every ticket; total and statusCounts span all pages", async () => {
  const s = await setup();
  const made = [];
  for (let i = 0; i < 5; i++) made.push(await create(s.agent.token));
  await setStatus(made[1].id, "in_progress");
  const seen: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: any = await board(
      s.agent.token,
      `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.data.total, 5);
    assert.equal(res.body.data.statusCounts.backlog, 4);
    assert.equal(res.body.data.statusCounts.in_progress, 1);
    assert.equal(res.body.data.statusCounts.done, 0);
    assert.equal(res.body.data.returned, res.body.data.tickets.length);
    seen.push(...numbers(res));
    cursor = res.body.data.nextCursor;
    assert.equal(res.body.data.hasMore, cursor !== null);
    pages++;
  } while (cursor);
  assert.equal(pages, 3);
  assert.deepEqual(seen, [1, 2, 3, 4, 5]);
});

test("TKT-139 a bad cursor answers 400 with RESTART_PAGINATION", async () => {
  const s = await setup();
  for (let i = 0; i < 3; i++) await create(s.agent.token, { type: "bug" });
  const first = await board(s.agent.token, "limit=1");
  const cursor = first.body.data.nextCursor;
  for (
    const q of ["cursor=garbage", `cursor=${btoa("{}")}`, `cursor=${encodeURIComponent(cursor)}&type=bug`]
  ) {
    const res = await board(s.agent.token, `limit=1&${q}`);
    assert.equal(res.status, 400, q);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.recovery.action, "RESTART_PAGINATION");
  }
});

test("TKT-036 TKT-023 board rows add criteriaCount, criteriaPassed, artifactCount, hasOpenArtifacts, nextAction", async () => {
  const s = await setup();
  const t = await create(s.agent.token, {
    assignToSelf: true,
    acceptanceCriteria: [{ title: "a" }, { title: "b" }, { title: "c" }],
  });
  const { db } = await env();
  const now = new Date();
  for (const status of ["open", "merged"]) {
    await db.insertInto("ticket_artifacts").values({
      id: crypto.randomUUID(),
      ticket_id: t.id,
      type: "pull_request",
      url: `https://example.com/pr/${status}`,
      status,
      created_at: now,
      updated_at: now,
    }).execute();
  }
  const oldRun = crypto.randomUUID();
  const run = crypto.randomUUID();
  await db.insertInto("qa_runs").values({
    id: oldRun,
    ticket_id: t.id,
    created_at: new Date(now.getTime() - 1000),
  })
    .execute();
  await db.insertInto("qa_runs").values({ id: run, ticket_id: t.id, created_at: now }).execute();
  const tests: Array<[string, number, string]> = [
    [oldRun, 0, "passed"],
    [oldRun, 1, "passed"],
    [oldRun, 2, "passed"],
    [
      run,
      0,
      "passed",
    ],
    [run, 1, "failed"],
    [run, 2, "pending"],
  ];
  for (const [qaRun, index, status] of tests) {
    await db.insertInto("qa_tests").values({
      id: crypto.randomUUID(),
      qa_run_id: qaRun,
      criterion_index: index,
      title: `c${index}`,
      status,
      updated_at: now,
    }).execute();
  }
  const row = (await board(s.agent.token)).body.data.tickets[0];
  assert.equal(row.criteriaCount, 3);
  assert.equal(row.criteriaPassed, 1);
  assert.equal(row.artifactCount, 2);
  assert.equal(row.hasOpenArtifacts, true);
  assert.equal(row.nextAction.action, "BEGIN_TICKET");
  assert.deepEqual(row.assignee, { agentId: s.agent.agentId, name: s.agent.name });
  const plain = await create(s.agent.token);
  const plainRow = (await board(s.agent.token)).body.data.tickets.find((x: any) => x.id === plain.id);
  assert.equal(plainRow.criteriaCount, 0);
  assert.equal(plainRow.artifactCount, 0);
  assert.equal(plainRow.hasOpenArtifacts, false);
  assert.equal(plainRow.nextAction.action, "ADD_CRITERIA");
  assert.equal(plainRow.assignee, null);
});

test("TKT-142 collisionWarnings: agents whose live claims overlap expected files of tickets assigned to others", async () => {
  const s = await setup();
  const other = await pairAgent(s.projectId);
  await create(other.token, { assignToSelf: true, expectedFiles: ["src/a.ts", "src/b.ts"] });
  await create(s.agent.token, { assignToSelf: true, expectedFiles: ["src/c.ts"] });
  await insertClaim(s.projectId, { agentId: s.agent.agentId, files: ["src/a.ts", "src/c.ts", "src/z.ts"] });
  await insertClaim(s.projectId, { agentId: other.agentId, files: ["src/b.ts"] });
  await insertClaim(s.projectId, { agentId: other.agentId, files: ["src/c.ts"], released: true });
  const res = await board(s.agent.token, "status=done");
  assert.equal(res.body.data.total, 0, "warnings ignore the filters");
  const warnings = res.body.data.collisionWarnings;
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].agentName, s.agent.name);
  assert.deepEqual(warnings[0].conflictingFiles, ["src/a.ts"]);
});

test("TKT-142 collisionWarnings compare paths as claims do: a claim on SRC/A.ts overlaps an expected src/a.ts", async () => {
  const s = await setup();
  const other = await pairAgent(s.projectId);
  await create(other.token, { assignToSelf: true, expectedFiles: ["src/a.ts"] });
  await insertClaim(s.projectId, { agentId: s.agent.agentId, files: ["SRC/A.ts"] });
  const warnings = (await board(s.agent.token)).body.data.collisionWarnings;
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.equal(warnings[0].agentName, s.agent.name);
  assert.deepEqual(warnings[0].conflictingFiles, ["src/a.ts"]);
});

/** Inserts `count` tickets with numbers 1..count straight into the database. */
async function bulkInsert(projectId: string, agentId: string, count: number) {
  const { db } = await env();
  await sql`insert into tickets (id, project_id, number, title, description, type, tags, status, expected_files,
      done_definition, verification_command, risk_class, assignee_agent_id, created_by_agent_id,
      status_changed_at, created_at, updated_at)
    select gen_random_uuid(), ${projectId}, n, 'Bulk ticket ' || n, 'Generated description ' || n,
      case when n % 3 = 0 then 'bug' else 'feature' end,
      case when n % 7 = 0 then ${toJson(["perf", "ui"])}::jsonb else ${toJson(["ui"])}::jsonb end,
      (array['backlog','in_progress','review','done','cancelled'])[1 + n % 5],
      ${toJson(["src/file.ts"])}::jsonb, 'Done when the bulk ticket is done', 'deno test -A', 'local',
      case when n % 4 = 0 then ${agentId}::uuid else null end, ${agentId}::uuid, now(), now(), now()
    from generate_series(1, ${count}) as n`.execute(db);
}

test("TKT-141 the board stays fast and exact with 10,000 tickets", async () => {
  const s = await setup();
  const { db } = await env();
  await bulkInsert(s.projectId, s.agent.agentId, 10_000);
  await db.updateTable("projects").set({ ticket_seq: 10_000 }).where("id", "=", s.projectId).execute();
  await sql`analyze tickets`.execute(db);
  await board(s.agent.token, "limit=1");
  const queries = [
    "",
    "limit=1000",
    "status=review&limit=200",
    "tags=perf&type=bug",
    `assigneeId=me&limit=100`,
  ];
  for (const q of queries) {
    const started = performance.now();
    const res = await board(s.agent.token, q);
    const ms = performance.now() - started;
    assert.equal(res.status, 200, q);
    assert.ok(ms < 3000, `GET /board?${q} took ${Math.round(ms)} ms`);
  }
  const all = await board(s.agent.token);
  assert.equal(all.body.data.total, 8000);
  assert.equal(all.body.data.statusCounts.review, 2000);
  let cursor = all.body.data.nextCursor;
  let last = 0;
  for (let page = 0; page < 3; page++) {
    const res: any = await board(s.agent.token, `limit=1000&cursor=${encodeURIComponent(cursor)}`);
    assert.ok(res.body.data.tickets[0].number > last);
    last = res.body.data.tickets.at(-1).number;
    cursor = res.body.data.nextCursor;
  }
});

test("ROLE-014 reading the board needs read:board", async () => {
  const s = await setup();
  const key = await call("POST", `/admin/projects/${s.projectId}/api-keys`, {
    token: "test-admin-token",
    body: { name: "w", agentName: "writer-only", role: "generator", scopes: ["write:ticket"] },
  });
  const res = await board(key.body.data.key);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
});

test("RATE-003 GET /board is a light read costing 1 unit", async () => {
  const s = await setup({ plan: "free" });
  const a = await board(s.agent.token);
  const b = await board(s.agent.token);
  assert.equal(a.body.meta.callsRemaining - b.body.meta.callsRemaining, 1);
});

test("TKT-036 a human-only ticket's nextAction tells agents to wait", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const { db } = await env();
  await db.updateTable("tickets").set({ human_only: true }).where("id", "=", t.id).execute();
  const row = (await board(s.agent.token)).body.data.tickets[0];
  assert.equal(row.humanOnly, true);
  assert.equal(row.nextAction.action, "WAIT");
});
