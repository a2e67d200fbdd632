import assert from "node:assert/strict";
import { runCli } from "../../scripts/cli.ts";
import { createApp } from "@/app.ts";
import { admin, ADMIN_TOKEN, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { oauthFixture } from "../oauth/helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * The test service's app on a loopback port for the duration of `fn`, as `src/main.ts` serves it (the
 * raw request, so a bodiless DELETE reaches it as a real client sends it); the CLI runs as its own process.
 */
async function served<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const e = await env();
  const app = createApp({ db: e.db, engine: e.engine, clock: e.clock, config: e.config });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  try {
    return await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

async function cliProcess(url: string, ...args: string[]): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--allow-env", "--allow-read", "scripts/cli.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", SVC_URL: url, SVC_ADMIN_TOKEN: ADMIN_TOKEN },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, output: text.trim() };
}

test("the CLI as a process revokes a key and an agent, ends a session and removes a member", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "cli-bot" });
  const agent = await pairAgent(projectId);
  const ended = await pairAgent(projectId);
  const f = await oauthFixture({ memberRole: "viewer" });
  await served(async (url) => {
    const revokedKey = await cliProcess(url, "--json", "api-key", "revoke", "--project", projectId, key.id);
    assert.equal(revokedKey.code, 0, revokedKey.output);
    assert.equal(JSON.parse(revokedKey.output).keyId, key.id);

    const revokedAgent = await cliProcess(
      url,
      "--json",
      "agent",
      "revoke",
      "--project",
      projectId,
      agent.agentId,
    );
    assert.equal(revokedAgent.code, 0, revokedAgent.output);
    assert.deepEqual(JSON.parse(revokedAgent.output).canceledSessionIds, [agent.sessionId]);

    const endedSession = await cliProcess(url, "--json", "session", "end", ended.sessionId);
    assert.equal(endedSession.code, 0, endedSession.output);
    assert.equal(JSON.parse(endedSession.output).status, "canceled");

    const removed = await cliProcess(url, "member", "remove", "--project", f.projectId, f.userId);
    assert.equal(removed.code, 0, removed.output);
    // Without --json the answer reads as text: its title, then one `key: value` line per field.
    assert.match(removed.output, /^removed member\n/);
    assert.match(removed.output, new RegExp(`\\n  userId: +${f.userId}\\n`));

    // A refusal exits 1 with the code: the member is gone now.
    const again = await cliProcess(url, "member", "remove", "--project", f.projectId, f.userId);
    assert.equal(again.code, 1, again.output);
    assert.match(again.output, /^error: HTTP 404 NOT_FOUND/);
  });
  for (const token of [key.key, agent.token, ended.token]) {
    assert.equal((await call("GET", "/me", { token })).status, 401);
  }
});

test("the CLI's undo commands refuse a missing id or --project with exit 2 and their usage", async () => {
  const lines: string[] = [];
  const never = () => Promise.reject(new Error("no request expected"));
  for (
    const [args, missing] of [
      [["api-key", "revoke", "--project", crypto.randomUUID()], /missing KEY_ID/],
      [["agent", "revoke", crypto.randomUUID()], /missing --project/],
      [["session", "end"], /missing SESSION_ID/],
      [["member", "remove", "--project", crypto.randomUUID()], /missing USER_ID/],
    ] as const
  ) {
    lines.length = 0;
    const code = await runCli(
      [...args],
      { url: "http://127.0.0.1:1", token: ADMIN_TOKEN },
      (l) => lines.push(l),
      never,
    );
    assert.equal(code, 2, lines.join("\n"));
    assert.match(lines.join("\n"), missing);
    assert.match(lines.join("\n"), new RegExp(`\\n  usage: deno task cli ${args[0]} ${args[1]} `));
  }
});
