// The dashboard over HTTP (no browser): sign-in, CSRF, redirects, 404 across projects, role refusals.
import { countingDb } from "../helpers/counting-db.ts";
import assert from "node:assert/strict";
import { env, pairAgent, test } from "../helpers/mod.ts";
import { startTestEnv, type TestEnv } from "../helpers/env.ts";
import { contractChecked } from "../helpers/contract-check.ts";
import { dashFixture, PASSWORD } from "./helpers.ts";
import { insertSprint, insertSubAgent, insertTicket } from "../helpers/fixtures.ts";
import { toJson } from "@/db/tables/types.ts";
import { BOARD_PAGE_SIZE } from "@/domain/dashboard/board.ts";
import { createApp } from "@/app.ts";

/** A browser-like client: keeps cookies, reads CSRF tokens from pages. */
class Client {
  cookies = new Map<string, string>();
  constructor(readonly e: TestEnv) {}
  async req(
    method: string,
    path: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ) {
    const h: Record<string, string> = { ...headers };
    if (this.cookies.size) h.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body: string | undefined;
    if (form) {
      body = new URLSearchParams(form).toString();
      h["Content-Type"] ??= "application/x-www-form-urlencoded";
    }
    const res = await this.e.fetch(path, { method, headers: h, body: body ?? null, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const [k, v] = pair!.split("=");
      if (/Max-Age=0/i.test(c) || v === "") this.cookies.delete(k!);
      else this.cookies.set(k!, v!);
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  static csrf(html: string): string {
    return /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
  }
  async signIn(email: string, password = PASSWORD) {
    const form = await this.req("GET", "/");
    return await this.req("POST", "/signin", { csrf_token: Client.csrf(form.text), email, password });
  }
}

test("dashboard: signed out, / shows the sign-in form with Email, Password and Sign in, and security headers", async () => {
  const e = await env();
  const res = await new Client(e).req("GET", "/");
  assert.equal(res.status, 200);
  assert.match(res.text, /<label for="email">Email<\/label>/);
  assert.match(res.text, /<label for="password">Password<\/label>/);
  assert.match(res.text, /<button type="submit">Sign in<\/button>/);
  assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.ok(res.headers.get("referrer-policy"));
});

test("dashboard: sign-in sets an HttpOnly SameSite=Lax session cookie; wrong password is 401; sign-out ends it", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const bad = await new Client(e).signIn(f.users.member.email, "wrong password!");
  assert.equal(bad.status, 401);
  assert.match(bad.text, /Email or password is incorrect/);
  const c = new Client(e);
  const ok = await c.signIn(f.users.member.email);
  assert.equal(ok.status, 303);
  const cookie = ok.headers.getSetCookie().find((x) => x.startsWith("svc_session="))!;
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.doesNotMatch(cookie, /Secure/); // http origin in tests
  const home = await c.req("GET", "/");
  assert.match(home.text, new RegExp(`Dash ${f.prefix}`));
  const out = await c.req("POST", "/signout", { csrf_token: Client.csrf(home.text) });
  assert.equal(out.status, 303);
  const after = await c.req("GET", `/projects/${f.projectId}`);
  assert.equal(after.status, 303);
});

test("dashboard: a form post without the CSRF token is refused (403) and changes nothing", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const signInWithout = await new Client(e).req("POST", "/signin", {
    email: f.users.admin.email,
    password: PASSWORD,
  });
  assert.equal(signInWithout.status, 403);
  const c = new Client(e);
  await c.signIn(f.users.admin.email);
  const pair = await c.req("POST", `/projects/${f.projectId}/pair`, {
    role: "generator",
    csrf_token: "forged",
  });
  assert.equal(pair.status, 403);
  assert.doesNotMatch(pair.text, /Pairing code/);
  const outWithout = await c.req("POST", "/signout", {});
  assert.equal(outWithout.status, 403);
  assert.equal((await c.req("GET", `/projects/${f.projectId}`)).status, 200);
});

test("dashboard: signed-out project pages redirect to the sign-in page and come back after sign-in", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const c = new Client(e);
  const res = await c.req("GET", `/projects/${f.projectId}/claims`);
  assert.equal(res.status, 303);
  assert.equal(
    res.headers.get("location"),
    `/?next=${encodeURIComponent(`/projects/${f.projectId}/claims`)}`,
  );
  const form = await c.req("GET", res.headers.get("location")!);
  const signed = await c.req("POST", "/signin", {
    csrf_token: Client.csrf(form.text),
    email: f.users.viewer.email,
    password: PASSWORD,
    next: `/projects/${f.projectId}/claims`,
  });
  assert.equal(signed.headers.get("location"), `/projects/${f.projectId}/claims`);
  const stream = await c.req("GET", `/projects/${f.otherProjectId}/events`);
  assert.equal(stream.status, 404);
});

