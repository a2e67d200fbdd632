import assert from "node:assert/strict";
import { call, env, test } from "../helpers/mod.ts";
import { insertSprint } from "../helpers/fixtures.ts";
import { create, setup } from "./_helpers.ts";

async function search(token: string, query: string) {
  return await call("GET", `/search?${query}`, { token });
}

const refs = (res: { body: { data: { results: Array<{ ticketRef: string }> } } }) =>
  res.body.data.results.map((r) => r.ticketRef);

test("TKT-195 GET /search finds tickets by title and description words, best match first", async () => {
  const s = await setup();
  const login = await create(s.agent.token, {
    title: "Login form validation",
    description: "Validate emails",
  });
  const desc = await create(s.agent.token, {
    title: "Form polish",
    description: "The login button looks off",
  });
  await create(s.agent.token, { title: "Billing export", description: "CSV export of invoices" });
  const res = await search(s.agent.token, "q=login");
  assert.equal(res.status, 200);
  assert.deepEqual(refs(res).sort(), [login.ticketRef, desc.ticketRef].sort());
  assert.equal(res.body.data.query, "login");
  assert.equal(typeof res.body.data.results[0].rank, "number");
  assert.deepEqual(res.body.data.pagination, { total: 2, limit: 20, offset: 0, hasMore: false });
  const stemmed = await search(s.agent.token, "q=validating");
  assert.deepEqual(refs(stemmed), [login.ticketRef]);
  assert.match(stemmed.body.data.results[0].snippet ?? "", /\*\*/);
});

test("TKT-195 GET /search supports web-search syntax: phrases, or, exclusion", async () => {
  const s = await setup();
  const a = await create(s.agent.token, { title: "Export invoices to CSV" });
  const b = await create(s.agent.token, { title: "Export users to JSON" });
  await create(s.agent.token, { title: "Import users" });
  assert.deepEqual(refs(await search(s.agent.token, `q=${encodeURIComponent("export -csv")}`)), [
    b.ticketRef,
  ]);
  assert.deepEqual(refs(await search(s.agent.token, `q=${encodeURIComponent('"invoices to csv"')}`)), [
    a.ticketRef,
  ]);
  const either = await search(s.agent.token, `q=${encodeURIComponent("invoices or json")}`);
  assert.deepEqual(refs(either).sort(), [a.ticketRef, b.ticketRef].sort());
});

test("TKT-195 GET /search filters by status and type, hides cancelled, finds a key, and paginates by offset", async () => {
  const s = await setup();
  const bug = await create(s.agent.token, { title: "Crash on save", type: "bug" });
  const feature = await create(s.agent.token, { title: "Save drafts", type: "feature" });
  const cancelled = await create(s.agent.token, { title: "Save as PDF" });
  const { db } = await env();
  await db.updateTable("tickets").set({ status: "cancelled" }).where("id", "=", cancelled.id).execute();
  assert.deepEqual(refs(await search(s.agent.token, "q=save&type=bug")), [bug.ticketRef]);
  assert.equal((await search(s.agent.token, "q=save")).body.data.pagination.total, 2);
  assert.equal((await search(s.agent.token, "q=save&include=cancelled")).body.data.pagination.total, 3);
  assert.deepEqual(refs(await search(s.agent.token, "q=save&status=cancelled")), [cancelled.ticketRef]);
  const bad = await search(s.agent.token, "q=save&status=nope");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details.recovery.action, "USE_VALID_STATUS");
  const byKey = await search(s.agent.token, `q=${feature.ticketRef}`);
  assert.equal(refs(byKey)[0], feature.ticketRef);
  const page = await search(s.agent.token, "q=save&limit=1&offset=1");
  assert.equal(page.body.data.results.length, 1);
  assert.deepEqual(page.body.data.pagination, { total: 2, limit: 1, offset: 1, hasMore: false });
});

test("TKT-195 GET /search needs q of 2 to 200 characters and limit 1 to 100", async () => {
  const s = await setup();
  for (const q of ["q=a", "", `q=${"a".repeat(201)}`, "q=ab&limit=0", "q=ab&limit=101"]) {
    const res = await search(s.agent.token, q);
    assert.equal(res.status, 400, q);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  assert.equal((await search(s.agent.token, "q=ab&limit=100")).status, 200);
});

test("TKT-195 GET /search never returns another project's tickets", async () => {
  const a = await setup();
  const b = await setup();
  await create(b.agent.token, { title: "Secret roadmap item" });
  const res = await search(a.agent.token, "q=roadmap");
  assert.deepEqual(res.body.data.results, []);
});

test("RATE-006 GET /search costs 3 units", async () => {
  const s = await setup({ plan: "free" });
  const x = await search(s.agent.token, "q=anything");
  const y = await search(s.agent.token, "q=anything");
  assert.equal(x.body.meta.callsRemaining - y.body.meta.callsRemaining, 3);
});

test("TKT-195 GET /search filters by sprintId; a malformed one answers 400 with LIST_SPRINTS", async () => {
  const s = await setup();
  const sprintId = await insertSprint(s.projectId);
  const inSprint = await create(s.agent.token, { title: "Sprint widget", sprintId });
  await create(s.agent.token, { title: "Backlog widget" });
  assert.deepEqual(refs(await search(s.agent.token, `q=widget&sprintId=${sprintId}`)), [inSprint.ticketRef]);
  const bad = await search(s.agent.token, "q=widget&sprintId=S1");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details.recovery.action, "LIST_SPRINTS");
});
