import assert from "node:assert/strict";
import { toJson } from "@/db/tables/types.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertSprint, insertTicket, type TicketSpec } from "../helpers/fixtures.ts";

async function ticket(projectId: string, sprintId: string, spec: TicketSpec & { priority?: string }) {
  const t = await insertTicket(projectId, { sprintId, ...spec });
  if (spec.priority) {
    const { db } = await env();
    await db.updateTable("tickets").set({ tags: toJson([`priority:${spec.priority}`]) }).where(
      "id",
      "=",
      t.id,
    )
      .execute();
  }
  return t.key;
}

async function plan(token: string, sprintId: string) {
  const res = await call("GET", `/sprint/${sprintId}/plan`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

const keysOf = (p: { waves: Array<{ tickets: Array<{ key: string }> }> }) =>
  p.waves.map((w) => w.tickets.map((t) => t.key));

test("CLAIMQ-6 waves: priority then key, each ticket in the first wave without overlapping files", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const sprintId = await insertSprint(projectId);
  const t1 = await ticket(projectId, sprintId, { title: "one", expectedFiles: ["src/a.ts", "src/b.ts"] });
  const t2 = await ticket(projectId, sprintId, { title: "two", expectedFiles: ["SRC/A.ts"] });
  const t3 = await ticket(projectId, sprintId, { title: "three", expectedFiles: ["src/c.ts"] });
  const t4 = await ticket(projectId, sprintId, {
    title: "four",
    expectedFiles: ["src/b.ts", "src/c.ts"],
    priority: "critical",
  });
  const t5 = await ticket(projectId, sprintId, { title: "five", expectedFiles: [], priority: "low" });
  await ticket(projectId, sprintId, { title: "done", expectedFiles: ["src/z.ts"], status: "done" });
  await ticket(projectId, sprintId, { title: "gone", expectedFiles: ["src/z.ts"], status: "cancelled" });
  await insertTicket(projectId, { expectedFiles: ["src/y.ts"] }); // not in the sprint

  const first = await plan(a.token, sprintId);
  // t4 (critical) first; t1 overlaps t4 (b.ts); t2 overlaps t1 (a.ts, any case) but not t4; t3 overlaps t4.
  assert.deepEqual(keysOf(first), [[t4, t2, t5], [t1, t3]]);
  assert.deepEqual(first.waves[0].tickets[0], {
    key: t4,
    title: "four",
    priority: "critical",
    expectedFiles: ["src/b.ts", "src/c.ts"],
  });
  assert.deepEqual(first.blockedByClaims, []);
  // Deterministic: the same data gives the same plan.
  assert.deepEqual(await plan(a.token, sprintId), first);
  // No two tickets of one wave overlap.
  for (const wave of first.waves) {
    const files = wave.tickets.flatMap((t: { expectedFiles: string[] }) =>
      t.expectedFiles.map((f) => f.toLowerCase())
    );
    assert.equal(new Set(files).size, files.length);
  }
});

test("CLAIMQ-6 blockedByClaims: tickets whose files other agents hold now, still in their wave", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const sprintId = await insertSprint(projectId);
  const mine = await ticket(projectId, sprintId, { expectedFiles: ["src/mine.ts"], assignee: a.agentId });
  const held = await ticket(projectId, sprintId, { expectedFiles: ["src/held.ts", "src/free.ts"] });
  const own = await ticket(projectId, sprintId, { expectedFiles: ["src/own.ts"] });
  for (
    const [token, files] of [[b.token, ["src/mine.ts", "src/held.ts"]], [a.token, ["src/own.ts"]]] as const
  ) {
    const res = await call("POST", "/claim", { token, body: { files } });
    assert.equal(res.status, 200, res.text);
  }
  const result = await plan(a.token, sprintId);
  assert.deepEqual(keysOf(result), [[mine, held, own]]);
  assert.deepEqual(result.blockedByClaims, [
    { key: mine, files: ["src/mine.ts"], holders: [b.name] },
    { key: held, files: ["src/held.ts"], holders: [b.name] },
  ]);
  // For b, the unassigned ticket whose file b holds is not blocked; the one a holds is.
  const forB = await plan(b.token, sprintId);
  assert.deepEqual(forB.blockedByClaims.map((x: { key: string }) => x.key), [mine, own]);
});

test("CLAIMQ-6 unknown sprint 404, malformed id 400, another project's sprint 404", async () => {
  const { projectId } = await newProject();
  const other = await newProject();
  const a = await pairAgent(projectId);
  const foreign = await insertSprint(other.projectId);
  const missing = await call("GET", `/sprint/${crypto.randomUUID()}/plan`, { token: a.token });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.details.recovery.action, "LIST_SPRINTS");
  assert.equal((await call("GET", `/sprint/${foreign}/plan`, { token: a.token })).status, 404);
  assert.equal((await call("GET", "/sprint/nope/plan", { token: a.token })).status, 400);
  const empty = await plan(a.token, await insertSprint(projectId));
  assert.deepEqual(empty, { waves: [], blockedByClaims: [] });
});
