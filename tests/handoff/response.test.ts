import assert from "node:assert/strict";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import { insertLedgerEntry, insertTicket, setBrief } from "../helpers/fixtures.ts";
import { handOff, LOOP_TICKET, ready } from "./fixtures.ts";

const ACTIONS = [
  "PICK_TICKET",
  "RESUME_WORK",
  "REQUEST_BRIEF",
  "CREATE_TICKETS",
  "PROJECT_COMPLETE",
  "ALL_DONE",
  "WAIT",
  "ASSIST",
];

test("HAND-042 the response has ok, modulesDone, ticketAdvanced and nextAction { action, message }", async () => {
  const r = await ready({ reviewMode: "light" });
  const res = await handOff(r, { moduleName: "auth" });
  assert.equal(res.status, 200, res.text);
  const data = res.body.data;
  assert.equal(data.ok, true);
  assert.equal(data.modulesDone, 1);
  assert.equal(data.ticketAdvanced, true);
  assert.equal(typeof data.nextAction.message, "string");
  assert.ok(ACTIONS.includes(data.nextAction.action));
  // modulesDone counts distinct module names of the project.
  const second = await pairAgent(r.projectId);
  await insertLedgerEntry(r.projectId, {
    type: "PROGRESS",
    agentId: second.agentId,
    sessionId: second.sessionId,
  });
  const again = await call("POST", "/handoff", {
    token: second.token,
    body: { moduleName: "billing", summary: "s", sessionId: second.sessionId },
  });
  assert.equal(again.body.data.modulesDone, 2);
});

test("HAND-043 nextAction: PICK_TICKET, REQUEST_BRIEF, CREATE_TICKETS, PROJECT_COMPLETE", async () => {
  const pick = await ready({ reviewMode: "light" });
  await insertTicket(pick.projectId, { ...LOOP_TICKET, status: "backlog" });
  assert.equal((await handOff(pick)).body.data.nextAction.action, "PICK_TICKET");

  const brief = await ready({ reviewMode: "light" });
  assert.equal((await handOff(brief)).body.data.nextAction.action, "REQUEST_BRIEF");

  const empty = await ready({ ticket: false });
  await setBrief(empty.projectId, { scope: "x" });
  assert.equal((await handOff(empty)).body.data.nextAction.action, "CREATE_TICKETS");

  const complete = await ready({ reviewMode: "light" });
  await setBrief(complete.projectId, { scope: "x" });
  assert.equal((await handOff(complete)).body.data.nextAction.action, "PROJECT_COMPLETE");
});

test("HAND-043 nextAction: RESUME_WORK, WAIT, ASSIST, ALL_DONE", async () => {
  const resume = await ready();
  await insertTicket(resume.projectId, { ...LOOP_TICKET, assignee: resume.agent.agentId });
  assert.equal((await handOff(resume)).body.data.nextAction.action, "RESUME_WORK");

  const wait = await ready({ reviewMode: "medium" });
  await setBrief(wait.projectId, { scope: "x" });
  assert.equal((await handOff(wait)).body.data.nextAction.action, "WAIT");

  const assist = await ready({ reviewMode: "light" });
  await setBrief(assist.projectId, { scope: "x" });
  const other = await pairAgent(assist.projectId);
  await insertTicket(assist.projectId, { ...LOOP_TICKET, assignee: other.agentId });
  assert.equal((await handOff(assist)).body.data.nextAction.action, "ASSIST");

  const all = await ready({ reviewMode: "light" });
  await setBrief(all.projectId, { scope: "x" });
  await insertTicket(all.projectId, { ...LOOP_TICKET, status: "backlog", humanOnly: true });
  assert.equal((await handOff(all)).body.data.nextAction.action, "ALL_DONE");
});

test("HAND-044 review appears only when review applies", async () => {
  const medium = await ready({ reviewMode: "medium" });
  const a = (await handOff(medium)).body.data;
  assert.deepEqual(Object.keys(a.review).sort(), [
    "criteriaCount",
    "mode",
    "qaRunId",
    "qaTestCount",
    "required",
    "ticketStatus",
  ]);
  assert.equal(a.review.required, true);
  assert.equal(a.review.mode, "medium");
  const light = await ready({ reviewMode: "light" });
  assert.equal("review" in (await handOff(light)).body.data, false);
  const none = await ready({ ticket: false });
  assert.equal("review" in (await handOff(none)).body.data, false);
});

test("HAND-045 warnings, remediations, suggestions and pullRequest appear only when relevant", async () => {
  const clean = await ready({ claim: false });
  const quiet = await handOff(clean, {
    testResults: "12 passed",
    artifacts: [{ type: "commit", url: "https://git.example.com/c/1" }],
  });
  assert.equal(quiet.status, 200, quiet.text);
  for (const key of ["warnings", "remediations", "suggestions", "pullRequest"]) {
    assert.equal(key in quiet.body.data, false, key);
  }
  const r = await ready({ tested: false });
  const loud = await handOff(r, {
    artifacts: [{ type: "pull_request", url: "https://git.example.com/pr/9", ref: "feat/x", title: "X" }],
  });
  const data = loud.body.data;
  assert.ok(data.warnings.length > 0);
  assert.ok(data.remediations.every((m: Record<string, string>) => m.action && m.endpoint && m.message));
  assert.ok(data.suggestions.length > 0, "testResults missing draws a suggestion");
  assert.deepEqual(data.pullRequest, { url: "https://git.example.com/pr/9", ref: "feat/x", title: "X" });
});

