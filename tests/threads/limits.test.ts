import assert from "node:assert/strict";
import { advanceClock, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { alignClock } from "../brief/helpers.ts";

const FIVE_MINUTES = 5 * 60_000;

async function fresh() {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await alignClock(FIVE_MINUTES);
  return { projectId, agent };
}

function assertBackpressure(res: { status: number; body: { error: { code: string } }; headers: Headers }) {
  assert.equal(res.status, 429);
  assert.equal(res.body.error.code, "BACKPRESSURE");
  assert.ok(Number(res.headers.get("Retry-After")) >= 1);
}

test("RATE-033 THREAD-040 the 21st new thread within 5 minutes answers 429 BACKPRESSURE", async () => {
  const { agent } = await fresh();
  for (let i = 0; i < 20; i++) {
    assert.equal(
      (await call("POST", "/thread", { token: agent.token, body: { intent: `t${i}` } })).status,
      201,
    );
  }
  assertBackpressure(await call("POST", "/thread", { token: agent.token, body: { intent: "t21" } }));
  await advanceClock(FIVE_MINUTES);
  assert.equal(
    (await call("POST", "/thread", { token: agent.token, body: { intent: "later" } })).status,
    201,
  );
});

test("RATE-034 THREAD-040 the 26th reply within 5 minutes answers 429 BACKPRESSURE", async () => {
  const { agent } = await fresh();
  const id = (await call("POST", "/thread", { token: agent.token, body: { intent: "chat" } })).body.data.id;
  for (let i = 0; i < 25; i++) {
    const res = await call("POST", `/thread/${id}/reply`, { token: agent.token, body: { content: `m${i}` } });
    assert.equal(res.status, 201);
  }
  assertBackpressure(
    await call("POST", `/thread/${id}/reply`, { token: agent.token, body: { content: "m26" } }),
  );
});

test("RATE-035 THREAD-040 the 16th close within 5 minutes answers 429 BACKPRESSURE", async () => {
  const { agent } = await fresh();
  const ids: string[] = [];
  for (let i = 0; i < 16; i++) {
    ids.push((await call("POST", "/thread", { token: agent.token, body: { intent: `c${i}` } })).body.data.id);
  }
  for (let i = 0; i < 10; i++) {
    const res = await call("POST", `/thread/${ids[i]}/close`, { token: agent.token, body: { outcome: "x" } });
    assert.equal(res.status, 200);
  }
  for (let i = 10; i < 15; i++) {
    const res = await call("PATCH", `/thread/${ids[i]}`, { token: agent.token, body: { status: "closed" } });
    assert.equal(res.status, 200);
  }
  assertBackpressure(
    await call("POST", `/thread/${ids[15]}/close`, { token: agent.token, body: { outcome: "x" } }),
  );
  assertBackpressure(
    await call("POST", "/thread/close-bulk", { token: agent.token, body: { outcome: "x", mine: true } }),
  );
});

test("RATE-028 thread budgets are per agent: another agent is not slowed down", async () => {
  const { agent, projectId } = await fresh();
  const other = await pairAgent(projectId);
  for (let i = 0; i < 21; i++) {
    await call("POST", "/thread", { token: agent.token, body: { intent: `t${i}` } });
  }
  assert.equal((await call("POST", "/thread", { token: other.token, body: { intent: "mine" } })).status, 201);
});
