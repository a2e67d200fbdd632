import assert from "node:assert/strict";
import { admin, ADMIN_TOKEN, call, pairAgent, test } from "../helpers/mod.ts";
import { ticketRow } from "../helpers/fixtures.ts";
import { handOff, ready, sessionRow } from "../handoff/fixtures.ts";
import { ClaimCoverage } from "@/dashboard/pages.tsx";

async function claim(token: string, files: string[]) {
  const res = await call("POST", "/claim", { token, body: { files } });
  assert.equal(res.status, 200, res.text);
  return res.body.data.claims as { file: string; fence: number }[];
}

test("PROOF-4 coverage: covered, uncovered and released-during-session files; stored with the review handoff and shown to the evaluator", async () => {
  const r = await ready({ reviewMode: "medium", claim: false });
  const [a] = await claim(r.agent.token, ["src/a.ts"]);
  await claim(r.agent.token, ["src/b.ts"]);
  const released = await call("POST", "/release", { token: r.agent.token, body: { files: ["src/b.ts"] } });
  assert.deepEqual(released.body.data.released, ["src/b.ts"]);
  const res = await handOff(r, {
    changedFiles: [{ file: "src/a.ts", fence: a!.fence }, "./SRC/b.ts", "src/c.ts"],
  });
  assert.equal(res.status, 200, res.text);
  const expected = { covered: ["src/a.ts", "SRC/b.ts"], uncovered: ["src/c.ts"], ratio: 0.6667 };
  assert.deepEqual(res.body.data.coverage, expected);
  assert.ok(res.body.data.warnings.some((w: string) => w.includes("never claimed: src/c.ts")), res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");

  const ticket = await call("GET", `/ticket?id=${r.ticket!.id}`, {
    token: (await pairAgent(r.projectId)).token,
  });
  assert.equal(ticket.status, 200, ticket.text);
  assert.deepEqual(ticket.body.data.reviewHandoff.coverage, expected);

  const evaluator = await pairAgent(r.projectId, { role: "evaluator" });
  const context = await call("GET", "/context", { token: evaluator.token });
  assert.equal(context.status, 200, context.text);
  const row = context.body.data.pendingReviews.find((p: { ticketId: string }) => p.ticketId === r.ticket!.id);
  assert.deepEqual(row.coverage, expected);
});

test("PROOF-4 without changedFiles the handoff answers as before (no coverage)", async () => {
  const r = await ready({ reviewMode: "medium" });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.coverage, undefined);
  assert.equal((await ticketRow(r.ticket!.id)).review_handoff?.coverage, undefined);
});

test("PROOF-4 requireClaimCoverage: 409 COVERAGE_INCOMPLETE, session open, ticket in progress; claimed, the handoff goes through", async () => {
  const r = await ready({ reviewMode: "medium", claim: ["src/a.ts"] });
  await admin("PATCH", `/projects/${r.projectId}`, { settings: { requireClaimCoverage: true } });
  const project = await call("GET", `/admin/projects/${r.projectId}`, { token: ADMIN_TOKEN });
  assert.equal(project.body.data.settings.requireClaimCoverage, true, project.text);

  const refused = await handOff(r, { changedFiles: ["src/a.ts", "src/z.ts"] });
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "COVERAGE_INCOMPLETE");
  assert.deepEqual(refused.body.error.details.files, ["src/z.ts"]);
  assert.equal(refused.body.error.details.recovery.action, "CLAIM_FILES");
  assert.deepEqual(refused.body.error.details.recovery.payloadHint, { files: ["src/z.ts"] });
  assert.equal((await ticketRow(r.ticket!.id)).status, "in_progress");
  assert.equal((await sessionRow(r.agent.sessionId)).status, "active");

  await claim(r.agent.token, ["src/z.ts"]);
  const ok = await handOff(r, { changedFiles: ["src/a.ts", "src/z.ts"] });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.body.data.coverage, { covered: ["src/a.ts", "src/z.ts"], uncovered: [], ratio: 1 });
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");
});

test("PROOF-4 the dashboard's ticket page shows the coverage receipt", async () => {
  const html = String(
    await ClaimCoverage({
      handoff: { summary: "s", coverage: { covered: ["src/a.ts"], uncovered: ["src/<c>.ts"], ratio: 0.5 } },
    }),
  );
  assert.match(html, /Claim coverage/);
  assert.match(html, /50% of the changed files were claimed \(1 of 2\)/);
  assert.match(html, /src\/&lt;c&gt;\.ts/);
  assert.equal(String(await ClaimCoverage({ handoff: { summary: "s" } })), "null");
});
