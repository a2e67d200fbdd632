import assert from "node:assert/strict";
import fc from "fast-check";
import { sql } from "kysely";
import type { Db } from "@/db/database.ts";
import { openDatabase } from "@/db/dialect.ts";
import { migrateTo, migrateToLatest } from "@/db/migrate.ts";
import { type CountKind, countSum, foldCounts, readCounts } from "@/domain/core/project-counts.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertClaim } from "../helpers/fixtures.ts";
import { create, setup } from "../tickets/_helpers.ts";

/**
 * Issue 27.4: the counts kept by trigger (migration 0028) equal a fresh COUNT(*) after any sequence of
 * writes: inserts (one and several rows per statement), moves, assignments, human-only flags, deletes
 * (one and several rows, and an agent's delete that unassigns through its foreign key), thread writes,
 * transactions that commit or roll back, and folds at any point.
 */

const STATUSES = ["backlog", "in_progress", "review", "done", "cancelled", "blocked"] as const;
const THREAD_STATUSES = ["open", "closed"] as const;

/** The counts as COUNT(*) gives them (non-zero keys only). */
async function freshCounts(db: Db, projectId: string): Promise<Record<CountKind, Record<string, number>>> {
  const rows = await sql<{ kind: CountKind; key: string; n: number }>`
    SELECT 'ticket' AS kind, status AS key, count(*)::int AS n FROM tickets WHERE project_id = ${projectId}
      GROUP BY status
    UNION ALL
    SELECT 'pickable', status, count(*)::int FROM tickets WHERE project_id = ${projectId}
      AND assignee_agent_id IS NULL AND NOT human_only GROUP BY status
    UNION ALL
    SELECT 'thread', status, count(*)::int FROM threads WHERE project_id = ${projectId} GROUP BY status`
    .execute(db);
  const out: Record<CountKind, Record<string, number>> = { ticket: {}, pickable: {}, thread: {} };
  for (const r of rows.rows) out[r.kind][r.key] = Number(r.n);
  return out;
}

async function keptCounts(db: Db, projectId: string): Promise<Record<CountKind, Record<string, number>>> {
  const out: Record<CountKind, Record<string, number>> = { ticket: {}, pickable: {}, thread: {} };
  for (const kind of ["ticket", "pickable", "thread"] as const) {
    out[kind] = Object.fromEntries(await readCounts(db, projectId, kind));
  }
  return out;
}

async function assertExact(db: Db, projectId: string, when: string) {
  const fresh = await freshCounts(db, projectId);
  assert.deepEqual(await keptCounts(db, projectId), fresh, when);
  const sums = await sql<{ all: number; review: number; open: number }>`SELECT
    ${countSum(db, projectId, "ticket", null)} AS all,
    ${countSum(db, projectId, "ticket", ["review", "done"])} AS review,
    ${countSum(db, projectId, "thread", ["open"])} AS open`.execute(db);
  const total = (r: Record<string, number>, keys?: string[]) =>
    Object.entries(r).filter(([k]) => !keys || keys.includes(k)).reduce((s, [, n]) => s + n, 0);
  assert.deepEqual(
    { ...sums.rows[0]! },
    {
      all: total(fresh.ticket),
      review: total(fresh.ticket, ["review", "done"]),
      open: total(fresh.thread, ["open"]),
    },
    when,
  );
}

type Op =
  | { op: "insert"; statuses: string[]; assigned: boolean[]; humanOnly: boolean }
  | { op: "move"; pick: number; status: string }
  | { op: "moveAll"; from: string; status: string }
  | { op: "assign"; pick: number; assigned: boolean }
  | { op: "humanOnly"; pick: number; value: boolean }
  | { op: "delete"; pick: number }
  | { op: "deleteStatus"; status: string }
  | { op: "thread"; status: "open" | "closed" }
  | { op: "threadMove"; pick: number; status: "open" | "closed" }
  | { op: "threadDelete"; pick: number }
  | { op: "dropAgent" }
  | { op: "fold" };

