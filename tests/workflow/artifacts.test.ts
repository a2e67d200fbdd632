import assert from "node:assert/strict";
import { call, test } from "../helpers/mod.ts";
import { board, ticket } from "./fixtures.ts";

const PR = { type: "pull_request", url: "https://git.example/acme/app/pull/7", ref: "7", title: "Add login" };

test("TKT-194 HAND-001 HAND-002 attach, list and update artifacts", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const created = await call("POST", `/ticket/${t.id}/artifacts`, { token: b.dev.token, body: PR });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.data.status, "open");
  assert.equal(created.body.data.type, "pull_request");
  const commit = await call("POST", `/ticket/${t.id}/artifacts`, {
    token: b.dev.token,
    body: {
      type: "commit",
      url: "https://git.example/acme/app/commit/abc",
      ref: "abc",
      metadata: { files: 3 },
    },
  });
  assert.equal(commit.status, 201);
  assert.equal(commit.body.data.status, "closed");
  assert.deepEqual(commit.body.data.metadata, { files: 3 });
  const repeat = await call("POST", `/ticket/${t.id}/artifacts`, {
    token: b.dev.token,
    body: { ...PR, title: "Add login form" },
  });
  assert.equal(repeat.status, 200, "same type and url updates in place");
  assert.equal(repeat.body.data.id, created.body.data.id);
  const list = await call("GET", `/ticket/${t.id}/artifacts`, { token: b.evaluator.token });
  assert.equal(list.status, 200, list.text);
  assert.equal(list.body.data.total, 2);
  assert.equal(list.body.data.open, 1);
  assert.equal(list.body.data.artifacts[0].title, "Add login form");
  const merged = await call("PATCH", `/ticket/${t.id}/artifacts/${created.body.data.id}`, {
    token: b.dev.token,
    body: { status: "merged" },
  });
  assert.equal(merged.status, 200, merged.text);
  assert.equal(merged.body.data.status, "merged");
});

test("TKT-194 artifact validation and permissions", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const path = `/ticket/${t.id}/artifacts`;
  for (const body of [{ ...PR, type: "image" }, { ...PR, url: "not a url" }, { ...PR, url: "ftp://x/y" }]) {
    assert.equal((await call("POST", path, { token: b.dev.token, body })).status, 400, JSON.stringify(body));
  }
  const big = await call("POST", path, {
    token: b.dev.token,
    body: { ...PR, metadata: { x: "y".repeat(9000) } },
  });
  assert.equal(big.status, 400);
  const stranger = await call("POST", path, { token: b.other.token, body: PR });
  assert.equal(stranger.status, 403);
  const missing = await call("POST", `/ticket/${crypto.randomUUID()}/artifacts`, {
    token: b.dev.token,
    body: PR,
  });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, "TICKET_NOT_FOUND");
  const noArtifact = await call("PATCH", `${path}/${crypto.randomUUID()}`, {
    token: b.dev.token,
    body: { status: "closed" },
  });
  assert.equal(noArtifact.status, 404);
  const empty = await call("PATCH", `${path}/${crypto.randomUUID()}`, { token: b.dev.token, body: {} });
  assert.equal(empty.status, 400);
});
