// How tool outcomes become MCP results, through the /mcp endpoint (issue 10, item 3): one JSON block,
// structuredContent with output schemas, upstream errors unchanged with status, reauth on 401, the
// upstream transport failures, and forwarding in HTTP mode (SVC_REST_URL) with the caller's bearer and
// X-Svc-Platform: oauth.
import assert from "node:assert/strict";
import { z } from "@hono/zod-openapi";
import { admin, call, env, test } from "../helpers/mod.ts";
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from "../helpers/env.ts";
import { issueAccessToken } from "@/domain/oauth/access-token.ts";
import { oauthFixture } from "../oauth/helpers.ts";
import { createForward, UpstreamFailure } from "@/mcp/forward.ts";
import { REAUTH_HINT, runTool } from "@/mcp/server.ts";
import type { ToolDefinition } from "@/mcp/types.ts";
import { callTool, mcp, PROTOCOL_VERSION, rpc } from "./http.ts";

interface Upstream {
  url: string;
  requests: { path: string; headers: Headers }[];
  close(): Promise<void>;
}

/** A stand-in REST origin on 127.0.0.1 answering every request with `answer`. */
function upstream(answer: (req: Request) => Response | Promise<Response>): Promise<Upstream> {
  const requests: Upstream["requests"] = [];
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) =>
        resolve({ url: `http://127.0.0.1:${port}`, requests, close: () => server.shutdown() }),
    }, (req) => {
      requests.push({ path: new URL(req.url).pathname, headers: new Headers(req.headers) });
      return answer(req);
    });
  });
}

/**
 * A service whose tool server forwards over HTTP to `restUrl`, and a write token for it. The user,
 * project and key live in this service's own database, as in a split deployment sharing one database:
 * the tool server checks the token there (revocation, organization, membership) before forwarding.
 */
async function splitService(restUrl: string): Promise<{ e: TestEnv; token: string }> {
  const e = await startTestEnv({ restUrl });
  const adminOn = async (path: string, body: unknown) => {
    const res = await e.fetch(`/admin${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`admin ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const org = await adminOn("/orgs", { name: "Split org", plan: "team" });
  const project = await adminOn("/projects", { orgId: org.id, name: "Split project", ticketPrefix: "SPL" });
  const user = await adminOn("/users", {
    email: `split-${crypto.randomUUID().slice(0, 8)}@example.com`,
    password: "correct horse battery staple",
    name: "Split User",
  });
  await adminOn(`/projects/${project.id}/members`, { userId: user.id, role: "member" });
  const token = (await issueAccessToken({ db: e.db, clock: e.clock, publicUrl: e.config.publicUrl }, {
    userId: user.id,
    projectId: project.id,
    orgId: org.id,
    scope: "write",
    clientId: "client-test",
  })).accessToken;
  return { e, token };
}

test("MCP-008 MCP-009 success is one JSON text block of the REST data, with structuredContent when typed", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  const { res, result, block } = await callTool(token, "svc_status");
  assert.equal(res.status, 200);
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
  assert.equal(result.isError, undefined);
  assert.deepEqual(result.structuredContent, block, "structuredContent is the same object as the block");
  const rest = await call("GET", "/context?compact=true", { token, headers: { "X-Svc-Platform": "oauth" } });
  assert.equal(block.project.id, rest.body.data.project.id);
  // An array result (svc_tickets) has no output schema: the block alone.
  const tickets = await callTool(token, "svc_tickets");
  assert.ok(Array.isArray(tickets.block));
  assert.equal(tickets.result.structuredContent, undefined);
});

test("MCP-010 a REST failure is isError with the upstream error unchanged plus its status", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  const unknownKey = "ZZ-99999";
  const { res, result, block } = await callTool(token, "svc_ticket_get", { key: unknownKey });
  assert.equal(res.status, 200, "a tool failure is a successful JSON-RPC response");
  assert.equal(result.isError, true);
  assert.equal(result.content.length, 1);
  const rest = await call("GET", `/ticket?key=${unknownKey}`, {
    token,
    headers: { "X-Svc-Platform": "oauth" },
  });
  assert.ok(rest.status >= 400);
  const { status, ...error } = block;
  assert.equal(status, rest.status);
  assert.deepEqual(error, rest.body.error);
});

test("MCP-010 arguments the tool's schema refuses are 400 VALIDATION_ERROR in the JSON block", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  const { result, block } = await callTool(token, "svc_ticket_create", { title: "x".repeat(101) });
  assert.equal(result.isError, true);
  assert.equal(block.code, "VALIDATION_ERROR");
  assert.equal(block.status, 400);
  assert.equal(block.details.target, "arguments");
  assert.ok(block.details.fields.some((f: { path: string }) => f.path === "title"));
  // An unknown tool is a JSON-RPC error, not a tool result.
  const unknown = await mcp(rpc("tools/call", { name: "svc_nope", arguments: {} }), {
    token,
    headers: { "MCP-Protocol-Version": PROTOCOL_VERSION },
  });
  assert.equal(unknown.body.error.code, -32602);
});

