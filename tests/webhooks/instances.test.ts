import assert from "node:assert/strict";
import { systemClock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";
import { openDatabase } from "@/db/dialect.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { createOrg, createProject } from "@/domain/operator/operator.ts";
import { deliverDueWebhooks } from "@/domain/webhooks/deliver.ts";
import { createEndpoint } from "@/domain/webhooks/endpoints.ts";
import type { Clock } from "@/clock.ts";
import { startTestEnv } from "../helpers/env.ts";
import { startBackgroundWork } from "@/worker.ts";
import { test } from "../helpers/mod.ts";
import { type Received, receiver } from "./helpers.ts";
import { freePort } from "../helpers/process.ts";

const destinations = { allowLoopback: true };

async function projectWithHook(db: Db, clock: Clock, url: string) {
  const org = await createOrg({ db, clock }, { name: "Org" });
  const project = await createProject({ db, clock }, { orgId: org.id, name: "Hooks", ticketPrefix: "HK" });
  await createEndpoint({ db, clock, destinations }, { projectId: project.id }, { url, events: ["*"] });
  return project.id as string;
}

async function events(db: Db, clock: Clock, projectId: string, n: number) {
  for (let i = 0; i < n; i++) {
    await db.transaction().execute((trx) =>
      recordEvent(trx, {
        projectId,
        kind: "brief.updated",
        entityType: "project",
        entityId: projectId,
        agentId: null,
        data: { i },
        now: clock.now(),
      })
    );
  }
}

/** Each seq once and in order (at-least-once allows a repeat only after a crash, not here). */
function assertOnceInOrder(got: Received[], n: number) {
  const seqs = got.map((r) => r.json.data.seq as number);
  assert.deepEqual(seqs, Array.from({ length: n }, (_, i) => i + 1));
  assert.equal(new Set(got.map((r) => r.headers.get("webhook-id"))).size, n);
}

test("PUSH-3 a receiver down across a service restart: nothing lost, nothing sent twice", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const url = `http://127.0.0.1:${port}/hook`;
  const clock = systemClock();
  const first = await openDatabase(undefined, dir);
  await migrateToLatest(first.db);
  const projectId = await projectWithHook(first.db, clock, url);
  await events(first.db, clock, projectId, 3);
  // The receiver is down: the first delivery fails and holds back the others.
  assert.equal(await deliverDueWebhooks({ db: first.db, clock, destinations }), 1);
  await first.close();

  const got: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (req) => {
    const body = await req.text();
    got.push({ headers: req.headers, body, json: JSON.parse(body) });
    return new Response(null, { status: 200 });
  });
  const again = await openDatabase(undefined, dir);
  try {
    const later = systemClock();
    later.advance(10_000);
    for (let i = 0; i < 20 && got.length < 3; i++) {
      await deliverDueWebhooks({ db: again.db, clock: later, destinations });
    }
    await deliverDueWebhooks({ db: again.db, clock: later, destinations });
    assertOnceInOrder(got, 3);
  } finally {
    await again.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

const pg = Deno.env.get("TEST_DATABASE_URL");

test("PUSH-3 two instances on one PostgreSQL deliver each event once per endpoint, in order", async () => {
  const e = await startTestEnv({ webhookAllowLoopback: true });
  const other = await openDatabase(e.config.databaseUrl, "");
  const rx = receiver(async () => {
    await new Promise((r) => setTimeout(r, 5));
    return 200;
  });
  try {
    const projectId = await projectWithHook(e.db, e.clock, rx.url);
    const second = await projectWithHook(e.db, e.clock, rx.url);
    await events(e.db, e.clock, projectId, 15);
    await events(e.db, e.clock, second, 15);
    const run = async (db: Db) => {
      for (let i = 0; i < 200 && rx.got.length < 30; i++) {
        await deliverDueWebhooks({ db, clock: e.clock, destinations }, 5);
      }
    };
    await Promise.all([run(e.db), run(other.db)]);
    assert.equal(rx.got.length, 30);
    for (const p of [projectId, second]) {
      assertOnceInOrder(rx.got.filter((r) => r.json.data.projectId === p), 15);
    }
  } finally {
    await rx.close();
    await other.close();
    await e.close();
  }
}, { ignore: !pg, reason: "needs TEST_DATABASE_URL" });

test("PUSH-3 the background worker delivers due work on its timer (no request needed)", async () => {
  const e = await startTestEnv({ webhookAllowLoopback: true });
  const rx = receiver();
  const stop = startBackgroundWork({ db: e.db, clock: e.clock, webhookAllowLoopback: true }, 50);
  try {
    const projectId = await projectWithHook(e.db, e.clock, rx.url);
    await events(e.db, e.clock, projectId, 2);
    for (let i = 0; i < 200 && rx.got.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    assertOnceInOrder(rx.got, 2);
  } finally {
    await stop();
    await rx.close();
    await e.close();
  }
});
