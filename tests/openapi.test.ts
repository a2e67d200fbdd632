import assert from "node:assert/strict";
import { DOCUMENT_PATH, documentText, SCHEMA_PATH, schemaText } from "../scripts/openapi-artifacts.ts";
import { contractProblems } from "./helpers/contract-check.ts";
import { call, test } from "./helpers/mod.ts";

test("openapi/openapi.json is up to date (run `deno task openapi`)", async () => {
  assert.equal(await Deno.readTextFile(DOCUMENT_PATH), documentText());
});

test("generated/schema.ts is up to date (run `deno task gen`)", async () => {
  const document = await Deno.readTextFile(DOCUMENT_PATH);
  assert.equal(await Deno.readTextFile(SCHEMA_PATH), await schemaText(document));
});

test("GET /openapi.json serves the committed document, OpenAPI 3.1", async () => {
  const res = await call("GET", "/openapi.json");
  assert.equal(res.status, 200);
  assert.equal(res.text, await Deno.readTextFile(DOCUMENT_PATH));
  assert.equal(res.body.openapi, "3.1.0");
  assert.ok(res.body.components.securitySchemes.bearerAuth);
  assert.ok(res.body.components.schemas.Error);
});

test("every operation declares its rate-limit cost and error responses", async () => {
  const doc = JSON.parse(await Deno.readTextFile(DOCUMENT_PATH));
  for (
    const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)
  ) {
    for (const [method, op] of Object.entries(ops)) {
      assert.equal(typeof op["x-svc-cost"], "number", `${method} ${path} has no x-svc-cost`);
      const responses = op.responses as Record<string, unknown>;
      assert.ok(responses["400"] && responses["500"], `${method} ${path} documents no errors`);
    }
  }
});

test("GET /docs renders a readable HTML reference", async () => {
  const res = await call("GET", "/docs");
  assert.equal(res.status, 200);
  assert.match(res.text, /<h1>Agent Coordination Service/);
  assert.match(res.text, /\/pair\/connect/);
});

test("GET /health answers { ok: true, version: 1.0.0 }", async () => {
  const res = await call("GET", "/health");
  assert.deepEqual(res.body, { ok: true, version: "1.0.0" });
});

test("every response the tests receive is checked against the document: a body or status it does not declare is a failure", async () => {
  assert.deepEqual(
    await contractProblems("GET", "/api/health-not-described", 200, "application/json", {}),
    [],
  );
  const wrongBody = await contractProblems("GET", "/api/me", 200, "application/json", { data: { agent: 1 } });
  assert.ok(wrongBody.some((p) => p.startsWith("GET /me 200:") && p.includes("meta")), wrongBody.join("\n"));
  const undocumented = await contractProblems("GET", "/svc/me", 418, "application/json; charset=utf-8", {});
  assert.deepEqual(undocumented, ["GET /me 418: no schema documented for 418 application/json"]);
  const oauth = await contractProblems("POST", "/api/oauth/token", 400, "application/json", { nope: 1 });
  assert.ok(oauth.some((p) => p.includes("error_description")), oauth.join("\n"));
  const unavailable = await contractProblems("GET", "/api/me", 503, "application/json", {
    error: {
      code: "SERVICE_UNAVAILABLE",
      message: "down",
      details: { recovery: { action: "RETRY_LATER", endpoint: "GET /health", payloadHint: null, hint: "x" } },
    },
  });
  assert.deepEqual(unavailable, []);
});
