import assert from "node:assert/strict";
import {
  createForward,
  MCP_PLATFORM,
  REST_TIMEOUT_MS,
  restBase,
  UpstreamFailure,
  upstreamOutcome,
} from "@/mcp/forward.ts";
import { toolNamed } from "@/mcp/tools/index.ts";
import { env, test } from "../helpers/mod.ts";
import { appFetch, memberWithBrief } from "./helpers.ts";

/** A loopback HTTP server for one test; `use` runs with its origin, then the server stops. */
async function withServer(
  handler: (request: Request) => Response | Promise<Response>,
  use: (origin: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  try {
    await use(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

async function rejection(promise: Promise<unknown>): Promise<UpstreamFailure> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof UpstreamFailure, `not an UpstreamFailure: ${err}`);
    return err;
  }
  throw new Error("expected a rejection");
}

test("MCP-004 MCP-005 over HTTP: the caller's bearer and X-Svc-Platform: oauth reach REST under /api", async () => {
  const seen: { url: string; auth: string | null; platform: string | null; type: string | null }[] = [];
  let body = "";
  await withServer(async (req) => {
    seen.push({
      url: req.url,
      auth: req.headers.get("Authorization"),
      platform: req.headers.get("X-Svc-Platform"),
      type: req.headers.get("Content-Type"),
    });
    body = await req.text();
    return Response.json({ data: { fine: true }, meta: {} }, { status: 201 });
  }, async (origin) => {
    const forward = createForward({ bearer: "tok-123", restUrl: origin });
    const reply = await forward({
      method: "POST",
      path: "/ledger",
      query: { a: 1, skip: undefined },
      body: { x: 1 },
    });
    assert.deepEqual(reply, { status: 201, body: { data: { fine: true }, meta: {} } });
  });
  assert.equal(seen.length, 1);
  assert.equal(new URL(seen[0]!.url).pathname, "/api/ledger");
  assert.equal(new URL(seen[0]!.url).search, "?a=1");
  assert.equal(seen[0]!.auth, "Bearer tok-123");
  assert.equal(seen[0]!.platform, MCP_PLATFORM);
  assert.equal(MCP_PLATFORM, "oauth");
  assert.equal(seen[0]!.type, "application/json");
  assert.equal(body, '{"x":1}');
});

test("MCP-005 in-process: the app receives the bearer and X-Svc-Platform: oauth", async () => {
  const seen: Request[] = [];
  const forward = createForward({
    bearer: "abc",
    origin: "http://localhost:8787",
    fetch: (req) => {
      seen.push(req);
      return Response.json({ data: [] });
    },
  });
  const reply = await forward({ method: "GET", path: "/sprint" });
  assert.equal(reply.status, 200);
  assert.equal(seen[0]!.url, "http://localhost:8787/api/sprint");
  assert.equal(seen[0]!.headers.get("Authorization"), "Bearer abc");
  assert.equal(seen[0]!.headers.get("X-Svc-Platform"), "oauth");
});

test("SVC_REST_URL: the REST base is {origin}/api (an /api or /svc base is kept as it is)", () => {
  assert.equal(restBase({ restUrl: "https://rest.example.com" }), "https://rest.example.com/api");
  assert.equal(restBase({ restUrl: "https://rest.example.com/" }), "https://rest.example.com/api");
  assert.equal(restBase({ restUrl: "https://rest.example.com/api/" }), "https://rest.example.com/api");
  assert.equal(restBase({ restUrl: "https://rest.example.com/svc" }), "https://rest.example.com/svc");
  assert.equal(restBase({ origin: "http://localhost:8787" }), "http://localhost:8787/api");
  assert.throws(() => createForward({ bearer: "x" }), /in-process|REST URL/);
});

test("MCP-012 MCP-013 a REST call slower than the timeout fails 504 UPSTREAM_TIMEOUT (write may or may not be applied)", async () => {
  assert.equal(REST_TIMEOUT_MS, 25_000);
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  await withServer(async () => {
    await gate;
    return Response.json({ data: {} });
  }, async (origin) => {
    const forward = createForward({ bearer: "t", restUrl: origin, timeoutMs: 150 });
    const started = Date.now();
    const failure = await rejection(forward({ method: "POST", path: "/ledger", body: {} }));
    release();
    assert.ok(Date.now() - started < 5_000);
    assert.equal(failure.status, 504);
    assert.equal(failure.code, "UPSTREAM_TIMEOUT");
    assert.match(failure.message, /may or may not have been applied/);
    const outcome = upstreamOutcome(failure);
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.status, 504);
      assert.equal(outcome.error.code, "UPSTREAM_TIMEOUT");
      assert.equal(typeof outcome.error.message, "string");
    }
  });
});