test("dashboard: a user of another project gets 404 for every page of this project", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const c = new Client(e);
  await c.signIn(f.users.outsider.email);
  for (
    const path of [
      "",
      "/claims",
      "/agents",
      "/threads",
      "/sprints",
      "/ledger",
      "/brief",
      `/tickets/${f.prefix}-1`,
      "/events",
    ]
  ) {
    const res = await c.req("GET", `/projects/${f.projectId}${path}`);
    assert.equal(res.status, 404, path);
  }
  const home = await c.req("GET", "/");
  const post = await c.req("POST", `/projects/${f.projectId}/pair`, {
    csrf_token: Client.csrf(home.text),
    role: "generator",
  });
  assert.equal(post.status, 404);
});

test("dashboard: viewers read but every action is refused (403); members cannot mint codes; admins can", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const viewer = new Client(e);
  await viewer.signIn(f.users.viewer.email);
  const board = await viewer.req("GET", `/projects/${f.projectId}`);
  assert.equal(board.status, 200);
  const csrf = Client.csrf(board.text);
  for (
    const [path, form] of [
      ["/brief", { scope: "x" }],
      ["/pair", { role: "generator" }],
      [`/tickets/${f.prefix}-1/move`, { status: "in_progress" }],
    ] as const
  ) {
    const res = await viewer.req("POST", `/projects/${f.projectId}${path}`, { ...form, csrf_token: csrf });
    assert.equal(res.status, 403, path);
  }
  const member = new Client(e);
  const home = await member.signIn(f.users.member.email).then(() => member.req("GET", "/"));
  const refused = await member.req("POST", `/projects/${f.projectId}/pair`, {
    csrf_token: Client.csrf(home.text),
    role: "generator",
  });
  assert.equal(refused.status, 403);
  const admin = new Client(e);
  await admin.signIn(f.users.admin.email);
  const page = await admin.req("GET", `/projects/${f.projectId}/pair`);
  const minted = await admin.req("POST", `/projects/${f.projectId}/pair`, {
    csrf_token: Client.csrf(page.text),
    role: "generator",
    agentName: "from-dashboard",
  });
  assert.equal(minted.status, 200);
  const code = /id="pairing-code"[^>]*>([A-Z0-9-]+)</.exec(minted.text)?.[1];
  assert.ok(code);
  assert.match(minted.text, /\/api\/pair\/connect/);
});