const status = fc.constantFrom(...STATUSES);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant("insert" as const),
    statuses: fc.array(status, { minLength: 1, maxLength: 4 }),
    assigned: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    humanOnly: fc.boolean(),
  }),
  fc.record({ op: fc.constant("move" as const), pick: fc.nat(), status }),
  fc.record({ op: fc.constant("moveAll" as const), from: status, status }),
  fc.record({ op: fc.constant("assign" as const), pick: fc.nat(), assigned: fc.boolean() }),
  fc.record({ op: fc.constant("humanOnly" as const), pick: fc.nat(), value: fc.boolean() }),
  fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("deleteStatus" as const), status }),
  fc.record({ op: fc.constant("thread" as const), status: fc.constantFrom(...THREAD_STATUSES) }),
  fc.record({
    op: fc.constant("threadMove" as const),
    pick: fc.nat(),
    status: fc.constantFrom(...THREAD_STATUSES),
  }),
  fc.record({ op: fc.constant("threadDelete" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("dropAgent" as const) }),
  fc.record({ op: fc.constant("fold" as const) }),
);
/** A transaction: its writes, and whether it commits. */
const stepArb = fc.record({ ops: fc.array(opArb, { minLength: 1, maxLength: 4 }), commit: fc.boolean() });

interface World {
  projectId: string;
  agents: string[];
  next: number;
}

async function nth(
  db: Db,
  table: "tickets" | "threads",
  projectId: string,
  pick: number,
): Promise<string | null> {
  const rows = await db.selectFrom(table).select("id").where("project_id", "=", projectId).orderBy("id")
    .execute();
  return rows.length === 0 ? null : rows[pick % rows.length]!.id;
}

async function newAgent(db: Db, projectId: string): Promise<string> {
  const id = crypto.randomUUID();
  await db.insertInto("agents").values({
    id,
    project_id: projectId,
    name: `counted-${id.slice(0, 8)}`,
    role: "generator",
    created_at: new Date(),
  }).execute();
  return id;
}

async function apply(db: Db, w: World, o: Op): Promise<void> {
  const p = w.projectId;
  const now = new Date();
  switch (o.op) {
    case "insert": {
      await db.insertInto("tickets").values(o.statuses.map((s, i) => ({
        id: crypto.randomUUID(),
        project_id: p,
        number: ++w.next,
        title: `Counted ${w.next}`,
        status: s,
        assignee_agent_id: o.assigned[i] && w.agents.length > 0 ? w.agents[0]! : null,
        human_only: o.humanOnly && i === 0,
        status_changed_at: now,
        created_at: now,
        updated_at: now,
      }))).execute();
      return;
    }
    case "move":
    case "assign":
    case "humanOnly": {
      const id = await nth(db, "tickets", p, o.pick);
      if (!id) return;
      const set = o.op === "move"
        ? { status: o.status }
        : o.op === "assign"
        ? { assignee_agent_id: o.assigned && w.agents.length > 0 ? w.agents[0]! : null }
        : { human_only: o.value };
      await db.updateTable("tickets").set(set).where("id", "=", id).execute();
      return;
    }
    case "moveAll":
      await db.updateTable("tickets").set({ status: o.status }).where("project_id", "=", p)
        .where("status", "=", o.from).execute();
      return;
    case "delete": {
      const id = await nth(db, "tickets", p, o.pick);
      if (id) await db.deleteFrom("tickets").where("id", "=", id).execute();
      return;
    }
    case "deleteStatus":
      await db.deleteFrom("tickets").where("project_id", "=", p).where("status", "=", o.status).execute();
      return;
    case "thread":
      await db.insertInto("threads").values({
        id: crypto.randomUUID(),
        project_id: p,
        intent: "counted",
        status: o.status,
        created_at: now,
      }).execute();
      return;
    case "threadMove": {
      const id = await nth(db, "threads", p, o.pick);
      if (id) await db.updateTable("threads").set({ status: o.status }).where("id", "=", id).execute();
      return;
    }
    case "threadDelete": {
      const id = await nth(db, "threads", p, o.pick);
      if (id) await db.deleteFrom("threads").where("id", "=", id).execute();
      return;
    }
    case "dropAgent": {
      // Its tickets become unassigned through the foreign key (ON DELETE SET NULL); a new agent follows.
      const gone = w.agents.shift();
      if (gone) await db.deleteFrom("agents").where("id", "=", gone).execute();
      w.agents.push(await newAgent(db, p));
      return;
    }
    case "fold":
      return;
  }
}

const Rollback = new Error("rollback");