test("HAND-046 HAND-047 no TESTED entry draws a warning and the handoff still succeeds (not guard 5)", async () => {
  for (const mode of ["medium", "strict"]) {
    const r = await ready({ reviewMode: mode, tested: false, claim: false });
    const res = await handOff(r);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.warnings.some((w: string) => /TESTED/.test(w)));
    assert.equal(res.body.data.remediations[0].action, "LOG_TESTED_ENTRY");
    assert.equal(res.body.data.review.ticketStatus, "review");
  }
});

test("HAND-048 a TESTED entry not mentioning verificationCommand warns, unless the command is n/a", async () => {
  const vague = await ready({ tested: "Tests pass", claim: false });
  const a = await handOff(vague);
  assert.equal(a.status, 200);
  assert.ok(a.body.data.warnings.some((w: string) => w.includes("deno test tests/a")));
  const quoted = await ready({ tested: "Ran DENO TEST tests/a: ok", claim: false });
  assert.equal("warnings" in (await handOff(quoted)).body.data, false);
  const na = await ready({ tested: "Checked by hand", ticket: { verificationCommand: "n/a" }, claim: false });
  assert.equal("warnings" in (await handOff(na)).body.data, false);
});

test("HAND-049 an unresolved PR review block draws a warning", async () => {
  const r = await ready({ claim: false });
  const res = await handOff(r, {
    artifacts: [{
      type: "pull_request",
      url: "https://git.example.com/pr/3",
      metadata: { reviewDecision: "CHANGES_REQUESTED" },
    }],
  });
  assert.equal(res.status, 200);
  assert.ok(res.body.data.warnings.some((w: string) => /PR review block/.test(w)));
  const approved = await ready({ claim: false });
  const ok = await handOff(approved, {
    artifacts: [{
      type: "pull_request",
      url: "https://git.example.com/pr/4",
      metadata: { reviewDecision: "APPROVED" },
    }],
  });
  assert.equal("warnings" in ok.body.data, false);
});

test("HAND-050 unlogged work (a released file no entry mentions) draws a warning", async () => {
  const r = await ready({ claim: ["src/a.ts", "src/secret.ts"] });
  const res = await handOff(r);
  assert.equal(res.status, 200);
  const unlogged = res.body.data.warnings.filter((w: string) => /Unlogged work/.test(w));
  assert.equal(unlogged.length, 1);
  assert.match(unlogged[0], /src\/secret\.ts/);
  assert.doesNotMatch(unlogged[0], /src\/a\.ts/, "src/a.ts is mentioned by the PROGRESS entry");
  const logged = await ready({ claim: ["src/a.ts", "src/secret.ts"] });
  await insertLedgerEntry(logged.projectId, {
    type: "CHANGED",
    agentId: logged.agent.agentId,
    sessionId: logged.agent.sessionId,
    fileRef: "src/secret.ts",
  });
  assert.equal("warnings" in (await handOff(logged)).body.data, false);
});

test("HAND-049 a stored pull request with changes requested warns too", async () => {
  const r = await ready({ claim: false });
  const { db, clock } = await env();
  await db.insertInto("ticket_artifacts").values({
    id: crypto.randomUUID(),
    ticket_id: r.ticket!.id,
    type: "pull_request",
    url: "https://git.example.com/pr/5",
    ref: null,
    title: null,
    metadata: JSON.stringify({ reviewDecision: "CHANGES_REQUESTED" }),
    status: "open",
    agent_id: r.agent.agentId,
    created_at: clock.now(),
    updated_at: clock.now(),
  }).execute();
  const res = await handOff(r);
  assert.equal(res.status, 200);
  assert.ok(res.body.data.warnings.some((w: string) => w.includes("https://git.example.com/pr/5")));
  assert.equal(res.body.data.remediations.at(-1).action, "RESOLVE_PR_REVIEW");
});

test("HAND-050 unlogged work compares paths as claims do: an entry naming a held file in another letter case logs it", async () => {
  // Held as SRC/A.ts and Lib/Secret.TS; the PROGRESS entry says "Wrote src/a.ts", a CHANGED entry has
  // fileRef lib/secret.ts: both files are logged (paths that differ only in letter case are one file).
  const r = await ready({ claim: ["SRC/A.ts", "Lib/Secret.TS"] });
  await insertLedgerEntry(r.projectId, {
    type: "CHANGED",
    agentId: r.agent.agentId,
    sessionId: r.agent.sessionId,
    fileRef: "lib/secret.ts",
  });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal("warnings" in res.body.data, false, JSON.stringify(res.body.data.warnings));
  // A held file that no entry names in any case still warns, under its held spelling.
  const other = await ready({ claim: ["SRC/A.ts", "Lib/Other.TS"] });
  const warned = await handOff(other);
  const unlogged = warned.body.data.warnings.filter((w: string) => /Unlogged work/.test(w));
  assert.deepEqual(unlogged, ["Unlogged work: no ledger entry mentions Lib/Other.TS"]);
});