test("dashboard: every view renders for a member, with agents, tickets, ledger and claims", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const agent = await pairAgent(f.projectId, { name: "worker-1" });
  const admin = new Client(e);
  await admin.signIn(f.users.admin.email);
  const briefPage = await admin.req("GET", `/projects/${f.projectId}/brief`);
  const wrote = await admin.req("POST", `/projects/${f.projectId}/brief`, {
    csrf_token: Client.csrf(briefPage.text),
    expectedVersion: "0",
    scope: "A dashboard test project",
    goals: "Render every view",
    stack: "Deno",
  });
  assert.equal(wrote.status, 303, wrote.text.slice(0, 500));
  const headers = { Authorization: `Bearer ${agent.token}`, "Content-Type": "application/json" };
  const created = await e.fetch("/api/ticket", {
    method: "POST",
    headers,
    body: JSON.stringify({
      title: "Render me <b>",
      description: "d",
      type: "feature",
      acceptanceCriteria: [{ title: "c1" }],
      expectedFiles: ["src/a.ts"],
      doneDefinition: "The page renders the ticket with its fields",
      verificationCommand: "deno test tests/dashboard",
      riskClass: "local",
    }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  const c = new Client(e);
  await c.signIn(f.users.member.email);
  const board = await c.req("GET", `/projects/${f.projectId}`);
  assert.match(board.text, new RegExp(`${f.prefix}-1`));
  assert.match(board.text, /Render me &lt;b&gt;/);
  for (
    const path of [
      "/claims",
      "/agents",
      "/threads",
      "/sprints",
      "/ledger",
      "/brief",
      `/tickets/${f.prefix}-1`,
    ]
  ) {
    const res = await c.req("GET", `/projects/${f.projectId}${path}`);
    assert.equal(res.status, 200, `${path}: ${res.text.slice(0, 300)}`);
  }
  const agents = await c.req("GET", `/projects/${f.projectId}/agents`);
  assert.match(agents.text, /worker-1/);
});

/** Reads SSE events (id and data) from the dashboard stream until `count` arrived, then hangs up. */
async function readEvents(c: Client, path: string, count: number, lastEventId?: string) {
  const abort = new AbortController();
  const headers: Record<string, string> = { Cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
  if (lastEventId) headers["Last-Event-ID"] = lastEventId;
  const res = await c.e.fetch(path, { headers, signal: abort.signal });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: { id: string; seq: number; kind: string }[] = [];
  let buffer = "";
  const deadline = Date.now() + 10_000;
  while (events.length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: ?(.*)$/m.exec(block)?.[1];
      const data = /^data: ?(.*)$/m.exec(block)?.[1];
      if (id && data) events.push({ id, ...JSON.parse(data) });
    }
  }
  await reader.cancel();
  abort.abort();
  return events;
}

test("dashboard: the event stream resumes after Last-Event-ID: nothing missed, nothing repeated", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const agent = await pairAgent(f.projectId, { name: "streamer" });
  const c = new Client(e);
  await c.signIn(f.users.viewer.email);
  const board = await c.req("GET", `/projects/${f.projectId}`);
  const src = /data-events="([^"]+)"/.exec(board.text)?.[1]?.replaceAll("&amp;", "&");
  assert.ok(src?.startsWith(`/projects/${f.projectId}/events?since=`), src);
  for (const intent of ["one", "two", "three"]) {
    const res = await e.fetch("/api/thread", {
      method: "POST",
      headers: { Authorization: `Bearer ${agent.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ intent }),
    });
    assert.equal(res.status, 201);
  }
  const all = await readEvents(c, src!, 3);
  assert.equal(all.length, 3, JSON.stringify(all));
  assert.deepEqual(all.map((x) => x.seq), [...all.map((x) => x.seq)].sort((a, b) => a - b));
  const resumed = await readEvents(c, src!, 2, all[0]!.id);
  assert.deepEqual(resumed.map((x) => x.seq), all.slice(1).map((x) => x.seq), "resumes after the given id");
  const outsider = new Client(e);
  await outsider.signIn(f.users.outsider.email);
  assert.equal((await outsider.req("GET", src!)).status, 404);
  assert.equal((await new Client(e).req("GET", src!)).status, 401);
});

test("dashboard: every action form refuses a missing or forged CSRF token and changes nothing", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const agent = await pairAgent(f.projectId, { name: "csrf-target" });
  const c = new Client(e);
  await c.signIn(f.users.admin.email);
  const base = `/projects/${f.projectId}`;
  const before = await e.db.selectFrom("projects").select("brief_version").where("id", "=", f.projectId)
    .executeTakeFirstOrThrow();
  for (const token of [undefined, "forged", Client.csrf((await new Client(e).req("GET", "/")).text)]) {
    for (
      const [path, form] of [
        ["/brief", { scope: "x", expectedVersion: "0" }],
        [`/agents/${agent.agentId}/revoke`, {}],
        [`/tickets/${f.prefix}-1/move`, { status: "in_progress" }],
        [`/tickets/${f.prefix}-1/approve`, {}],
        [`/claims/${crypto.randomUUID()}/release`, {}],
        ["/pair", { role: "generator" }],
      ] as const
    ) {
      const body: Record<string, string> = { ...form };
      if (token !== undefined) body.csrf_token = token;
      const res = await c.req("POST", base + path, body);
      assert.equal(res.status, 403, `${path} with ${token ?? "no token"}`);
      assert.match(res.text, /This form has expired/);
    }
  }
  const page = await c.req("GET", `${base}/brief`);
  const json = await e.fetch(`${base}/brief`, {
    method: "POST",
    headers: {
      Cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      "Content-Type": "application/json",
    },
    body: JSON.stringify({ csrf_token: Client.csrf(page.text), scope: "x", expectedVersion: "0" }),
  });
  assert.equal(json.status, 403, "only url-encoded forms are read: a JSON body never carries the token");
  const after = await e.db.selectFrom("projects").select("brief_version").where("id", "=", f.projectId)
    .executeTakeFirstOrThrow();
  assert.equal(after.brief_version, before.brief_version);
  const revoked = await e.db.selectFrom("agents").select("status").where("id", "=", agent.agentId)
    .executeTakeFirstOrThrow();
  assert.equal(revoked.status, "active");
});

test("dashboard: the board filters by sprint, assignee and tag, and pages each column", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const dev = await pairAgent(f.projectId, { name: "filter-dev" });
  const sprintId = await insertSprint(f.projectId, { number: 1, name: "S1" });
  const inSprint = await insertTicket(f.projectId, { title: "In the sprint", sprintId });
  const assigned = await insertTicket(f.projectId, {
    title: "Assigned one",
    assignee: dev.agentId,
    status: "claimed",
  });
  const tagged = await insertTicket(f.projectId, { title: "Tagged one" });
  await e.db.updateTable("tickets").set({ tags: toJson(["ui"]) }).where("id", "=", tagged.id).execute();
  for (let i = 0; i < 50; i++) await insertTicket(f.projectId, { title: `Filler ${i}` });
  const c = new Client(e);
  await c.signIn(f.users.viewer.email);
  const base = `/projects/${f.projectId}`;
  const keys = (html: string) => [...html.matchAll(/data-key="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(keys((await c.req("GET", `${base}?sprint=${sprintId}`)).text), [inSprint.key]);
  assert.deepEqual(keys((await c.req("GET", `${base}?assignee=${dev.agentId}`)).text), [assigned.key]);
  assert.deepEqual(keys((await c.req("GET", `${base}?tag=ui`)).text), [tagged.key]);
  assert.deepEqual(keys((await c.req("GET", `${base}?tag=nothing`)).text), []);
  const first = await c.req("GET", base);
  assert.equal(keys(first.text).length, BOARD_PAGE_SIZE + 1, "a page of backlog cards and the claimed one");
  assert.match(first.text, /aria-label="Backlog, 52 tickets"/);
  assert.match(first.text, /Next page/);
  const last = await c.req("GET", `${base}?page=2`);
  assert.deepEqual(keys(last.text), [tagged.key, inSprint.key], "52 = 25 + 25 + 2, newest first");
  assert.doesNotMatch(last.text, /Next page/);
  assert.match(last.text, /Previous page/);
  assert.equal((await c.req("GET", `${base}?sprint=not-a-uuid&assignee=%27&page=-4`)).status, 200);
});

test("dashboard: the agents page shows each identity's compliance score, as GET /context grades it (SUB-024)", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const dev = await pairAgent(f.projectId, { name: "graded" });
  await insertSubAgent(f.projectId, dev.agentId, "scout");
  // In progress for an hour with no ledger entry and no session report: silent, untested.
  const ticket = await insertTicket(f.projectId, {
    title: "Graded work",
    status: "in_progress",
    assignee: dev.agentId,
    statusChangedAt: new Date(e.clock.now().getTime() - 60 * 60_000),
  });
  const c = new Client(e);
  await c.signIn(f.users.viewer.email);
  const shown = async () => {
    const html = (await c.req("GET", `/projects/${f.projectId}/agents`)).text;
    const card = html.slice(html.indexOf('data-agent="graded"'));
    const agent = /data-compliance="(\d+)"/.exec(card)?.[1];
    const sub = /graded\/scout[\s\S]*?data-compliance="(\d+)"/.exec(card)?.[1];
    return { agent: Number(agent), sub: Number(sub) };
  };
  const graded = async () => {
    const res = await e.fetch("/api/context", { headers: { Authorization: `Bearer ${dev.token}` } });
    return (await res.json()).data.complianceScore as number;
  };
  const before = await shown();
  assert.equal(before.agent, await graded());
  assert.ok(before.agent < 50, `a silent, untested identity scores low, got ${before.agent}`);
  // The sub-agent is graded on its own (SUB-024): it is not silent (it holds no work of its own).
  assert.ok(Number.isInteger(before.sub));
  assert.notEqual(before.sub, before.agent);

  const res = await e.fetch("/api/ledger", {
    method: "POST",
    headers: { Authorization: `Bearer ${dev.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ type: "TESTED", content: "deno test: 12 passed", ticketId: ticket.key }),
  });
  assert.equal(res.status, 201, await res.text());
  const after = await shown();
  assert.equal(after.agent, await graded());
  assert.ok(after.agent > before.agent, `${after.agent} > ${before.agent} once tested and no longer silent`);
});