test("PERF2-4 counts kept by trigger equal a fresh COUNT(*) after random ticket and thread writes, transactions and folds", async () => {
  const e = await env();
  const db = e.db;
  await fc.assert(
    fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), async (steps) => {
      const project = await newProject();
      const w: World = {
        projectId: project.projectId,
        agents: [await newAgent(db, project.projectId)],
        next: 0,
      };
      for (const [i, step] of steps.entries()) {
        const folds = step.ops.some((o) => o.op === "fold");
        const before = { agents: [...w.agents], next: w.next };
        await db.transaction().execute(async (trx) => {
          for (const o of step.ops) await apply(trx as unknown as Db, w, o);
          if (!step.commit) throw Rollback;
        }).catch((err) => {
          if (err !== Rollback) throw err;
          Object.assign(w, before);
        });
        if (folds) await foldCounts(db);
        await assertExact(db, w.projectId, `after step ${i}: ${JSON.stringify(step)}`);
      }
      await foldCounts(db);
      await assertExact(db, w.projectId, "after the last fold");
    }),
    { numRuns: 25 },
  );
});

test("PERF2-4 GET /board statusCounts and total, and the context's board summary, stay exact through the API's writes", async () => {
  const s = await setup({ reviewMode: "light" });
  const e = await env();
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, { token: s.agent.token, ...(body === undefined ? {} : { body }) });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body.data;
  };
  const check = async (when: string) => {
    const fresh = await freshCounts(e.db, s.projectId);
    const all = Object.values(fresh.ticket).reduce((sum, n) => sum + n, 0);
    const board = await api("GET", "/board?include=cancelled");
    const nonZero = (r: Record<string, number>) =>
      Object.fromEntries(Object.entries(r).filter(([, n]) => n !== 0));
    assert.deepEqual(nonZero(board.statusCounts), fresh.ticket, when);
    assert.equal(board.total, all, when);
    const open = await api("GET", "/board");
    assert.equal(open.total, all - (fresh.ticket.cancelled ?? 0), when);
    const backlog = await api("GET", "/board?status=backlog");
    assert.deepEqual(backlog.statusCounts, { backlog: fresh.ticket.backlog ?? 0 }, when);
    for (const compact of ["", "?compact=true"]) {
      const ctx = await api("GET", `/context${compact}`);
      assert.deepEqual(ctx.boardSummary.byStatus, fresh.ticket, `${when} (context${compact})`);
      assert.equal(ctx.boardSummary.total, all, `${when} (context${compact})`);
    }
  };
  const tickets = [];
  for (let i = 0; i < 4; i++) tickets.push(await create(s.agent.token, { title: `Counted ${i}` }));
  await check("after POST /ticket x4");
  await api("PATCH", "/ticket", { ticketId: tickets[0].id, action: "claim" });
  await api("PATCH", "/ticket", { ticketId: tickets[1].id, action: "claim" });
  await api("PATCH", "/ticket", { ticketId: tickets[1].id, action: "block" });
  await check("after PATCH /ticket claim and block");
  await api("PATCH", "/ticket", { ticketId: tickets[0].id, action: "release" });
  await api("DELETE", "/ticket", { ticketId: tickets[2].id });
  await check("after PATCH /ticket release and DELETE /ticket");
  const thread = await api("POST", "/thread", { intent: "Counted thread" });
  await api("POST", `/thread/${thread.id}/close`, { outcome: "settled" });
  await check("after POST /thread and its close");
  assert.deepEqual(await keptCounts(e.db, s.projectId), await freshCounts(e.db, s.projectId));
});

