import assert from "node:assert/strict";
import { sql } from "kysely";
import { openDatabase } from "@/db/dialect.ts";
import { migrateTo, migrateToLatest } from "@/db/migrate.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { handOff, ready } from "../handoff/fixtures.ts";

/** Artifacts recorded twice at once (issue 8, item 4): one row, by the unique index `ticket_artifacts_key`. */

const PR = "https://git.example.com/org/repo/pull/7";

async function artifactRows(ticketId: string) {
  const { db } = await env();
  return await db.selectFrom("ticket_artifacts").selectAll().where("ticket_id", "=", ticketId).execute();
}

async function artifactEvents(projectId: string) {
  const { db } = await env();
  const rows = await db.selectFrom("events").select("kind").where("project_id", "=", projectId)
    .where("kind", "in", ["artifact.added", "artifact.updated"]).execute();
  return rows.map((r) => r.kind);
}

test("TKT-194 ten records of one artifact at once leave one row: one 201, nine 200 updates of it", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const ticket = await insertTicket(projectId, { status: "in_progress", assignee: agent.agentId });
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      call("POST", `/ticket/${ticket.id}/artifacts`, {
        token: agent.token,
        body: { type: "pull_request", url: PR, title: `PR take ${i}` },
      })),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(","));
  assert.equal(statuses.filter((s) => s === 200).length, 9, statuses.join(","));
  const rows = await artifactRows(ticket.id);
  assert.equal(rows.length, 1);
  assert.deepEqual(
    [...new Set(results.map((r) => r.body.data.id))],
    [rows[0]!.id],
    "every answer is that row",
  );
  assert.equal(rows[0]!.status, "open");
  assert.match(rows[0]!.title ?? "", /^PR take \d$/);
  const events = await artifactEvents(projectId);
  assert.deepEqual(events.sort(), ["artifact.added", ...Array(9).fill("artifact.updated")]);
});

test("TKT-194 HAND-002 a handoff and POST /ticket/{id}/artifacts recording one artifact at once leave one row", async () => {
  const r = await ready();
  const [handoff, added] = await Promise.all([
    handOff(r, { artifacts: [{ type: "pull_request", url: PR, title: "From handoff" }] }),
    call("POST", `/ticket/${r.ticket!.id}/artifacts`, {
      token: r.agent.token,
      body: { type: "pull_request", url: PR, title: "From the endpoint" },
    }),
  ]);
  assert.equal(handoff.status, 200, handoff.text);
  // The endpoint call ran before the handoff revoked the token (201 or 200) or after it (401).
  assert.ok([200, 201, 401].includes(added.status), added.text);
  const rows = await artifactRows(r.ticket!.id);
  assert.equal(rows.length, 1);
  assert.ok(["From handoff", "From the endpoint"].includes(rows[0]!.title ?? ""));
  const events = await artifactEvents(r.projectId);
  assert.equal(events.filter((k) => k === "artifact.added").length, 1);
});

test("TKT-194 the same URL as another type, or on another ticket, is another artifact", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const a = await insertTicket(projectId, { status: "in_progress", assignee: agent.agentId });
  const b = await insertTicket(projectId, { status: "in_progress", assignee: agent.agentId });
  const post = (ticketId: string, type: string) =>
    call("POST", `/ticket/${ticketId}/artifacts`, { token: agent.token, body: { type, url: PR } });
  const results = await Promise.all([
    post(a.id, "pull_request"),
    post(a.id, "branch"),
    post(b.id, "pull_request"),
  ]);
  assert.deepEqual(results.map((r) => r.status), [201, 201, 201]);
  assert.equal((await artifactRows(a.id)).length, 2);
  assert.equal((await artifactRows(b.id)).length, 1);
  // A long multi-byte URL (over a btree entry's size as text) is keyed by its hash and stays unique.
  const long = `https://git.example.com/${"ü".repeat(1900)}`;
  const twice = await Promise.all(
    [0, 1].map(() =>
      call("POST", `/ticket/${b.id}/artifacts`, { token: agent.token, body: { type: "branch", url: long } })
    ),
  );
  assert.deepEqual(twice.map((r) => r.status).sort(), [200, 201], twice.map((r) => r.text).join("\n"));
  assert.equal((await artifactRows(b.id)).length, 2);
});

test("TKT-194 migration 0013 removes duplicate artifacts, keeping the oldest, before the unique index", async () => {
  const opened = await openDatabase("memory://", "");
  try {
    const db = opened.db;
    await migrateTo(db, "0011_ticket_activity");
    // Rows the earlier read-then-write could leave: two records of one artifact (and one of another).
    await sql`SET session_replication_role = replica`.execute(db); // no parents needed for this check
    const ticketId = crypto.randomUUID();
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    const row = (id: string, type: "pull_request" | "branch", title: string, created: Date) => ({
      id,
      ticket_id: ticketId,
      type,
      url: PR,
      ref: null,
      title,
      metadata: "{}",
      status: "open",
      agent_id: null,
      created_at: created,
      updated_at: created,
    });
    const oldest = crypto.randomUUID();
    await db.insertInto("ticket_artifacts").values([
      row(crypto.randomUUID(), "pull_request", "newer", at(5)),
      row(oldest, "pull_request", "oldest", at(1)),
      row(crypto.randomUUID(), "pull_request", "newest", at(9)),
      row(crypto.randomUUID(), "branch", "other type", at(2)),
    ]).execute();
    await sql`SET session_replication_role = origin`.execute(db);
    await migrateToLatest(db);
    const rows = await db.selectFrom("ticket_artifacts").select(["id", "type", "title"]).orderBy("type")
      .execute();
    assert.deepEqual(rows.map((r) => [r.type, r.title]), [["branch", "other type"], [
      "pull_request",
      "oldest",
    ]]);
    assert.equal(rows[1]!.id, oldest);
    const dup =
      await sql`INSERT INTO ticket_artifacts (id, ticket_id, type, url, status, created_at, updated_at)
      VALUES (${crypto.randomUUID()}, ${ticketId}, 'pull_request', ${PR}, 'open', now(), now())`.execute(db)
        .then(() => null, (e: Error) => e);
    assert.match(String(dup?.message), /ticket_artifacts_key|duplicate key/);
  } finally {
    await opened.close();
  }
});
