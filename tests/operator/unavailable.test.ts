import assert from "node:assert/strict";
import { toJson } from "@/db/tables/types.ts";
import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import { runPendingJobs } from "@/domain/jobs/run.ts";
import { ADMIN_TOKEN, callOn, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

test("connection-level database errors are recognised as unavailable, query errors are not", () => {
  const unavailable = [
    withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
    withCode("read ECONNRESET", "ECONNRESET"),
    withCode("write CONNECTION_CLOSED 127.0.0.1:5432", "CONNECTION_CLOSED"),
    withCode("write CONNECT_TIMEOUT 127.0.0.1:5432", "CONNECT_TIMEOUT"),
    withCode("terminating connection due to administrator command", "57P01"),
    withCode("the database system is starting up", "57P03"),
    withCode("connection failure", "08006"),
    withCode("sorry, too many clients already", "53300"),
    new Error("PGlite is closed"),
    new Error("driver has already been destroyed"),
    new Error("wrapped", { cause: withCode("connect ECONNREFUSED", "ECONNREFUSED") }),
  ];
  for (const err of unavailable) assert.equal(isDatabaseUnavailable(err), true, String(err));
  const refused = [
    withCode("duplicate key value violates unique constraint", "23505"),
    withCode("invalid input syntax for type uuid", "22P02"),
    withCode("deadlock detected", "40P01"),
    new Error("Unexpected failure"),
    "ECONNREFUSED",
    null,
  ];
  for (const err of refused) assert.equal(isDatabaseUnavailable(err), false, String(err));
});

test("with the database gone, an API request answers 503 SERVICE_UNAVAILABLE with RETRY_LATER and Retry-After", async () => {
  const e = await startTestEnv();
  const org = await callOn(e, "POST", "/admin/orgs", { token: ADMIN_TOKEN, body: { name: "Gone" } });
  const project = await callOn(e, "POST", "/admin/projects", {
    token: ADMIN_TOKEN,
    body: { orgId: org.body.data.id, name: "Gone", ticketPrefix: "GON" },
  });
  const code = await callOn(e, "POST", `/admin/projects/${project.body.data.id}/pairing-codes`, {
    token: ADMIN_TOKEN,
    body: {},
  });
  const paired = await callOn(e, "POST", "/pair/connect", {
    body: { code: code.body.data.code, agentName: "gone" },
  });
  assert.equal(paired.status, 200, paired.text);
  const session: string = paired.body.data.sessionToken;
  await e.close();
  for (
    const [method, path, token] of [
      ["GET", "/me", session],
      ["POST", "/ledger", session],
      ["POST", "/admin/orgs", ADMIN_TOKEN],
    ] as const
  ) {
    const res = await callOn(e, method, path, {
      token,
      body: method === "POST" ? { name: "X", type: "PROGRESS", content: "x" } : undefined,
    });
    assert.equal(res.status, 503, `${method} ${path}: ${res.text}`);
    assert.equal(res.body.error.code, "SERVICE_UNAVAILABLE");
    assert.equal(res.body.error.details.recovery.action, "RETRY_LATER");
    assert.ok(Number(res.headers.get("Retry-After")) > 0);
  }
});

test("a job that loses its database connection keeps its attempts; a failing job counts one", async () => {
  const e = await startTestEnv();
  try {
    const jobs = {
      "test.connection-lost": () => {
        throw Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
      },
      "test.broken": () => {
        throw new Error("handler bug");
      },
    };
    const now = e.clock.now();
    const lost = {
      id: crypto.randomUUID(),
      kind: "test.connection-lost",
      payload: toJson({}),
      created_at: now,
    };
    await e.db.insertInto("pending_jobs").values(lost).execute();
    await assert.rejects(runPendingJobs({ db: e.db, clock: e.clock, jobs }), /ECONNRESET/);
    const kept = await e.db.selectFrom("pending_jobs").selectAll().where("id", "=", lost.id)
      .executeTakeFirstOrThrow();
    assert.equal(kept.attempts, 0);
    assert.equal(kept.done_at, null);

    await e.db.deleteFrom("pending_jobs").where("id", "=", lost.id).execute();
    const broken = { id: crypto.randomUUID(), kind: "test.broken", payload: toJson({}), created_at: now };
    await e.db.insertInto("pending_jobs").values(broken).execute();
    await runPendingJobs({ db: e.db, clock: e.clock, jobs }, 1);
    const counted = await e.db.selectFrom("pending_jobs").selectAll().where("id", "=", broken.id)
      .executeTakeFirstOrThrow();
    assert.equal(counted.attempts, 1);
    assert.equal(counted.last_error, "handler bug");
  } finally {
    await e.close();
  }
});
