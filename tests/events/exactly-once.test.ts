import assert from "node:assert/strict";
import { recordEvent } from "@/domain/core/record-event.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("CTX-054 a poller following nextCursor sees every event exactly once under concurrent writers", async () => {
  const { db, clock } = await env();
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const WRITERS = 6;
  const PER_WRITER = 15;
  let writing = true;
  let committed = 0;

  const writer = async (w: number) => {
    for (let i = 0; i < PER_WRITER; i++) {
      const rollback = i % 5 === 4;
      try {
        await db.transaction().execute(async (trx) => {
          await recordEvent(trx, {
            projectId,
            kind: "test.concurrent",
            entityType: "test",
            entityId: `${w}-${i}`,
            agentId: null,
            data: { w, i },
            now: clock.now(),
          });
          // Hold the transaction open a little so that commits interleave with polls.
          await sleep(Math.random() * 4);
          if (rollback) throw new Error("rollback on purpose");
        });
        committed++;
      } catch (err) {
        if (!(err instanceof Error) || err.message !== "rollback on purpose") throw err;
      }
    }
  };

  const seen: Array<{ seq: number; entityId: string | null }> = [];
  const poll = async () => {
    let cursor = "";
    const step = async () => {
      const res = await call("GET", `/events?limit=7&kinds=test.${cursor ? `&since=${cursor}` : ""}`, {
        token: agent.token,
      });
      assert.equal(res.status, 200, res.text);
      seen.push(...res.body.data.events);
      cursor = res.body.data.nextCursor;
      return res.body.data.hasMore as boolean;
    };
    while (writing) {
      await step();
      await sleep(1);
    }
    while (await step()) { /* drain */ }
  };

  const poller = poll();
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  writing = false;
  await poller;

  const ids = seen.map((e) => e.entityId);
  assert.equal(new Set(ids).size, ids.length, "no event was delivered twice");
  assert.equal(seen.length, committed, "every committed event was delivered");
  const seqs = seen.map((e) => e.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), "delivered in sequence order");
  const stored = await db.selectFrom("events").select("seq").where("project_id", "=", projectId)
    .orderBy("seq").execute();
  const all = stored.map((r) => Number(r.seq));
  assert.deepEqual(all, Array.from({ length: all.length }, (_, i) => i + 1), "sequence has no holes");
  assert.equal(committed, WRITERS * PER_WRITER - WRITERS * Math.floor(PER_WRITER / 5));
});

test("CTX-054 concurrent route writes (pairing) and polling: exactly once", async () => {
  const { projectId } = await newProject();
  const watcher = await pairAgent(projectId);
  const start = (await call("GET", "/events?kinds=nothing.", { token: watcher.token })).body.data.nextCursor;
  const pairings = Promise.all(Array.from({ length: 6 }, () => pairAgent(projectId)));
  const seen: number[] = [];
  let cursor = start;
  let done = false;
  pairings.finally(() => (done = true));
  while (!done) {
    const res = await call("GET", `/events?since=${cursor}`, { token: watcher.token });
    seen.push(...res.body.data.events.map((e: { seq: number }) => e.seq));
    cursor = res.body.data.nextCursor;
  }
  await pairings;
  for (;;) {
    const res = await call("GET", `/events?since=${cursor}`, { token: watcher.token });
    seen.push(...res.body.data.events.map((e: { seq: number }) => e.seq));
    cursor = res.body.data.nextCursor;
    if (!res.body.data.hasMore) break;
  }
  assert.equal(new Set(seen).size, seen.length);
  assert.ok(seen.length >= 6);
  for (let i = 1; i < seen.length; i++) assert.equal(seen[i], seen[i - 1]! + 1, "contiguous");
});
