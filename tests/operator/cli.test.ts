import assert from "node:assert/strict";
import { runCli } from "../../scripts/cli.ts";
import { ADMIN_TOKEN, env, test } from "../helpers/mod.ts";

async function cli(...args: string[]): Promise<{ code: number; output: string }> {
  const e = await env();
  const lines: string[] = [];
  const code = await runCli(
    args,
    { url: "http://localhost:8787", token: ADMIN_TOKEN },
    (line) => lines.push(line),
    (input, init) => e.fetch(new URL(String(input)).pathname, init),
  );
  return { code, output: lines.join("\n") };
}

test("cli creates an org, a project and a pairing code; --json prints data alone", async () => {
  const org = await cli("--json", "org", "create", "--name", "Acme", "--plan", "team");
  assert.equal(org.code, 0);
  const orgData = JSON.parse(org.output);
  assert.equal(orgData.plan, "team");
  const project = await cli(
    "--json",
    "project",
    "create",
    "--org",
    orgData.id,
    "--name",
    "Web",
    "--prefix",
    "WEB",
  );
  assert.equal(project.code, 0);
  const projectData = JSON.parse(project.output);
  assert.equal(projectData.ticketPrefix, "WEB");
  const code = await cli("--json", "pair-code", "--project", projectData.id, "--role", "orchestrator");
  assert.equal(code.code, 0);
  const data = JSON.parse(code.output);
  assert.equal(data.ttlSeconds, 300);
  assert.match(data.code, /^[A-Z0-9]{8}$/);
  // Without --json: text, the code on its first line.
  const text = await cli("pair-code", "--project", projectData.id, "--role", "evaluator");
  assert.equal(text.code, 0);
  assert.match(text.output, /^pairing code: [A-Z0-9]{8} \(shown once; expires \S+\)\n/);
});

test("cli reports a refused call with a non-zero exit", async () => {
  const res = await cli("project", "create", "--org", crypto.randomUUID(), "--name", "X", "--prefix", "bad");
  assert.equal(res.code, 1);
  assert.match(res.output, /HTTP 400 VALIDATION_ERROR/);
  const missing = await cli("org", "create");
  assert.equal(missing.code, 2);
  assert.match(missing.output, /missing --name/);
});

test("operator API: test clock advances only with SVC_TEST_CLOCK", async () => {
  const res = await cli("--json", "clock", "advance", "--ms", "1000");
  assert.equal(res.code, 0);
  assert.ok(Date.parse(JSON.parse(res.output).now) > Date.now());
});