test("MCP-012 the in-process call times out the same way", async () => {
  const forward = createForward({
    bearer: "t",
    fetch: () => new Promise<Response>(() => {}),
    timeoutMs: 50,
  });
  const failure = await rejection(forward({ method: "PATCH", path: "/ticket", body: {} }));
  assert.equal(failure.status, 504);
  assert.equal(failure.code, "UPSTREAM_TIMEOUT");
});

test("MCP-014 an unreachable REST upstream (closed port) fails 502 UPSTREAM_UNREACHABLE", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const forward = createForward({ bearer: "t", restUrl: `http://127.0.0.1:${port}` });
  const failure = await rejection(forward({ method: "GET", path: "/context" }));
  assert.equal(failure.status, 502);
  assert.equal(failure.code, "UPSTREAM_UNREACHABLE");
  assert.equal(failure.toError().code, "UPSTREAM_UNREACHABLE");
});

test("MCP-014 an in-process app that throws is unreachable too (502)", async () => {
  const forward = createForward({
    bearer: "t",
    fetch: () => Promise.reject(new Error("boom")),
  });
  const failure = await rejection(forward({ method: "GET", path: "/board" }));
  assert.equal(failure.status, 502);
  assert.equal(failure.code, "UPSTREAM_UNREACHABLE");
});

test("MCP-015 a reply that is not JSON fails UPSTREAM_NON_JSON with status 502 (design)", async () => {
  await withServer(
    () => new Response("<html>gateway</html>", { status: 200, headers: { "Content-Type": "text/html" } }),
    async (origin) => {
      const forward = createForward({ bearer: "t", restUrl: origin });
      const failure = await rejection(forward({ method: "GET", path: "/board" }));
      assert.equal(failure.status, 502);
      assert.equal(failure.code, "UPSTREAM_NON_JSON");
      assert.equal(failure.details.upstreamStatus, 200);
      assert.equal(failure.details.contentType, "text/html");
    },
  );
  // A JSON content type with a body that does not parse is refused the same way.
  const forward = createForward({
    bearer: "t",
    fetch: () => new Response("{oops", { status: 500, headers: { "Content-Type": "application/json" } }),
  });
  const failure = await rejection(forward({ method: "GET", path: "/board" }));
  assert.equal(failure.code, "UPSTREAM_NON_JSON");
  assert.equal(failure.details.upstreamStatus, 500);
});

test("MCP-004 SVC_REST_URL: a tool runs against the service over real HTTP with the caller's token", async () => {
  const m = await memberWithBrief();
  const inner = await appFetch();
  const e = await env();
  const platforms: (string | null)[] = [];
  await withServer((req) => {
    platforms.push(req.headers.get("X-Svc-Platform"));
    return inner(req);
  }, async (origin) => {
    const config = { ...e.config, restUrl: origin };
    const forward = createForward({ bearer: m.token, restUrl: config.restUrl });
    const outcome = await toolNamed("svc_board")!.run({ limit: 50 }, forward);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const status = await toolNamed("svc_status")!.run({}, forward);
    assert.ok(status.ok);
    if (status.ok) assert.equal((status.data as { project: { id: string } }).project.id, m.projectId);
    // A wrong bearer is REST's 401, relayed (not a transport failure).
    const denied = await toolNamed("svc_status")!.run({}, createForward({ bearer: "nope", restUrl: origin }));
    assert.equal(denied.ok, false);
    if (!denied.ok) assert.equal(denied.status, 401);
  });
  assert.ok(platforms.length >= 3 && platforms.every((p) => p === "oauth"));
});
