import assert from "node:assert/strict";
import { call, newProject, pairAgent, test } from "../helpers/mod.ts";

/** Issue 27.3: delta context. `contextCursor` on every answer; `delta=<cursor>` sends the changed sections. */

// deno-lint-ignore no-explicit-any
type Data = Record<string, any>;

async function context(token: string, query = ""): Promise<{ data: Data; bytes: number }> {
  const res = await call("GET", `/context${query}`, { token });
  assert.equal(res.status, 200, res.text);
  return { data: res.body.data, bytes: res.body.meta.responseBytes };
}

/** The previous answer with the delta's changed sections put in: what the caller now holds. */
function merge(previous: Data, delta: Data): Data {
  const { unchangedSections: _u, ...changed } = delta;
  return { ...previous, ...changed };
}

for (const mode of ["full", "compact"] as const) {
  const q = mode === "compact" ? "compact=true&" : "";

  test(`PERF2-2 ${mode}: on an unchanged project the delta sends almost nothing and lists the unchanged sections`, async () => {
    const { projectId } = await newProject();
    const agent = await pairAgent(projectId);
    const first = await context(agent.token, mode === "compact" ? "?compact=true" : "");
    assert.equal(typeof first.data.contextCursor, "string");
    assert.equal(first.data.unchangedSections, undefined, "a full answer has no unchangedSections");
    // Settle what the first call itself changed (updates delivered, what the agent has seen).
    const settled = await context(agent.token, `?${q}delta=${first.data.contextCursor}`);
    const delta = await context(agent.token, `?${q}delta=${settled.data.contextCursor}`);
    const sections = Object.keys(first.data).filter((k) => k !== "contextCursor");
    const sent = Object.keys(delta.data).filter((k) => k !== "contextCursor" && k !== "unchangedSections");
    assert.deepEqual([...sent, ...delta.data.unchangedSections].sort(), [...sections].sort());
    assert.deepEqual(sent, [], `nothing changed, yet sent: ${sent.join(", ")}`);
    assert.equal(delta.data.contextCursor, settled.data.contextCursor, "same state, same cursor");
    assert.ok(
      delta.bytes * (mode === "full" ? 4 : 2) < first.bytes,
      `delta ${delta.bytes} B, whole ${first.bytes} B`,
    );
  });

  test(`PERF2-2 ${mode}: after a change the delta holds exactly the changed sections, and merging it gives the full answer`, async () => {
    const { projectId } = await newProject();
    const agent = await pairAgent(projectId);
    const other = await pairAgent(projectId);
    const base = mode === "compact" ? "?compact=true" : "";
    await context(agent.token, base);
    const before = await context(agent.token, base);
    const write = await call("POST", "/ledger", {
      token: other.token,
      body: { type: "PROGRESS", content: "Use the delta" },
    });
    assert.equal(write.status, 201, write.text);
    const delta = await context(agent.token, `?${q}delta=${before.data.contextCursor}`);
    const after = await context(agent.token, base);
    assert.ok("ledger" in delta.data, "the new entry's section is sent");
    assert.ok("pollingHint" in delta.data, "the feed position moved");
    assert.ok(delta.data.unchangedSections.includes("brief"), "the brief did not change");
    for (const name of delta.data.unchangedSections) {
      assert.deepEqual(before.data[name], after.data[name], `${name} is listed unchanged`);
    }
    assert.deepEqual(merge(before.data, delta.data), after.data);
  });
}

test("PERF2-2 a cursor of another query, another agent, or no cursor at all: every section is sent, never an error", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  const full = await context(agent.token);
  const sections = Object.keys(full.data).filter((k) => k !== "contextCursor").sort();
  const cases = [
    { token: agent.token, query: `?compact=true&delta=${full.data.contextCursor}` },
    { token: other.token, query: `?delta=${full.data.contextCursor}` },
    { token: agent.token, query: "?delta=not-a-cursor" },
  ];
  for (const { token, query } of cases) {
    const delta = await context(token, query);
    assert.deepEqual(delta.data.unchangedSections, [], query);
    const sent = Object.keys(delta.data).filter((k) => k !== "contextCursor" && k !== "unchangedSections");
    if (!query.includes("compact")) assert.deepEqual(sent.sort(), sections, query);
  }
});

test("PERF2-2 since=<contextCursor> asks for the delta as delta= does; an ISO since and an unparseable one keep the spec's meaning", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const first = await context(agent.token);
  const settled = await context(agent.token, `?since=${first.data.contextCursor}`);
  assert.ok(Array.isArray(settled.data.unchangedSections), "since=<cursor> answers with a delta");
  const viaSince = await context(agent.token, `?since=${settled.data.contextCursor}`);
  const viaDelta = await context(agent.token, `?delta=${settled.data.contextCursor}`);
  assert.deepEqual(viaSince.data, viaDelta.data);
  assert.equal(
    viaSince.data.contextCursor,
    settled.data.contextCursor,
    "the cursor of since= is the plain answer's",
  );
  assert.ok(viaSince.data.unchangedSections.includes("ledger"));
  const iso = await context(agent.token, "?since=2020-01-01T00:00:00Z");
  assert.equal(iso.data.unchangedSections, undefined, "an ISO since is the spec's ledger filter");
  assert.ok("ledger" in iso.data);
  for (const bad of ["yesterday", "c1.short", "c2.AAAAAAAA.AAAAAAAA"]) {
    const res = await call("GET", `/context?since=${bad}`, { token: agent.token });
    assert.equal(res.status, 400, `${bad}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});
