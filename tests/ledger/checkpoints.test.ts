import assert from "node:assert/strict";
import { compactVerify, createLocalJWKSet } from "jose";
import { sql } from "kysely";
import { advanceLedgerChains } from "@/domain/audit/chain.ts";
import { chainHash, GENESIS_HASH } from "@/shared/ledger-chain.ts";
import { toChainEntry } from "@/domain/audit/chain.ts";
import { startBackgroundWork } from "@/worker.ts";
import { ADMIN_TOKEN, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

/** Writes `count` ledger entries of the project straight into the table (as the write path does). */
async function writeEntries(projectId: string, count: number, agentId: string | null = null): Promise<void> {
  const { db, clock } = await env();
  const rows = Array.from({ length: count }, (_, i) => ({
    id: crypto.randomUUID(),
    project_id: projectId,
    type: "PROGRESS" as const,
    content: `step ${i}`,
    agent_id: agentId,
    payload: JSON.stringify({ b: i, a: { z: 1, y: [2, 3] } }),
    created_at: clock.now(),
  }));
  for (let i = 0; i < rows.length; i += 200) {
    // deno-lint-ignore no-explicit-any
    await db.insertInto("ledger_entries").values(rows.slice(i, i + 200) as any).execute();
  }
}

async function runJob(): Promise<void> {
  const { db, clock } = await env();
  await advanceLedgerChains({ db, clock, publicUrl: "http://localhost:8787" });
}

async function readerToken(projectId: string): Promise<string> {
  return (await pairAgent(projectId)).token;
}

test("PUSH-5 the job hash-chains each project's entries in seq order: SHA-256(previous hash + canonical JSON)", async () => {
  const { db } = await env();
  const { projectId } = await newProject();
  const token = await readerToken(projectId);
  await writeEntries(projectId, 7);
  await runJob();
  const entries = await db.selectFrom("ledger_entries").selectAll().where("project_id", "=", projectId)
    .orderBy("seq").execute();
  const chain = await db.selectFrom("ledger_chain").selectAll().where("project_id", "=", projectId)
    .orderBy("entry_seq").execute();
  assert.ok(entries.length >= 7);
  assert.equal(chain.length, entries.length);
  let previous = GENESIS_HASH;
  for (const [i, row] of entries.entries()) {
    const hash = await chainHash(previous, toChainEntry(row));
    assert.equal(chain[i]!.entry_seq, row.seq);
    assert.equal(chain[i]!.hash, hash);
    previous = hash;
  }
  // Fewer than 100 entries and none 10 minutes old: nothing signed yet.
  const res = await call("GET", "/ledger/checkpoints", { token });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data.checkpoints, []);
});

