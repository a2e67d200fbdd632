// The generated client from Deno: one method per operationId of the document, each a typed call that
// answers { data, error, response } like openapi-fetch, over the in-process app.
import assert from "node:assert/strict";
import { createClient, OPERATIONS, type SvcApi, type SvcClientOptions } from "../../generated/client.ts";
import { DOCUMENT_PATH } from "../../scripts/openapi-artifacts.ts";
import { env, newProject, pairAgent, test } from "../helpers/mod.ts";

const ORIGIN = "http://localhost:8787";

/** Every operation of the document (paths only: webhooks are not called) as operationId -> "METHOD path". */
async function documentOperations(): Promise<Map<string, string>> {
  const doc = JSON.parse(await Deno.readTextFile(DOCUMENT_PATH));
  const found = new Map<string, string>();
  for (
    const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>)
  ) {
    for (const [method, op] of Object.entries(item)) {
      found.set(op.operationId, `${method.toUpperCase()} ${path}`);
    }
  }
  return found;
}

/** The typed client over the in-process app; `seen` records each request's method, URL and X-Trace header. */
async function client(
  token?: string,
  seen: string[] = [],
  extra: Partial<SvcClientOptions> = {},
): Promise<SvcApi> {
  const e = await env();
  return createClient({
    baseUrl: `${ORIGIN}/api`,
    ...extra,
    ...(token ? { token } : {}),
    fetch: async (req: Request) => {
      seen.push(
        `${req.method} ${req.url}${req.headers.has("x-trace") ? ` ${req.headers.get("x-trace")}` : ""}`,
      );
      const url = new URL(req.url);
      const body = req.method === "GET" || req.method === "HEAD" ? null : await req.text();
      return await e.fetch(url.pathname + url.search, { method: req.method, headers: req.headers, body });
    },
  });
}

test("createClient() has exactly one method per operationId of the document, calling that operation's method and path", async () => {
  const expected = await documentOperations();
  const api = await client();
  assert.deepEqual(Object.keys(api).sort(), [...expected.keys()].sort());
  for (const [id, route] of Object.entries(OPERATIONS)) {
    assert.equal(`${route.method} ${route.path}`, expected.get(id), id);
    assert.equal(typeof api[id as keyof SvcApi], "function", id);
  }
  assert.equal(Object.keys(OPERATIONS).length, expected.size);
});

test("typed methods answer { data, error, response }: getMe with a token, a refusal with its code and recovery, and no token 401", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId, { name: "sdk-agent" });
  const api = await client(agent.token);

  const me = await api.getMe();
  assert.equal(me.response.status, 200);
  assert.equal(me.data?.data.agent.name, "sdk-agent");
  assert.equal(me.data?.data.sessionId, agent.sessionId);
  assert.equal(me.error, undefined);

  const missing = await api.getTicket({ params: { query: { key: "NOPE-999" } } });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.data, undefined);
  assert.equal(missing.error?.error.code, "TICKET_NOT_FOUND");
  assert.equal(missing.error?.error.details?.recovery?.action, "RESOLVE_TICKET_REF");

  const approve = await api.postTicketApprove({
    params: { path: { ticketId: crypto.randomUUID() } },
    body: { comment: "Checked" },
  });
  assert.equal(approve.response.status, 404);
  assert.equal(approve.error?.error.code, "TICKET_NOT_FOUND");

  const anonymous = await (await client()).getMe();
  assert.equal(anonymous.response.status, 401);
  assert.equal(anonymous.error?.error.code, "UNAUTHORIZED");
});

test("operations the document places at the origin (OAuth) are called there, the others under the base URL", async () => {
  const seen: string[] = [];
  const api = await client(undefined, seen);
  const metadata = await api.getWellKnownOauthAuthorizationServer();
  assert.equal(metadata.response.status, 200);
  assert.ok(metadata.data?.issuer);
  await api.getApiOauthJwks();
  await api.getMe();
  assert.deepEqual(seen, [
    `GET ${ORIGIN}/.well-known/oauth-authorization-server`,
    `GET ${ORIGIN}/api/oauth/jwks`,
    `GET ${ORIGIN}/api/me`,
  ]);
});

test("createClient({ origin, headers }): OAuth operations go to the given origin, and the headers go with every call", async () => {
  const seen: string[] = [];
  const api = await client("svc_sess_unknown", seen, {
    origin: "http://auth.example",
    headers: { "X-Trace": "t1" },
  });
  const metadata = await api.getWellKnownOauthAuthorizationServer();
  assert.equal(metadata.response.status, 200);
  const me = await api.getMe({ headers: { "X-Trace": "t2" } });
  assert.equal(me.response.status, 401);
  assert.deepEqual(seen, [
    "GET http://auth.example/.well-known/oauth-authorization-server t1",
    `GET ${ORIGIN}/api/me t2`,
  ]);
});