test("dashboard: behind an https origin the session and sign-in cookies are Secure", async () => {
  const e = await startTestEnv({ publicUrl: "https://dash.example.com" });
  try {
    const f = await dashFixture(e);
    const c = new Client(e);
    const form = await c.req("GET", "/");
    assert.match(form.headers.getSetCookie().find((x) => x.startsWith("svc_pre="))!, /; Secure/);
    const ok = await c.signIn(f.users.viewer.email);
    assert.equal(ok.status, 303);
    const cookie = ok.headers.getSetCookie().find((x) => x.startsWith("svc_session="))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /; Secure/);
  } finally {
    await e.close();
  }
});

test("dashboard: no page issues more than a handful of database queries", async () => {
  const e = await env();
  const f = await dashFixture(e);
  const dev = await pairAgent(f.projectId, { name: "counted" });
  await insertSubAgent(f.projectId, dev.agentId, "helper");
  const sprintId = await insertSprint(f.projectId, { number: 1 });
  for (let i = 0; i < 30; i++) {
    await insertTicket(f.projectId, {
      title: `T${i}`,
      status: i % 2 ? "in_progress" : "backlog",
      assignee: dev.agentId,
      sprintId,
    });
  }
  const thread = await e.fetch("/api/thread", {
    method: "POST",
    headers: { Authorization: `Bearer ${dev.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ intent: "counted" }),
  }).then((r) => r.json());
  const counted = countingDb(e.db);
  const counting = createApp({
    db: counted.db,
    engine: e.engine,
    clock: e.clock,
    config: { ...e.config, testClock: false },
  });
  const c = new Client({
    ...e,
    fetch: contractChecked((path: string, init?: RequestInit) =>
      Promise.resolve(counting.fetch(new Request(`http://localhost:8787${path}`, init)))
    ),
  });
  await c.signIn(f.users.admin.email);
  const base = `/projects/${f.projectId}`;
  const counts: Record<string, number> = {};
  for (
    const path of [
      "/",
      base,
      `${base}?assignee=${dev.agentId}&sprint=${sprintId}&tag=x`,
      `${base}/tickets/${f.prefix}-3`,
      `${base}/claims`,
      `${base}/agents`,
      `${base}/threads`,
      `${base}/threads/${thread.data.id}`,
      `${base}/sprints`,
      `${base}/sprints/${sprintId}`,
      `${base}/ledger`,
      `${base}/brief`,
      `${base}/pair`,
    ]
  ) {
    counted.counts.reset();
    const res = await c.req("GET", path);
    assert.equal(res.status, 200, path);
    counts[path.replace(base, "P")] = counted.counts.statements;
  }
  // Session, membership and feed head, then the view's own few reads; never one per ticket or agent.
  for (const [path, n] of Object.entries(counts)) assert.ok(n <= 8, `${path}: ${n} queries`);
});