test("MCP-011 an upstream 401 carries reauth (a suspended organization is refused at /mcp's entry itself)", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  await admin("PATCH", `/orgs/${fixture.orgId}`, { status: "suspended" });
  try {
    // /mcp checks what REST checks: the suspended organization's token is refused before any tool runs.
    const refused = await mcp(rpc("tools/list"), { token });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("WWW-Authenticate") ?? "", /error="invalid_token"/);
  } finally {
    await admin("PATCH", `/orgs/${fixture.orgId}`, { status: "active" });
  }
  // REST refusing the caller after the entry check (here a split deployment's REST origin) carries reauth.
  const error = { code: "UNAUTHORIZED", message: "Invalid, expired or revoked access token" };
  const rest = await upstream(() => Response.json({ error }, { status: 401 }));
  const split = await splitService(rest.url);
  try {
    const { res, result, block } = await callTool(split.token, "svc_status", {}, { on: split.e });
    assert.equal(res.status, 200);
    assert.equal(result.isError, true);
    assert.equal(block.status, 401);
    assert.equal(block.code, "UNAUTHORIZED");
    assert.equal(block.reauth, REAUTH_HINT);
    assert.match(block.reauth, /refresh|reconnect/i);
  } finally {
    await rest.close();
    await split.e.close();
  }
  const other = await callTool(token, "svc_ticket_get", { key: "ZZ-1" });
  assert.equal(other.block.reauth, undefined, "no reauth on other failures");
});

test("MCP-004 MCP-005 HTTP mode (SVC_REST_URL): the caller's bearer and X-Svc-Platform: oauth reach REST", async () => {
  const error = { code: "TICKET_NOT_FOUND", message: "No ticket ZZ-1", details: { key: "ZZ-1" } };
  const rest = await upstream(() => Response.json({ error }, { status: 404 }));
  const { e, token } = await splitService(rest.url);
  try {
    const { result, block } = await callTool(token, "svc_ticket_get", { key: "ZZ-1" }, { on: e });
    assert.equal(result.isError, true);
    assert.deepEqual(block, { ...error, status: 404 });
    assert.equal(rest.requests.length, 1);
    const sent = rest.requests[0]!;
    assert.equal(sent.path, "/api/ticket");
    assert.equal(sent.headers.get("Authorization"), `Bearer ${token}`);
    assert.equal(sent.headers.get("X-Svc-Platform"), "oauth");
  } finally {
    await rest.close();
    await e.close();
  }
});

test("MCP-014 an unreachable REST upstream is 502 UPSTREAM_UNREACHABLE", async () => {
  // A port that was just listening and is now closed.
  const gone = await upstream(() => new Response());
  await gone.close();
  const { e, token } = await splitService(gone.url);
  try {
    const { result, block } = await callTool(token, "svc_ticket_get", { key: "ZZ-1" }, { on: e });
    assert.equal(result.isError, true);
    assert.equal(block.status, 502);
    assert.equal(block.code, "UPSTREAM_UNREACHABLE");
  } finally {
    await e.close();
  }
});

test("MCP-015 a REST answer that is not JSON is UPSTREAM_NON_JSON (502 by design)", async () => {
  const rest = await upstream(() =>
    new Response("<html>Bad gateway</html>", { status: 502, headers: { "Content-Type": "text/html" } })
  );
  const { e, token } = await splitService(rest.url);
  try {
    const { result, block } = await callTool(token, "svc_ticket_get", { key: "ZZ-1" }, { on: e });
    assert.equal(result.isError, true);
    assert.equal(block.code, "UPSTREAM_NON_JSON");
    assert.equal(block.status, 502);
  } finally {
    await rest.close();
    await e.close();
  }
});

test("MCP-012 MCP-013 a REST call that does not answer in time is 504 UPSTREAM_TIMEOUT, write maybe applied", async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  const rest = await upstream(async () => {
    await held;
    return Response.json({ data: {} });
  });
  // The route's forward waits 25 seconds; the mapping is the same with a shorter timer.
  const forward = createForward({ bearer: "t", restUrl: rest.url, timeoutMs: 200 });
  const tool: ToolDefinition = {
    name: "svc_probe",
    title: "Probe",
    description: "A write that hangs",
    input: z.object({}),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: "write",
    run: async (_args, fwd) => {
      await fwd({ method: "POST", path: "/ledger", body: {} });
      return { ok: true, data: {} };
    },
  };
  try {
    const result = await runTool(tool, {}, forward);
    assert.equal(result.isError, true);
    const block = JSON.parse((result.content[0] as { text: string }).text);
    assert.equal(block.status, 504);
    assert.equal(block.code, "UPSTREAM_TIMEOUT");
    assert.match(block.message, /may or may not have been applied/);
  } finally {
    release();
    await rest.close();
  }
});

test("MCP-010 an UpstreamFailure thrown by a tool keeps its code, details and status", async () => {
  const tool: ToolDefinition = {
    name: "svc_probe",
    title: "Probe",
    description: "fails upstream",
    input: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: "read",
    run: () =>
      Promise.reject(new UpstreamFailure(502, "UPSTREAM_UNREACHABLE", "down", { endpoint: "GET /x" })),
  };
  const result = await runTool(tool, {}, () => Promise.reject(new Error("unused")));
  assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), {
    code: "UPSTREAM_UNREACHABLE",
    message: "down",
    details: { endpoint: "GET /x" },
    status: 502,
  });
  await env();
});
