// The operator CLI as a newcomer runs it: `deno run scripts/cli.ts` as a process, against a test service
// listening on a free loopback port.
import assert from "node:assert/strict";
import { ALL_SCOPES } from "@/domain/core/scopes.ts";
import { AGENT_ROLES, MEMBER_ROLES, PLANS } from "@/shared/vocabulary.ts";
import { defaultUrl } from "../../scripts/cli.ts";
import { ADMIN_TOKEN, env, test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The test service on 127.0.0.1 (a free port) for the duration of `body`; it stops by itself after 2 min. */
async function listening(body: (port: number) => Promise<void>): Promise<void> {
  const e = await env();
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 120_000);
  let port = 0;
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: (addr) => port = addr.port,
  }, async (req) => {
    const url = new URL(req.url);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    return await e.fetch(url.pathname + url.search, {
      method: req.method,
      headers: req.headers,
      ...(hasBody ? { body: await req.text() } : {}),
    });
  });
  try {
    await body(port);
  } finally {
    clearTimeout(timer);
    stop.abort();
    await server.finished;
  }
}

async function cli(args: string[], vars: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--allow-env", "--allow-read", "scripts/cli.ts", ...args],
    cwd: ROOT,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1", ...vars },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text: text.trim() };
}

test("the CLI says unknown command: X with a non-zero exit", async () => {
  const res = await cli(["frobnicate"]);
  assert.equal(res.code, 2, res.text);
  assert.match(res.text, /^unknown command: frobnicate\n/);
  const near = await cli(["org", "delete"]);
  assert.equal(near.code, 2, near.text);
  assert.match(
    near.text,
    /^unknown command: org delete \(did you mean: org create, org update, org list, org get\?\)/,
  );
});

test("--help of a command lists its choices (roles, scopes, plans) from their definitions", async () => {
  const member = await cli(["member", "add", "--help"]);
  assert.equal(member.code, 0);
  assert.match(member.text, /^usage: deno task cli \[--json\] member add /);
  assert.ok(member.text.includes(`--role: ${MEMBER_ROLES.join(", ")}`), member.text);
  const key = await cli(["api-key", "--help"]);
  assert.ok(key.text.includes(`--role: ${AGENT_ROLES.join(", ")}`), key.text);
  assert.ok(key.text.includes(`--scopes: ${ALL_SCOPES.join(", ")}`), key.text);
  const code = await cli(["pair-code", "--help"]);
  assert.ok(code.text.includes(`--role: ${AGENT_ROLES.join(", ")}`), code.text);
  const org = await cli(["org", "create", "--help"]);
  assert.ok(org.text.includes(`--plan: ${PLANS.join(", ")}`), org.text);
});

test("the CLI prints readable text without --json, JSON with it", async () => {
  await listening(async (port) => {
    const vars = { SVC_URL: `http://127.0.0.1:${port}`, SVC_ADMIN_TOKEN: ADMIN_TOKEN };
    const created = await cli(["org", "create", "--name", "Readable Org", "--plan", "team"], vars);
    assert.equal(created.code, 0, created.text);
    assert.throws(() => JSON.parse(created.text), "not JSON");
    const lines = created.text.split("\n");
    assert.equal(lines[0], "created organization");
    assert.ok(lines.some((l) => /^ {2}name: +Readable Org$/.test(l)), created.text);
    assert.ok(lines.some((l) => /^ {2}plan: +team$/.test(l)), created.text);
    const id = /^ {2}id: +(\S+)$/m.exec(created.text)?.[1];
    assert.ok(id, created.text);
    const shown = await cli(["org", "get", id], vars);
    assert.match(shown.text, /^id: +\S+$/m);
    const data = JSON.parse((await cli(["--json", "org", "get", id], vars)).text);
    assert.equal(data.name, "Readable Org");
    const list = await cli(["org", "list"], vars);
    assert.match(list.text.split("\n")[0]!, /^id +name +plan +status +createdAt$/);
    assert.ok(list.text.includes("Readable Org"));
  });
});

test("the CLI's default URL comes from SVC_URL, else PUBLIC_URL, else PORT, else 8787", async () => {
  assert.equal(defaultUrl({}), "http://localhost:8787");
  assert.equal(defaultUrl({ PORT: "9100" }), "http://127.0.0.1:9100");
  assert.equal(defaultUrl({ PORT: "9100", PUBLIC_URL: "https://svc.example" }), "https://svc.example");
  assert.equal(defaultUrl({ PORT: "9100", PUBLIC_URL: "https://x", SVC_URL: "http://y" }), "http://y");
  await listening(async (port) => {
    const token = { SVC_ADMIN_TOKEN: ADMIN_TOKEN };
    for (
      const vars of [
        { PORT: String(port) },
        { PUBLIC_URL: `http://127.0.0.1:${port}`, PORT: "1" },
        { SVC_URL: `http://127.0.0.1:${port}`, PUBLIC_URL: "http://127.0.0.1:1", PORT: "1" },
      ]
    ) {
      const res = await cli(["org", "list", "--limit", "1"], { ...vars, ...token });
      assert.equal(res.code, 0, `${JSON.stringify(vars)}: ${res.text}`);
      assert.match(res.text, /^id +name/);
    }
    const wrong = await cli(["org", "list"], { PORT: "1", ...token });
    assert.equal(wrong.code, 1);
    assert.match(wrong.text, /cannot reach the server at http:\/\/127\.0\.0\.1:1 /);
  });
});