test("PERF2-4 migration 0028 backfills the counts of the tickets and threads that exist before it", async () => {
  const e = await env();
  const name = `counts_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  let url = "memory://";
  if (e.engine === "postgres") {
    await sql.raw(`CREATE DATABASE ${name}`).execute(e.db);
    const base = new URL(Deno.env.get("TEST_DATABASE_URL")!);
    base.pathname = `/${name}`;
    url = base.href;
  }
  const opened = await openDatabase(url, "");
  try {
    const db = opened.db;
    await migrateTo(db, "0027_claim_fences");
    await sql`SET session_replication_role = replica`.execute(db); // no parents needed for this check
    const projectId = crypto.randomUUID();
    const now = new Date();
    await db.insertInto("tickets").values(
      ["backlog", "backlog", "done", "review", "backlog"].map((status, i) => ({
        id: crypto.randomUUID(),
        project_id: projectId,
        number: i + 1,
        title: `Before ${i}`,
        status,
        assignee_agent_id: i === 1 ? crypto.randomUUID() : null,
        human_only: i === 4,
        status_changed_at: now,
        created_at: now,
        updated_at: now,
      })),
    ).execute();
    await db.insertInto("threads").values(
      (["open", "closed", "open"] as const).map((status) => ({
        id: crypto.randomUUID(),
        project_id: projectId,
        intent: "before",
        status,
        created_at: now,
      })),
    ).execute();
    await sql`SET session_replication_role = origin`.execute(db);
    await migrateToLatest(db);
    assert.deepEqual(await keptCounts(db, projectId), {
      ticket: { backlog: 3, done: 1, review: 1 },
      pickable: { backlog: 1, done: 1, review: 1 },
      thread: { open: 2, closed: 1 },
    });
  } finally {
    await opened.close();
    if (e.engine === "postgres") await sql.raw(`DROP DATABASE ${name}`).execute(e.db);
  }
});

test("PERF2-4 GET /board collisionWarnings with plain-file claims find expected directories, symbols and other letter cases, and skip closed tickets", async () => {
  const s = await setup();
  const other = await pairAgent(s.projectId);
  const dir = await create(other.token, { assignToSelf: true, expectedFiles: ["src/auth/**"] });
  const symbol = await create(other.token, { assignToSelf: true, expectedFiles: ["lib/x.ts#f"] });
  const upper = await create(other.token, { assignToSelf: true, expectedFiles: ["DOCS/Readme.md"] });
  await create(other.token, { assignToSelf: true, expectedFiles: ["src/elsewhere.ts"] });
  const closed = await create(other.token, { assignToSelf: true, expectedFiles: ["docs/readme.md"] });
  await (await env()).db.updateTable("tickets").set({ status: "done" }).where("id", "=", closed.id).execute();
  await insertClaim(s.projectId, {
    agentId: s.agent.agentId,
    files: ["src/auth/token.ts", "lib/x.ts", "docs/README.md"],
  });
  const res = await call("GET", "/board", { token: s.agent.token });
  assert.equal(res.status, 200, res.text);
  const warnings = res.body.data.collisionWarnings;
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.deepEqual(warnings[0].conflictingFiles, ["DOCS/Readme.md", "lib/x.ts#f", "src/auth/**"]);
  assert.deepEqual(
    warnings[0].tickets.map((t: { ticketRef: string }) => t.ticketRef).sort(),
    [dir, symbol, upper].map((t) => `${s.prefix}-${t.number}`).sort(),
  );
});

test(
  "PERF2-4 two transactions moving tickets of one project in opposite directions do not wait on each other for the counts",
  async () => {
    const e = await env();
    const { projectId } = await newProject();
    const now = new Date();
    const ids = ["backlog", "review", "review", "backlog"].map((status, i) => ({
      id: crypto.randomUUID(),
      project_id: projectId,
      number: i + 1,
      title: `Opposite ${i}`,
      status,
      status_changed_at: now,
      created_at: now,
      updated_at: now,
    }));
    await e.db.insertInto("tickets").values(ids).execute();
    const [a1, a2, b1, b2] = ids.map((t) => t.id) as [string, string, string, string];
    const step1 = Promise.withResolvers<void>();
    const step2 = Promise.withResolvers<void>();
    const move = (trx: Db, id: string, status: string) =>
      trx.updateTable("tickets").set({ status }).where("id", "=", id).execute();
    // A shared counter row per status would make the second transaction wait for the first, which waits
    // for the second: the lock timeout turns that wait into an error here.
    const first = e.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL lock_timeout = '3s'`.execute(trx);
      await move(trx as unknown as Db, a1, "review");
      step1.resolve();
      await step2.promise;
      await move(trx as unknown as Db, a2, "backlog");
    });
    const second = e.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL lock_timeout = '3s'`.execute(trx);
      await step1.promise;
      await move(trx as unknown as Db, b1, "backlog");
      step2.resolve();
      await move(trx as unknown as Db, b2, "review");
    });
    await Promise.all([first, second]);
    assert.deepEqual(await keptCounts(e.db, projectId), await freshCounts(e.db, projectId));
  },
  {
    ignore: !Deno.env.get("TEST_DATABASE_URL"),
    reason: "needs TEST_DATABASE_URL (PGlite has one connection)",
  },
);
