import assert from "node:assert/strict";
import { OPERATOR_DOCUMENT_PATH, operatorDocument } from "../../scripts/openapi-artifacts.ts";
import { commandPath, COMMANDS } from "../../scripts/cli.ts";
import { adminRoutes } from "@/admin/routes.ts";
import { ADMIN_TOKEN, call, test } from "../helpers/mod.ts";

type Doc = { paths: Record<string, Record<string, { operationId?: string }>> };

test("openapi/operator.json is up to date (run `deno task openapi`)", async () => {
  assert.equal(await Deno.readTextFile(OPERATOR_DOCUMENT_PATH), operatorDocument());
});

test("GET /admin/openapi.json serves the committed operator document behind the admin token", async () => {
  const anonymous = await call("GET", "/admin/openapi.json");
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.error.code, "UNAUTHORIZED");
  const wrong = await call("GET", "/admin/openapi.json", { token: "not-the-admin-token" });
  assert.equal(wrong.status, 401);
  const res = await call("GET", "/admin/openapi.json", { token: ADMIN_TOKEN });
  assert.equal(res.status, 200);
  assert.equal(res.text, await Deno.readTextFile(OPERATOR_DOCUMENT_PATH));
  assert.equal(res.body.openapi, "3.1.0");
  assert.ok(res.body.components.securitySchemes.adminAuth);
  assert.deepEqual(res.body.security, [{ adminAuth: [] }]);
});

test("the operator document lists every route object, each with a unique operationId", async () => {
  const doc = JSON.parse(await Deno.readTextFile(OPERATOR_DOCUMENT_PATH)) as Doc;
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method} ${path}`)
  );
  const defined = Object.values(adminRoutes).map((r) => `${r.method} ${r.path}`);
  assert.deepEqual([...documented].sort(), [...defined].sort());
  const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.every((id) => typeof id === "string" && id.length > 0));
});

test("every documented operation with an id parameter is served and checks it (400 VALIDATION_ERROR)", async () => {
  for (const route of Object.values(adminRoutes)) {
    if (!route.path.includes("{")) continue;
    const path = "/admin" + route.path.replace(/\{\w+\}/g, "not-a-uuid");
    const options = route.method === "get" ? { token: ADMIN_TOKEN } : { token: ADMIN_TOKEN, body: {} };
    const res = await call(route.method.toUpperCase(), path, options);
    assert.equal(res.status, 400, `${route.method} ${route.path}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR", `${route.method} ${route.path}`);
  }
});

test("every CLI command calls a documented operator route, its path built from the route's template", async () => {
  const doc = JSON.parse(await Deno.readTextFile(OPERATOR_DOCUMENT_PATH)) as Doc;
  const routes = new Set<object>(Object.values(adminRoutes));
  for (const command of COMMANDS) {
    assert.ok(routes.has(command.route), command.name);
    assert.ok(doc.paths[command.route.path]?.[command.route.method], command.name);
  }
  const byName = (name: string) => COMMANDS.find((c) => c.name === name)!;
  assert.equal(
    commandPath(byName("member remove"), { project: "p 1" }, ["u/2"]),
    "/admin/projects/p%201/members/u%2F2",
  );
  assert.equal(
    commandPath(byName("api-key list"), { project: "p", limit: "5" }, []),
    "/admin/projects/p/api-keys?limit=5",
  );
  assert.equal(commandPath(byName("org update"), {}, ["o"]), "/admin/orgs/o");
  assert.equal(commandPath(byName("keys rotate"), {}, []), "/admin/keys/rotate");
});