test("PUSH-5 a checkpoint every 100 entries, and 10 minutes after new entries; each JWS verifies with the JWKS", async () => {
  const { projectId } = await newProject();
  const token = await readerToken(projectId);
  const { db } = await env();
  const before = await db.selectFrom("ledger_entries").select(sql<number>`count(*)::int`.as("n"))
    .where("project_id", "=", projectId).executeTakeFirstOrThrow();
  await writeEntries(projectId, 250 - before.n);
  const first = await call("GET", "/ledger/checkpoints", { token });
  assert.equal(first.status, 200);
  const seqs = (await db.selectFrom("ledger_entries").select("seq").where("project_id", "=", projectId)
    .orderBy("seq").execute()).map((r) => Number(r.seq));
  assert.equal(seqs.length, 250);
  assert.deepEqual(first.body.data.checkpoints.map((c: { seq: number }) => c.seq), [seqs[99], seqs[199]]);
  // 50 entries left unsigned; after 10 minutes the next read (or job run) signs them.
  await advanceClock(9 * 60_000);
  const early = await call("GET", "/ledger/checkpoints", { token });
  assert.equal(early.body.data.checkpoints.length, 2);
  await advanceClock(60_000);
  const late = await call("GET", "/ledger/checkpoints", { token });
  const cps = late.body.data.checkpoints;
  assert.deepEqual(cps.map((c: { seq: number }) => c.seq), [seqs[99], seqs[199], seqs[249]]);
  const chainRows = await db.selectFrom("ledger_chain").select(["entry_seq", "hash"])
    .where("project_id", "=", projectId).execute();
  const hashOf = new Map(chainRows.map((r) => [Number(r.entry_seq), r.hash]));
  const jwks = await call("GET", "/api/oauth/jwks");
  const keys = createLocalJWKSet(jwks.body);
  for (const cp of cps) {
    assert.equal(cp.hash, hashOf.get(cp.seq));
    const { payload, protectedHeader } = await compactVerify(cp.jws, keys);
    assert.equal(protectedHeader.alg, "RS256");
    assert.deepEqual(JSON.parse(new TextDecoder().decode(payload)), {
      projectId,
      seq: cp.seq,
      hash: cp.hash,
      signedAt: cp.signedAt,
    });
  }
  // Paging and the scope.
  const page = await call("GET", `/ledger/checkpoints?afterSeq=${seqs[99]}&limit=1`, { token });
  assert.deepEqual(page.body.data.checkpoints.map((c: { seq: number }) => c.seq), [seqs[199]]);
  assert.equal(page.body.data.hasMore, true);
  const key = await call("POST", `/admin/projects/${projectId}/api-keys`, {
    token: ADMIN_TOKEN,
    body: { agentName: "no-ledger", scopes: ["read:tickets"] },
  });
  const refused = await call("GET", "/ledger/checkpoints", { token: key.body.data.key });
  assert.equal(refused.status, 403);
});

/** Serves the test service on a loopback port for a CLI process; returns its URL and a stop function. */
async function serveForCli(): Promise<{ url: string; stop: () => Promise<void> }> {
  const e = await env();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const u = new URL(req.url);
    return e.fetch(u.pathname + u.search, { method: req.method, headers: req.headers });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, stop: () => server.shutdown() };
}

async function cliVerify(url: string, projectId: string): Promise<{ code: number; out: string }> {
  const root = new URL("../../", import.meta.url);
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "scripts/cli.ts",
      "ledger",
      "verify",
      "--project",
      projectId,
    ],
    cwd: root,
    env: { SVC_URL: url, SVC_ADMIN_TOKEN: ADMIN_TOKEN, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  });
  const res = await cmd.output();
  const dec = new TextDecoder();
  return { code: res.code, out: dec.decode(res.stdout) + dec.decode(res.stderr) };
}

/** Runs `statement` on the ledger with its append-only trigger off (what someone with database access can do). */
async function tamper(statement: ReturnType<typeof sql>): Promise<void> {
  const { db } = await env();
  await sql`ALTER TABLE ledger_entries DISABLE TRIGGER ledger_no_update`.execute(db);
  try {
    await statement.execute(db);
  } finally {
    await sql`ALTER TABLE ledger_entries ENABLE TRIGGER ledger_no_update`.execute(db);
  }
}

