// Issue 28 over HTTP (no browser): the stylesheet, favicon and labels (COCKPIT-1), the fixes
// (COCKPIT-2), the /docs reference's settings and MCP section (COCKPIT-3), the pictures (COCKPIT-4).
import assert from "node:assert/strict";
import { advanceClock, callOn, env, pairAgent, test } from "../helpers/mod.ts";
import { insertClaim, insertLedgerEntry, insertSprint, insertTicket } from "../helpers/fixtures.ts";
import { toJson } from "@/db/tables/types.ts";
import { TOOLS } from "@/mcp/tools/index.ts";
import { oauthFixture } from "../oauth/helpers.ts";
import { dashFixture } from "./helpers.ts";
import { PageClient } from "./client.ts";

test("COCKPIT-1 one hashed stylesheet served with a long cache and linked from every page; favicons; labels in words", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const dev = await pairAgent(f.projectId, { name: "cockpit-dev" });
  await insertTicket(f.projectId, { title: "Working", status: "in_progress", assignee: dev.agentId });
  const c = new PageClient(e);
  const signin = await c.req("GET", "/");
  const href = /<link rel="stylesheet" href="(\/dashboard\/static\/app\.[0-9a-f]{8}\.css)"/.exec(signin.text)
    ?.[1];
  assert.ok(href, "the sign-in page links the stylesheet");
  assert.doesNotMatch(signin.text, /<style/, "no inline stylesheet");
  const css = await c.req("GET", href);
  assert.equal(css.status, 200);
  assert.match(css.headers.get("content-type")!, /text\/css/);
  assert.match(css.headers.get("cache-control")!, /max-age=31536000.*immutable/);
  assert.match(css.text, /prefers-color-scheme: dark/);
  assert.match(css.text, /system-ui/);
  assert.doesNotMatch(css.text, /@import|url\(\s*["']?https?:/, "no external fonts or assets");
  const ico = await c.req("GET", "/favicon.ico");
  assert.equal(ico.status, 200);
  assert.equal(ico.headers.get("content-type"), "image/x-icon");
  const svg = await c.req("GET", "/favicon.svg");
  assert.match(svg.text, /^<svg/);
  await c.signIn(f.users.admin.email);
  const base = `/projects/${f.projectId}`;
  for (const path of ["/", base, `${base}/claims`, `${base}/agents`, `${base}/ledger`, `${base}/sprints`]) {
    const page = await c.req("GET", path);
    assert.equal(page.status, 200, path);
    assert.ok(page.text.includes(`href="${href}"`), `${path} links the stylesheet`);
    assert.match(page.text, /rel="icon" href="\/favicon.svg"/);
  }
  const board = await c.req("GET", base);
  assert.match(board.text, /<h2>In progress <span class="meta">1<\/span><\/h2>/);
  assert.doesNotMatch(board.text, /<h2>in_progress/);
  // Empty columns collapse into one line instead of taking a lane each.
  assert.match(board.text, /No tickets in:.*Backlog/s);
  assert.doesNotMatch(board.text, /class="column st-backlog"/);
  const projects = await c.req("GET", "/");
  assert.match(projects.text, /<time datetime="[^"]+" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">/);
});

test("COCKPIT-2 review history names the mover; OAuth last seen; compliance explained; ledger hides service CONTEXT notes", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const dev = await pairAgent(f.projectId, { name: "mover-agent" });
  const t = await insertTicket(f.projectId, { title: "Handed off", status: "review", assignee: dev.agentId });
  // A handoff writes { action, agentId, subAgentName } without agentName.
  await e.db.updateTable("tickets").set({
    review_history: toJson([{
      action: "handoff",
      from: "in_progress",
      to: "review",
      agentId: dev.agentId,
      subAgentName: null,
      at: e.clock.now().toISOString(),
    }]),
  }).where("id", "=", t.id).execute();
  const c = new PageClient(e);
  await c.signIn(f.users.admin.email);
  const base = `/projects/${f.projectId}`;
  const ticket = await c.req("GET", `${base}/tickets/${t.key}`);
  assert.match(ticket.text, /In progress → Review by <span data-by="true">mover-agent<\/span>/);
  assert.doesNotMatch(ticket.text, /by \?/);

  const o = await oauthFixture({ userName: "Oauth Person" });
  const token = await o.mint("write");
  const agentSeen = async () =>
    (await e.db.selectFrom("agents").select("last_seen_at").where("project_id", "=", o.projectId)
      .where("platform", "=", "oauth").executeTakeFirstOrThrow()).last_seen_at;
  assert.equal((await callOn(e, "GET", "/api/board", { token })).status, 200);
  const first = await agentSeen();
  assert.ok(first, "an OAuth call marks the agent seen");
  await advanceClock(20_000);
  await callOn(e, "GET", "/api/board", { token });
  assert.equal((await agentSeen())!.getTime(), first.getTime(), "not rewritten within a minute");
  await advanceClock(61_000);
  await callOn(e, "GET", "/api/board", { token });
  assert.ok((await agentSeen())!.getTime() > first.getTime(), "rewritten after a minute");

  await insertClaim(f.projectId, { agentId: dev.agentId, files: ["src/old.ts"], ttlMs: -60_000 });
  const agents = await c.req("GET", `${base}/agents`);
  assert.match(
    agents.text,
    /<details class="explain" data-compliance="\d+"><summary>compliance \d+%<\/summary>/,
  );
  assert.match(agents.text, /No expired claim left held/);
  assert.match(agents.text, /to raise the score: Renew the claims still needed/);

  await insertLedgerEntry(f.projectId, { type: "CONTEXT", source: "system", content: "Service note X1" });
  await insertLedgerEntry(f.projectId, { type: "CONTEXT", agentId: dev.agentId, content: "Agent note X2" });
  await insertLedgerEntry(f.projectId, { type: "DECISION", agentId: dev.agentId, content: "Decision X3" });
  const ledger = await c.req("GET", `${base}/ledger`);
  assert.doesNotMatch(ledger.text, /Service note X1/);
  assert.match(ledger.text, /Agent note X2/);
  assert.match(ledger.text, /The service&#39;s CONTEXT notes are hidden/);
  assert.match((await c.req("GET", `${base}/ledger?context=1`)).text, /Service note X1/);
  assert.match((await c.req("GET", `${base}/ledger?type=CONTEXT`)).text, /Service note X1/);
  const decisions = await c.req("GET", `${base}/ledger?type=DECISION&agent=${dev.agentId}`);
  assert.match(decisions.text, /Decision X3/);
  assert.doesNotMatch(decisions.text, /Agent note X2/);
});

test("COCKPIT-3 /docs turns off the AI agent, Generate MCP, developer tools and CDN fonts, and documents the MCP tools", async () => {
  const e = await env();
  const page = await (await e.fetch("/docs")).text();
  assert.match(page, /<html lang="en">/);
  const config = JSON.parse(/createApiReference\('#app', (\{[\s\S]*?\})\)\s*<\/script>/.exec(page)![1]!);
  assert.equal(config.withDefaultFonts, false);
  assert.equal(config.hideClientButton, true);
  assert.equal(config.showDeveloperTools, "never");
  assert.deepEqual(config.agent, { disabled: true });
  assert.deepEqual(config.mcp, { disabled: true });
  assert.equal(config.telemetry, false);
  const doc = await (await e.fetch(config.url)).json();
  const description: string = doc.info.description;
  assert.match(description, /## MCP server/);
  for (const tool of TOOLS) assert.ok(description.includes(`| \`${tool.name}\` |`), tool.name);
  // /openapi.json itself stays as generated.
  const plain = await (await e.fetch("/openapi.json")).json();
  assert.doesNotMatch(plain.info.description ?? "", /## MCP server/);
});

test("COCKPIT-4 claims map, Hot files, activity timeline and burndown render from seeded data", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const a = await pairAgent(f.projectId, { name: "map-alice" });
  const b = await pairAgent(f.projectId, { name: "map-bob" });
  const now = e.clock.now().getTime();
  await insertClaim(f.projectId, { agentId: a.agentId, files: ["src/api/a.ts", "src/api/b.ts"] });
  await insertClaim(f.projectId, { agentId: b.agentId, files: ["docs/readme.md"] });
  await insertClaim(f.projectId, {
    agentId: b.agentId,
    files: ["src/api/a.ts"],
    claimedAt: new Date(now - 5 * 86_400_000),
    released: true,
  });
  await insertLedgerEntry(f.projectId, {
    type: "TESTED",
    agentId: a.agentId,
    createdAt: new Date(now - 3_600_000),
  });
  const sprintId = await insertSprint(f.projectId, { number: 1, name: "S1" });
  await e.db.updateTable("sprints").set({
    status: "active",
    start_date: new Date(now - 2 * 86_400_000).toISOString().slice(0, 10),
    end_date: new Date(now + 3 * 86_400_000).toISOString().slice(0, 10),
  }).where("id", "=", sprintId).execute();
  for (const [status, points] of [["done", 3], ["in_progress", 5], ["backlog", 2]] as const) {
    const t = await insertTicket(f.projectId, { title: `P${points}`, status, sprintId });
    await e.db.updateTable("tickets").set({ story_points: points }).where("id", "=", t.id).execute();
  }
  const c = new PageClient(e);
  await c.signIn(f.users.member.email);
  const base = `/projects/${f.projectId}`;
  const claims = (await c.req("GET", `${base}/claims`)).text;
  assert.match(claims, /data-picture="claims-map"/);
  assert.match(claims, /<g data-folder="src\/api">/);
  assert.match(claims, /<g data-file="src\/api\/a.ts" data-holder="map-alice">/);
  assert.match(claims, /<g data-file="docs\/readme.md" data-holder="map-bob">/);
  assert.match(claims, /3 claimed files held by 2 holders: map-alice, map-bob/);
  assert.doesNotMatch(claims, /data-queue=|data-release-requests=/, "no queue or release data yet");
  assert.match(claims, /<h2 id="hot-title">Hot files<\/h2>/);
  assert.match(
    claims,
    /<li data-hot-file="src\/api\/a.ts"><code>src\/api\/a.ts<\/code> <span class="meta">2 claims/,
  );
  assert.match(claims, /<li data-contended-file="src\/api\/a.ts">/);
  const agents = (await c.req("GET", `${base}/agents`)).text;
  assert.match(agents, /<h2 id="timeline-title">Activity timeline<\/h2>/);
  assert.match(agents, /<g data-lane="map-alice">/);
  assert.match(agents, /data-kind="claim"/);
  assert.match(agents, /map-alice: Ledger entry TESTED at/);
  const sprint = (await c.req("GET", `${base}/sprints/${sprintId}`)).text;
  assert.match(sprint, /data-picture="burndown"/);
  assert.match(sprint, /data-series="ideal"/);
  assert.match(sprint, /data-series="remaining"/);
  assert.match(sprint, /data-series="points"/);
  assert.match(sprint, /2 tickets \(7 points\) remaining/);
});

test("CLAIMQ-8 the claims map shows each file's wait queue and pending release requests", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const a = await pairAgent(f.projectId, { name: "queue-alice" });
  const b = await pairAgent(f.projectId, { name: "queue-bob" });
  const claimed = await callOn(e, "POST", "/claim", { token: a.token, body: { files: ["src/q.ts"] } });
  assert.equal(claimed.status, 200);
  const waited = await callOn(e, "POST", "/claim", {
    token: b.token,
    body: { files: ["src/q.ts"], waitSeconds: 600 },
  });
  assert.equal(waited.status, 202);
  const asked = await callOn(e, "POST", "/claim/release-requests", {
    token: b.token,
    body: { files: ["src/q.ts"], message: "I need it for the parser" },
  });
  assert.equal(asked.status, 201);
  const c = new PageClient(e);
  await c.signIn(f.users.member.email);
  const claims = (await c.req("GET", `/projects/${f.projectId}/claims`)).text;
  assert.match(claims, /<g data-file="src\/q.ts" data-holder="queue-alice">/);
  assert.match(claims, /data-queue="queue-bob"[^>]*>waiting: queue-bob</);
  assert.match(claims, /data-release-requests="1"[^>]*>release asked by queue-bob</);
});
