import assert from "node:assert/strict";
import { call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { jsonDepth, MAX_JSON_DEPTH } from "@/http/body.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { loadContract } from "./fuzz/spec.ts";

/** Regression tests for the defects the contract fuzzer (fuzz.test.ts) found. */

/** A FOUND ledger entry whose payload nests `levels` arrays (the body itself adds two levels). */
function ledgerBody(levels: number, content = "Found something"): string {
  const nested = "[".repeat(levels) + "]".repeat(levels);
  return `{"type":"FOUND","content":${JSON.stringify(content)},"payload":{"a":${nested}}}`;
}

async function post(token: string, raw: string) {
  return await call("POST", "/ledger", { token, raw, headers: { "Content-Type": "application/json" } });
}

test("JSON nested deeper than 64 levels answers 400 VALIDATION_ERROR before parsing; 64 levels are stored", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const atLimit = await post(agent.token, ledgerBody(MAX_JSON_DEPTH - 2));
  assert.equal(atLimit.status, 201, atLimit.text);
  const over = await post(agent.token, ledgerBody(MAX_JSON_DEPTH - 1));
  assert.equal(over.status, 400);
  assert.equal(over.body.error.code, "VALIDATION_ERROR");
  assert.equal(over.body.error.details.maxDepth, MAX_JSON_DEPTH);
  assert.equal(over.body.error.details.fields[0].code, "too_deep");
  // Deep enough to exhaust the database's recursive jsonb parser (the embedded PGlite aborted: 500).
  const huge = await post(agent.token, ledgerBody(50_000));
  assert.equal(huge.status, 400);
  assert.equal(huge.body.error.code, "VALIDATION_ERROR");
  // Brackets inside strings are text, not nesting; the database still answers.
  const inString = await post(agent.token, ledgerBody(1, "[".repeat(200) + "{".repeat(200)));
  assert.equal(inString.status, 201, inString.text);
  const list = await call("GET", "/ledger?type=FOUND", { token: agent.token });
  assert.equal(list.status, 200);
  assert.equal(list.body.data.entries.length, 2);
});

test("jsonDepth counts brackets outside strings, escapes included", () => {
  assert.equal(jsonDepth("{}"), 1);
  assert.equal(jsonDepth('{"a":[1,{"b":[]}]}'), 4);
  assert.equal(jsonDepth('{"a":"[[[\\"[[["}'), 1);
  assert.equal(jsonDepth("[".repeat(1000), 10), 11);
  assert.equal(jsonDepth('"plain"'), 0);
});

test("PAIR-046 GET /pair/prompt with the code repeated answers 400 in plain text, as documented", async () => {
  for (const query of ["code=ABCD1234&code=EFGH5678", "code=1&code=1", "code[]=1"]) {
    const res = await call("GET", `/pair/prompt?${query}`, { headers: { "X-Forwarded-For": "10.77.1.1" } });
    assert.ok(res.status === 400 || res.status === 404, `${query}: ${res.status}`);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/, query);
    assert.equal(res.body, null);
  }
  const repeated = await call("GET", "/pair/prompt?code=ABCD1234&code=EFGH5678");
  assert.equal(repeated.status, 400);
  assert.match(repeated.text, /send one code/);
});

test("TKT-148 REVIEW_HANDOFF_MISSING details.fields (names of the missing fields) match the documented Error", async () => {
  const { projectId } = await newProject({ reviewMode: "light" });
  const agent = await pairAgent(projectId);
  const t = await insertTicket(projectId, { status: "in_progress", assignee: agent.agentId });
  const res = await call("PATCH", "/ticket", {
    token: agent.token,
    body: { ticketId: t.id, status: "needs_review", reviewHandoff: { summary: "Done" } },
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "REVIEW_HANDOFF_MISSING");
  assert.deepEqual(res.body.error.details.fields, ["changedFiles", "branch"]);
  assert.equal(res.body.error.details.recovery.action, "ATTACH_REVIEW_HANDOFF");
  const contract = await loadContract();
  const op = contract.operations.find((o) => o.id === "PATCH /ticket")!;
  assert.equal(contract.validate(op, 400, "application/json", res.body), null);
});