test("PUSH-5 `cli ledger verify` (a process) passes an intact ledger, then finds an edited row and a deleted row", async () => {
  const { db } = await env();
  const edited = await newProject();
  const deleted = await newProject();
  await writeEntries(edited.projectId, 130);
  await writeEntries(deleted.projectId, 120);
  await runJob();
  const server = await serveForCli();
  try {
    const intact = await cliVerify(server.url, edited.projectId);
    assert.equal(intact.code, 0, intact.out);
    assert.match(intact.out, /OK/);
    assert.match(intact.out, /130 entries recomputed, 1 signed checkpoints verified/);

    const victim = await db.selectFrom("ledger_entries").select(["id", "seq"])
      .where("project_id", "=", edited.projectId).orderBy("seq").offset(41).limit(1)
      .executeTakeFirstOrThrow();
    await tamper(sql`UPDATE ledger_entries SET content = 'rewritten' WHERE id = ${victim.id}`);
    const afterEdit = await cliVerify(server.url, edited.projectId);
    assert.equal(afterEdit.code, 1, afterEdit.out);
    assert.match(afterEdit.out, new RegExp(`first mismatch: entry seq ${victim.seq} .*changed`));

    // Someone who also rewrites the stored hashes is caught by the signed checkpoint.
    await tamper(sql`DELETE FROM ledger_chain WHERE project_id = ${edited.projectId}`);
    const unsigned = await cliVerify(server.url, edited.projectId);
    assert.equal(unsigned.code, 1, unsigned.out);
    assert.match(unsigned.out, /does not match the checkpoint/);

    const gone = await db.selectFrom("ledger_entries").select(["id", "seq"])
      .where("project_id", "=", deleted.projectId).orderBy("seq").offset(7).limit(1)
      .executeTakeFirstOrThrow();
    const okBefore = await cliVerify(server.url, deleted.projectId);
    assert.equal(okBefore.code, 0, okBefore.out);
    await tamper(sql`DELETE FROM ledger_entries WHERE id = ${gone.id}`);
    const afterDelete = await cliVerify(server.url, deleted.projectId);
    assert.equal(afterDelete.code, 1, afterDelete.out);
    assert.match(afterDelete.out, new RegExp(`first mismatch: entry seq ${gone.seq}: missing \\(deleted\\)`));
  } finally {
    await server.stop();
  }
});

test(
  "PUSH-5 an entry that commits after a later seq is still chained in seq order (the job waits for in-flight writes)",
  async () => {
    const { db } = await env();
    const { projectId } = await newProject();
    await writeEntries(projectId, 3);
    await runJob();
    let commit: () => void = () => {};
    const gate = new Promise<void>((resolve) => commit = resolve);
    let inserted: () => void = () => {};
    const insertedNow = new Promise<void>((resolve) => inserted = resolve);
    const slow = db.transaction().execute(async (trx) => {
      await trx.insertInto("ledger_entries").values({
        id: crypto.randomUUID(),
        project_id: projectId,
        type: "PROGRESS",
        content: "slow writer",
        created_at: new Date(),
      }).execute();
      inserted();
      await gate;
    });
    await insertedNow;
    await writeEntries(projectId, 2); // later seqs, committed first
    await runJob(); // must not chain past the uncommitted entry
    commit();
    await slow;
    await runJob();
    const entries = await db.selectFrom("ledger_entries").selectAll().where("project_id", "=", projectId)
      .orderBy("seq").execute();
    const chain = await db.selectFrom("ledger_chain").selectAll().where("project_id", "=", projectId)
      .orderBy("entry_seq").execute();
    assert.deepEqual(chain.map((c) => c.entry_seq), entries.map((e) => e.seq));
    let previous = GENESIS_HASH;
    for (const [i, row] of entries.entries()) {
      previous = await chainHash(previous, toChainEntry(row));
      assert.equal(chain[i]!.hash, previous);
    }
  },
  { ignore: !Deno.env.get("TEST_DATABASE_URL"), reason: "needs TEST_DATABASE_URL (two connections)" },
);

test("PUSH-5 the background worker chains new entries and signs the 10-minute checkpoint by itself", async () => {
  const e = await env();
  const { projectId } = await newProject();
  await writeEntries(projectId, 4);
  const stop = startBackgroundWork({ db: e.db, clock: e.clock, testClock: true }, 50);
  try {
    const chained = async () =>
      (await e.db.selectFrom("ledger_chain").select("entry_seq").where("project_id", "=", projectId)
        .execute())
        .length;
    for (let i = 0; i < 100 && await chained() < 4; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await chained(), 4);
    await advanceClock(10 * 60_000);
    const signed = async () =>
      (await e.db.selectFrom("ledger_checkpoints").select("seq").where("project_id", "=", projectId)
        .execute())
        .length;
    for (let i = 0; i < 100 && await signed() < 1; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await signed(), 1);
  } finally {
    await stop();
  }
});
