import assert from "node:assert/strict";
import { sql } from "kysely";
import { admin, call, env, newProject, test } from "../helpers/mod.ts";

test("CLAIM-023 fifty concurrent claims of one file by different agents give exactly one success and 409 for the rest", async () => {
  const { projectId } = await newProject();
  const keys: string[] = [];
  for (let i = 0; i < 50; i++) {
    const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: `racer-${i}` });
    keys.push(key.key);
  }
  const results = await Promise.all(
    keys.map((token) =>
      call("POST", "/claim", {
        token,
        body: { files: ["src/contended.ts", `src/own-${token.slice(-6)}.ts`] },
      })
    ),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
  assert.equal(statuses.filter((s) => s === 409).length, 49, JSON.stringify(statuses));
  for (const r of results.filter((r) => r.status === 409)) {
    assert.equal(r.body.error.code, "CONFLICT");
    assert.equal(r.body.error.details.conflicts[0].file, "src/contended.ts");
  }
  const { db } = await env();
  const live = await db.selectFrom("claim_files").select(sql<number>`count(*)::int`.as("n"))
    .where("project_id", "=", projectId).where("released_at", "is", null).executeTakeFirstOrThrow();
  // One winner: the contended file and the winner's own file; every loser claimed nothing.
  assert.equal(live.n, 2);
  // Invariant: one live holder row for the contended file, and it is the winner's.
  const winner = statuses.indexOf(200);
  const holders = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .innerJoin("agents as a", "a.id", "c.agent_id").select("a.name").where("f.project_id", "=", projectId)
    .where("f.file", "=", "src/contended.ts").where("f.released_at", "is", null).execute();
  assert.deepEqual(holders.map((h) => h.name), [`racer-${winner}`]);
  const check = await call("GET", "/claim/check?files=src/contended.ts", { token: keys[0]! });
  assert.equal(check.status, 200, check.text);
  assert.equal(check.body.data.files[0].available, false);
});

test("CLAIM-023 concurrent overlapping multi-file claims in opposite orders never deadlock into a 500", async () => {
  const { projectId } = await newProject();
  const a = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "left" });
  const b = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "right" });
  const files = Array.from({ length: 10 }, (_, i) => `src/m${i}.ts`);
  const results = await Promise.all([
    call("POST", "/claim", { token: a.key, body: { files } }),
    call("POST", "/claim", { token: b.key, body: { files: [...files].reverse() } }),
  ]);
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
});

test("CLAIM-022 a renewal racing a release answers 409 CONFLICT", async () => {
  const e = await env();
  if (e.engine !== "postgres") return; // PGlite has one connection: no two transactions interleave.
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "renewer" });
  const first = await call("POST", "/claim", { token: key.key, body: { files: ["src/race.ts"] } });
  assert.equal(first.status, 200);
  const row = await e.db.selectFrom("claim_files").select("claim_id").where("project_id", "=", projectId)
    .where("file", "=", "src/race.ts").executeTakeFirstOrThrow();
  let renewal: Promise<{ status: number; body: { error: { code: string } } }> | null = null;
  await e.db.transaction().execute(async (trx) => {
    // Hold the claim row as a release would, let the renewal read it and block on it, then release.
    await trx.selectFrom("claims").select("id").where("id", "=", row.claim_id).forUpdate().execute();
    renewal = call("POST", "/claim", { token: key.key, body: { files: ["src/race.ts"] } });
    await new Promise((r) => setTimeout(r, 300));
    const now = e.clock.now();
    await trx.updateTable("claims").set({ released_at: now }).where("id", "=", row.claim_id).execute();
    await trx.updateTable("claim_files").set({ released_at: now }).where("claim_id", "=", row.claim_id)
      .execute();
  });
  const res = await renewal!;
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, "CONFLICT");
});

test("CLAIM-015 six concurrent overlapping claims by one agent all succeed (an agent is never refused by itself)", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "solo" });
  const results = await Promise.all(
    Array.from(
      { length: 6 },
      (_, i) =>
        call("POST", "/claim", { token: key.key, body: { files: ["solo/common2.ts", `solo/own-${i}.ts`] } }),
    ),
  );
  assert.deepEqual(
    results.map((r) => r.status),
    [200, 200, 200, 200, 200, 200],
    results.map((r) => r.text).join(),
  );
  const { db } = await env();
  const live = await db.selectFrom("claim_files").select("file").where("project_id", "=", projectId)
    .where("released_at", "is", null).execute();
  assert.deepEqual(live.map((r) => r.file).sort(), [
    "solo/common2.ts",
    ...Array.from({ length: 6 }, (_, i) => `solo/own-${i}.ts`),
  ]);
  const check = await call("GET", "/claim/check?files=solo/common2.ts", { token: key.key });
  assert.equal(check.body.data.files[0].isSelf, true);
});

test("CLAIM-015 rounds of eight concurrent claims by one agent sharing a file: every claim succeeds, every round", async () => {
  // Timing-dependent on PostgreSQL (a claim that loses the shared file to its own sibling renews it on the
  // next write), so several rounds.
  for (let round = 0; round < 4; round++) {
    const { projectId } = await newProject();
    const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "solo" });
    const results = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          call("POST", "/claim", { token: key.key, body: { files: [`solo/own-${i}.ts`, "solo/shared.ts"] } }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      Array(8).fill(200),
      `round ${round}: ${results.map((r) => r.text).join("\n")}`,
    );
    const check = await call("GET", "/claim/check?files=solo/shared.ts,solo/own-7.ts", { token: key.key });
    assert.deepEqual(check.body.data.files.map((f: { isSelf: boolean }) => f.isSelf), [true, true]);
  }
});
