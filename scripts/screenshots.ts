// `deno task screenshots`: screenshots of every dashboard view at desktop and phone width, written to
// docs/screenshots/ (linked from the README). Runs the app on an in-memory PGlite on 127.0.0.1, seeds a
// small project through the operator API, the REST API and fixture rows, and drives Debian's chromium
// (never a downloaded browser). Usage: deno task screenshots [output directory]
import { chromium, type Page } from "playwright-core";
import { callOn, env, pairAgent, type TestEnv } from "../tests/helpers/mod.ts";
import { insertClaim, insertLedgerEntry, insertSprint, insertTicket } from "../tests/helpers/fixtures.ts";
import { dashFixture, PASSWORD } from "../tests/dashboard/helpers.ts";
import { CHROMIUM_ARGS, findChromium, serveApp } from "../tests/dashboard/browser.ts";

const OUT = Deno.args[0] ?? "docs/screenshots";
const WIDTHS = { desktop: { width: 1366, height: 800 }, phone: { width: 390, height: 844 } } as const;
const MIN = 60_000;

async function rest(e: TestEnv, token: string, method: string, path: string, body?: unknown) {
  const res = await callOn(e, method, `/api${path}`, { token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body.data;
}

const TICKET = {
  description: "See the acceptance criteria.",
  type: "feature",
  expectedFiles: ["src/dashboard/app.tsx"],
  doneDefinition: "The view renders and its tests pass",
  verificationCommand: "deno test tests/dashboard",
  riskClass: "local" as const,
};

/** A project with agents, a sub-agent, tickets in every column, ledger entries, claims, a thread, a sprint. */
async function seed(e: TestEnv) {
  const f = await dashFixture(e);
  const lead = await pairAgent(f.projectId, { name: "lead", role: "orchestrator" });
  const dev = await pairAgent(f.projectId, { name: "builder-1" });
  const dev2 = await pairAgent(f.projectId, { name: "builder-2", platform: "cursor" });
  const reviewer = await pairAgent(f.projectId, { name: "reviewer", role: "evaluator" });
  await rest(e, lead.token, "PATCH", "/brief", {
    scope: "A web dashboard for the people who oversee the agents",
    goals: "Board, claims and ledger at a glance, live",
    stack: "Deno, Hono JSX, PostgreSQL",
  });
  await rest(e, lead.token, "POST", "/subagent/session", { name: "tests", role: "generator" })
    .catch(() => undefined);
  const now = Date.now();
  const sprintId = await insertSprint(f.projectId, { number: 1, name: "Dashboard" });
  const today = new Date(now).toISOString().slice(0, 10);
  const start = new Date(now - 4 * 86_400_000).toISOString().slice(0, 10);
  const end = new Date(now + 6 * 86_400_000).toISOString().slice(0, 10);
  await e.db.updateTable("sprints").set({
    status: "active",
    start_date: start,
    end_date: end,
    goal: "Ship the dashboard",
  }).where("id", "=", sprintId).execute();
  const created = await rest(e, dev.token, "POST", "/ticket", {
    ...TICKET,
    title: "Board view with filters",
    acceptanceCriteria: [{ title: "Columns of the workflow" }, { title: "Filters by sprint, assignee, tag" }],
  });
  const specs: [string, string, string | null, number][] = [
    ["Sign-in page", "done", dev.agentId, 3],
    ["Projects list", "done", dev2.agentId, 2],
    ["Live claims view", "review", dev.agentId, 0],
    ["Agents and sessions", "in_progress", dev2.agentId, 0],
    ["Threads with messages", "in_progress", dev.agentId, 0],
    ["Burndown chart", "claimed", dev2.agentId, 0],
    ["Ledger feed filters", "backlog", null, 0],
    ["Brief editor", "backlog", null, 0],
    ["Phone layout", "blocked", dev.agentId, 0],
  ];
  for (const [title, status, assignee, daysAgo] of specs) {
    await insertTicket(f.projectId, {
      ...TICKET,
      title,
      status,
      assignee,
      sprintId,
      criteria: [{ title: "It renders" }],
      statusChangedAt: new Date(now - daysAgo * 86_400_000 - (status === "in_progress" ? 45 * MIN : 0)),
    });
  }
  await e.db.updateTable("tickets").set({ sprint_id: sprintId }).where("id", "=", created.id).execute();
  await rest(e, dev.token, "POST", "/ledger", {
    type: "DECISION",
    content: "Server-rendered with Hono JSX; no bundler",
    payload: { rationale: "No build step to maintain", alternatives: ["a single-page app"] },
    ticketId: created.id,
  });
  await rest(e, dev.token, "POST", "/ledger", {
    type: "TESTED",
    content: "deno test tests/dashboard: 8 passed",
    ticketId: created.id,
    payload: { command: "deno test tests/dashboard", passed: 8, failed: 0 },
  });
  await rest(e, dev2.token, "POST", "/ledger", {
    type: "FOUND",
    content: "Claims older than 10 minutes are stale",
  });
  await insertLedgerEntry(f.projectId, {
    type: "BLOCKED",
    content: "Waiting for the SVG font",
    agentId: dev.agentId,
  });
  await rest(e, dev.token, "POST", "/claim", {
    files: ["src/dashboard/pages.tsx", "src/dashboard/views.tsx"],
  });
  await insertClaim(f.projectId, {
    agentId: dev2.agentId,
    files: ["src/dashboard/layout.tsx"],
    claimedAt: new Date(now - 25 * MIN),
    expiresAt: new Date(now + 3 * MIN),
  });
  // dev2 waits for a file dev holds and asks for it: the claims map shows the queue and the request.
  await rest(e, dev2.token, "POST", "/claim", { files: ["src/dashboard/views.tsx"], waitSeconds: 3600 });
  await rest(e, dev2.token, "POST", "/claim/release-requests", {
    files: ["src/dashboard/views.tsx"],
    message: "I need views.tsx for the burndown legend",
  });
  // The last hours of activity, for the timeline; earlier claims of the same files, for "Hot files".
  const agentsByName = [lead, dev, dev2, reviewer];
  const types = ["PROGRESS", "DECISION", "TESTED", "FOUND", "PROGRESS"] as const;
  for (let i = 0; i < 14; i++) {
    const who = agentsByName[i % agentsByName.length]!;
    await insertLedgerEntry(f.projectId, {
      type: types[i % types.length]!,
      content: `Step ${i + 1} of the dashboard work`,
      agentId: who.agentId,
      createdAt: new Date(now - (5 * 60 - i * 21) * MIN),
    });
  }
  for (const [i, file] of ["src/dashboard/views.tsx", "src/dashboard/layout.tsx", "src/app.ts"].entries()) {
    for (const who of [dev, dev2, lead].slice(0, 3 - i)) {
      await insertClaim(f.projectId, {
        agentId: who.agentId,
        files: [file],
        claimedAt: new Date(now - (3 + i) * 86_400_000),
        released: true,
      });
    }
  }
  await insertClaim(f.projectId, { agentId: lead.agentId, files: ["docs/architecture.md", "README.md"] });
  const points = [3, 2, 5, 3, 2, 1, 2, 3, 5];
  const sprintTickets = await e.db.selectFrom("tickets").select("id").where("sprint_id", "=", sprintId)
    .orderBy("number").execute();
  for (const [i, t] of sprintTickets.entries()) {
    await e.db.updateTable("tickets").set({ story_points: points[i % points.length]! }).where("id", "=", t.id)
      .execute();
  }
  const thread = await rest(e, dev.token, "POST", "/thread", { intent: "Should the board page by column?" });
  await rest(e, reviewer.token, "POST", `/thread/${thread.id}/reply`, {
    content: "Yes: 50 cards per column, with a next page link.",
  });
  await rest(e, dev.token, "POST", `/thread/${thread.id}/reply`, { content: "Done in DA-1." });
  return { f, sprintId, ticketKey: created.ticketRef as string, threadId: thread.id as string, today };
}

async function shoot(page: Page, name: string, width: keyof typeof WIDTHS) {
  const path = `${OUT}/${name}-${width}.png`;
  await page.screenshot({ path, fullPage: true });
  console.log(path);
}

async function main() {
  const executablePath = findChromium();
  if (!executablePath) throw new Error("no chromium binary (apt-get install -y chromium)");
  await Deno.mkdir(OUT, { recursive: true });
  const e = await env();
  const server = await serveApp(e);
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    const s = await seed(e);
    const base = `${server.origin}/projects/${s.f.projectId}`;
    const views: [string, string][] = [
      ["projects", `${server.origin}/`],
      ["board", base],
      ["ticket", `${base}/tickets/${s.ticketKey}`],
      ["claims", `${base}/claims`],
      ["agents", `${base}/agents`],
      ["threads", `${base}/threads`],
      ["thread", `${base}/threads/${s.threadId}`],
      ["sprints", `${base}/sprints`],
      ["sprint", `${base}/sprints/${s.sprintId}`],
      ["ledger", `${base}/ledger`],
      ["brief", `${base}/brief`],
    ];
    for (const width of Object.keys(WIDTHS) as (keyof typeof WIDTHS)[]) {
      const context = await browser.newContext({ viewport: WIDTHS[width] });
      const page = await context.newPage();
      await page.goto(`${server.origin}/`);
      await shoot(page, "signin", width);
      await page.getByLabel("Email").fill(s.f.users.admin.email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${server.origin}/`);
      for (const [name, url] of views) {
        await page.goto(url);
        await shoot(page, name, width);
      }
      if (width === "desktop") {
        // The pictures on their own, for the README.
        await page.goto(`${base}/claims`);
        await page.locator('[data-picture="claims-map"]').screenshot({ path: `${OUT}/claims-map.png` });
        console.log(`${OUT}/claims-map.png`);
        await page.goto(`${base}/agents`);
        await page.locator('[data-picture="timeline"]').screenshot({ path: `${OUT}/timeline.png` });
        console.log(`${OUT}/timeline.png`);
      }
      await page.goto(`${base}/pair`);
      await page.getByLabel("Agent name").fill("builder-3");
      await page.getByRole("button", { name: "Mint pairing code" }).click();
      await shoot(page, "pairing-code", width);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.shutdown();
    await e.close();
  }
}

await main();
