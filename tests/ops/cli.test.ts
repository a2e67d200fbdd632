import assert from "node:assert/strict";
import { runCli } from "../../scripts/cli.ts";
import { ADMIN_TOKEN, env, newProject, pairAgent, test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function cli(...args: string[]): Promise<{ code: number; output: string }> {
  const e = await env();
  const lines: string[] = [];
  const code = await runCli(
    args,
    { url: "http://localhost:8787", token: ADMIN_TOKEN },
    (line) => lines.push(line),
    (input, init) => {
      const url = new URL(String(input));
      return e.fetch(url.pathname + url.search, init);
    },
  );
  return { code, output: lines.join("\n") };
}

test("the CLI as a process against a stopped server: exit 1 with one line, no stack trace", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there any more
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--allow-env", "--allow-read", "scripts/cli.ts", "org", "list"],
    cwd: ROOT,
    env: { NO_COLOR: "1", SVC_URL: `http://127.0.0.1:${port}`, SVC_ADMIN_TOKEN: "x" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr)).trim();
  assert.equal(out.code, 1, text);
  assert.equal(text.split("\n").length, 1, text);
  assert.match(text, /^error: cannot reach the server at http:\/\/127\.0\.0\.1:\d+/);
});

test("every CLI command answers --help with its own usage and exit 0", async () => {
  const all = await cli("--help");
  assert.equal(all.code, 0);
  const commands = all.output.split("\n").filter((l) => l.startsWith("  ")).map((l) => l.trim());
  assert.ok(commands.length >= 20, all.output);
  for (const usage of commands) {
    const words = usage.split(" ").filter((w) => /^[a-z-]+$/.test(w)).slice(0, 2);
    const res = await cli(...words, "--help");
    assert.equal(res.code, 0, usage);
    assert.match(res.output, new RegExp(`^usage: deno task cli \\[--json\\] ${words.join(" ")}`), res.output);
  }
});

test("the CLI lists and reads what it creates, pages with --limit and --cursor, and prints field errors", async () => {
  await newProject();
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  // --json on a list prints { data, meta } (meta.nextCursor names the next page).
  const first = JSON.parse((await cli("--json", "org", "list", "--limit", "1")).output);
  assert.equal(first.data.length, 1);
  assert.ok(first.meta.nextCursor);
  const second = JSON.parse(
    (await cli("--json", "org", "list", "--limit", "1", "--cursor", first.meta.nextCursor)).output,
  );
  assert.notEqual(second.data[0].id, first.data[0].id);
  // As text: a table and the next page's cursor.
  const text = await cli("org", "list", "--limit", "1");
  const lines = text.output.split("\n");
  assert.match(lines[0]!, /^id +name +plan +status +createdAt$/);
  assert.ok(lines[1]!.startsWith(first.data[0].id));
  assert.equal(lines[2], `next page: --cursor ${first.meta.nextCursor}`);
  const project = JSON.parse((await cli("--json", "project", "get", projectId)).output);
  assert.equal(project.id, projectId);
  const agents = JSON.parse((await cli("--json", "agent", "list", "--project", projectId)).output);
  assert.ok(agents.data.some((a: { id: string }) => a.id === agent.agentId));
  const one = JSON.parse((await cli("--json", "agent", "get", "--project", projectId, agent.agentId)).output);
  assert.equal(one.id, agent.agentId);

  const malformed = await cli("project", "get", "not-an-id");
  assert.equal(malformed.code, 1);
  assert.match(malformed.output, /HTTP 400 VALIDATION_ERROR/);
  const fields = await cli("user", "create", "--email", "nope", "--password", "short", "--name", "N");
  assert.equal(fields.code, 1);
  assert.match(fields.output, /\n {2}email: /);
  assert.match(fields.output, /\n {2}password: /);
});
