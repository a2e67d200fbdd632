import assert from "node:assert/strict";
import {
  CLIENT_PATH,
  clientText,
  DOCUMENT_PATH,
  documentText,
  SCHEMA_PATH,
  schemaText,
} from "../scripts/openapi-artifacts.ts";
import { contractChecked, contractProblems } from "./helpers/contract-check.ts";
import { loadContract } from "./security/fuzz/spec.ts";
import { call, test } from "./helpers/mod.ts";

test("openapi/openapi.json is up to date (run `deno task openapi`)", async () => {
  assert.equal(await Deno.readTextFile(DOCUMENT_PATH), documentText());
});

test("generated/schema.ts is up to date (run `deno task gen`)", async () => {
  const document = await Deno.readTextFile(DOCUMENT_PATH);
  assert.equal(await Deno.readTextFile(SCHEMA_PATH), await schemaText(document));
});

test("generated/client.ts is up to date (run `deno task gen`)", async () => {
  assert.equal(await Deno.readTextFile(CLIENT_PATH), clientText(await Deno.readTextFile(DOCUMENT_PATH)));
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

test("a response received by raw fetch (over a socket or app.fetch) is checked too, without consuming its body", async () => {
  const answering = (body: unknown, status = 200) => () =>
    Promise.resolve(
      new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } }),
    );
  const broken = contractChecked(answering({ data: { agent: 1 } }));
  await assert.rejects(broken("http://127.0.0.1:1/api/me"), /GET \/me 200:/);
  await assert.rejects(broken("/svc/me", { method: "GET" }), /does not match the OpenAPI document/);
  const undescribed = await contractChecked(answering({ anything: true }))("/admin/orgs", { method: "POST" });
  assert.deepEqual(await undescribed.json(), { anything: true });
  const error = { error: { code: "UNAUTHORIZED", message: "no token" } };
  const fine = await contractChecked(answering(error, 401))(new Request("http://x/api/me"));
  assert.deepEqual(await fine.json(), error);
});

test("every operation has a unique camelCase operationId; info.license is set; no rule IDs or unused schemas are published", async () => {
  const doc = (await call("GET", "/openapi.json")).body;
  assert.equal(doc.info.license.name, "MIT");
  const ids: string[] = [];
  for (const ops of Object.values(doc.paths) as Record<string, { operationId?: string }>[]) {
    for (const op of Object.values(ops)) {
      assert.match(op.operationId ?? "", /^[a-z][a-zA-Z0-9]*$/);
      ids.push(op.operationId!);
    }
  }
  assert.equal(new Set(ids).size, ids.length, "operationIds must be unique");
  assert.ok(ids.includes("postTicketApprove") && ids.includes("getSprintBySprintId"));
  const text = JSON.stringify(doc);
  assert.doesNotMatch(text, /\b(TKT|OAUTH|CTX|HAND|LEDGER|SESS|PAIR|MCP|RATE)-\d{3}\b/);
  for (const name of Object.keys(doc.components.schemas)) {
    assert.ok(text.includes(`"#/components/schemas/${name}"`), `unused component ${name}`);
  }
});

// deno-lint-ignore no-explicit-any
type Json = any;

/** The example values of a media type: `example`, or each of `examples` (a `$ref` into components/examples). */
function examplesOf(doc: Json, media: Json): unknown[] {
  if (media.example !== undefined) return [media.example];
  return Object.values(media.examples ?? {}).map((e: Json) =>
    e.$ref ? doc.components.examples[e.$ref.replace("#/components/examples/", "")].value : e.value
  );
}

test("every operation shows a request example, its success answer and an error of its own, each valid against its schema", async () => {
  const contract = await loadContract({ withServers: true });
  const doc = contract.doc;
  const problems: string[] = [];
  let operations = 0;
  let complete = 0;
  const checkAll = (where: string, schema: Json, values: unknown[]) => {
    for (const value of values) {
      const errors = contract.check(schema ?? {}, value);
      if (errors) problems.push(`${where}: example does not match its schema: ${errors.join("; ")}`);
    }
  };
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      operations++;
      const id = `${method.toUpperCase()} ${path}`;
      const before = problems.length;
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {}) as [string, Json][]) {
        const values = examplesOf(doc, media);
        if (values.length === 0) problems.push(`${id}: no request example (${type})`);
        checkAll(`${id} request ${type}`, media.schema, values);
      }
      const statuses = Object.keys(op.responses);
      for (const success of statuses.filter((s) => /^2/.test(s) && op.responses[s].content)) {
        for (const [type, media] of Object.entries(op.responses[success].content) as [string, Json][]) {
          if (examplesOf(doc, media).length === 0) {
            problems.push(`${id}: no example of its ${success} (${type})`);
          }
        }
      }
      const ownError = statuses.some((s) =>
        /^[45]/.test(s) &&
        Object.values(op.responses[s].content ?? {}).some((m: Json) => m.example !== undefined)
      );
      if (!ownError) problems.push(`${id}: no example of an error of its own (only the generic ones)`);
      for (const status of statuses) {
        for (const [type, media] of Object.entries(op.responses[status].content ?? {}) as [string, Json][]) {
          checkAll(`${id} ${status} ${type}`, media.schema, examplesOf(doc, media));
        }
      }
      for (const param of op.parameters ?? []) {
        const values = [param.example, param.schema?.example].filter((v) => v !== undefined);
        checkAll(`${id} parameter ${param.name}`, param.schema, values);
      }
      if (problems.length === before) complete++;
    }
  }
  // Examples inside the component schemas (`.openapi({ example })` on a field) match their field.
  const walk = (where: string, schema: Json) => {
    if (!schema || typeof schema !== "object") return;
    if (!Array.isArray(schema) && schema.example !== undefined) {
      const { example, ...rest } = schema;
      checkAll(where, rest, [example]);
    }
    for (const [k, v] of Object.entries(schema)) walk(`${where}/${k}`, v);
  };
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    walk(`#/components/schemas/${name}`, schema);
  }
  assert.deepEqual(problems, [], `${complete} of ${operations} operations complete`);
  assert.equal(complete, operations);
});
