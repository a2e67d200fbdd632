import assert from "node:assert/strict";
import { createApp } from "@/app.ts";
import { mergeClaudeSettings } from "../../scripts/gate.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

const CHECKOUT = new URL("../../", import.meta.url).pathname;

/** The test file's service on a real socket (127.0.0.1, a free port): the hooks run the CLI as a process. */
async function serve(): Promise<{ url: string; stop: () => Promise<void> }> {
  const e = await env();
  const app = createApp({ db: e.db, engine: e.engine, clock: e.clock, config: e.config });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => app.fetch(req));
  return { url: `http://127.0.0.1:${server.addr.port}`, stop: () => server.shutdown() };
}

/** A port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

interface Run {
  code: number;
  out: string;
}

/** Git and the CLI see nothing of the machine's own configuration. */
const BASE_ENV = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

async function run(cmd: string, args: string[], cwd: string, extra: Record<string, string>, stdin?: string) {
  const child = new Deno.Command(cmd, {
    args,
    cwd,
    env: { ...BASE_ENV, ...extra },
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const { code, stdout, stderr } = await child.output();
  const dec = new TextDecoder();
  return { code, out: dec.decode(stdout) + dec.decode(stderr) } as Run;
}

async function gitOk(cwd: string, ...args: string[]): Promise<string> {
  const r = await run("git", args, cwd, {});
  assert.equal(r.code, 0, `git ${args.join(" ")}: ${r.out}`);
  return r.out;
}

async function newRepo(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await gitOk(dir, "init", "-q", "-b", "main");
  await gitOk(dir, "config", "user.name", "Agent");
  await gitOk(dir, "config", "user.email", "agent@example.com");
}

function cli(args: string[], cwd: string, extra: Record<string, string>, stdin?: string): Promise<Run> {
  return run("deno", ["task", "-q", "--cwd", CHECKOUT, "cli", ...args], cwd, extra, stdin);
}

async function claim(token: string, files: string[]) {
  const res = await call("POST", "/claim", { token, body: { files } });
  assert.equal(res.status, 200, res.text);
}

async function release(token: string, files: string[]) {
  const res = await call("POST", "/release", { token, body: { files } });
  assert.equal(res.status, 200, res.text);
}

test("PROOF-3 git hooks in real repositories: commit and push refused, then allowed after claiming; a new branch; a linked worktree; service down", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const server = await serve();
  const tmp = await Deno.makeTempDir({ prefix: "svc-hooks-" });
  try {
    const repo = `${tmp}/repo`;
    const bare = `${tmp}/remote.git`;
    await newRepo(repo);
    await gitOk(tmp, "init", "-q", "--bare", bare);
    await gitOk(repo, "remote", "add", "origin", bare);
    const agentEnv = { SVC_URL: server.url, SVC_TOKEN: agent.token, PATH: Deno.env.get("PATH")! };
    const installed = await cli(
      ["hooks", "install", "--repo", repo, "--pre-commit", "--pre-push"],
      tmp,
      agentEnv,
    );
    assert.equal(installed.code, 0, installed.out);
    const hook = await Deno.readTextFile(`${repo}/.git/hooks/pre-commit`);
    assert.ok(hook.includes(`--cwd '${CHECKOUT.replace(/\/$/, "")}' cli gate pre-commit`), hook);

    // A commit of an unclaimed staged file is refused and names it; claimed, it goes through.
    await Deno.mkdir(`${repo}/src`);
    await Deno.writeTextFile(`${repo}/src/a.ts`, "export const a = 1;\n");
    await gitOk(repo, "add", "src/a.ts");
    const refused = await run("git", ["commit", "-q", "-m", "a"], repo, agentEnv);
    assert.notEqual(refused.code, 0, refused.out);
    assert.match(refused.out, /src\/a\.ts: not claimed by you/);
    await claim(agent.token, ["src/a.ts"]);
    const committed = await run("git", ["commit", "-q", "-m", "a"], repo, agentEnv);
    assert.equal(committed.code, 0, committed.out);

    // Push of a new branch to a local bare repository: refused while a pushed file is not held.
    await release(agent.token, ["src/a.ts"]);
    const pushRefused = await run("git", ["push", "-q", "origin", "main"], repo, agentEnv);
    assert.notEqual(pushRefused.code, 0, pushRefused.out);
    assert.match(pushRefused.out, /push refused/);
    assert.match(pushRefused.out, /src\/a\.ts/);
    await claim(agent.token, ["src/a.ts"]);
    const pushed = await run("git", ["push", "-q", "origin", "main"], repo, agentEnv);
    assert.equal(pushed.code, 0, pushed.out);

    // An existing branch: only the new commits count (src/a.ts, already pushed, no longer matters).
    await release(agent.token, ["src/a.ts"]);
    await claim(agent.token, ["src/b.ts"]);
    await Deno.writeTextFile(`${repo}/src/b.ts`, "export const b = 1;\n");
    await gitOk(repo, "add", "src/b.ts");
    assert.equal((await run("git", ["commit", "-q", "-m", "b"], repo, agentEnv)).code, 0);
    await release(agent.token, ["src/b.ts"]);
    const bRefused = await run("git", ["push", "-q", "origin", "main"], repo, agentEnv);
    assert.notEqual(bRefused.code, 0);
    assert.match(bRefused.out, /src\/b\.ts/);
    assert.doesNotMatch(bRefused.out, /src\/a\.ts/);
    await claim(agent.token, ["src/b.ts"]);
    assert.equal((await run("git", ["push", "-q", "origin", "main"], repo, agentEnv)).code, 0);

    // A new branch: the commits the remote has no ref for.
    await gitOk(repo, "checkout", "-q", "-b", "feature");
    await claim(agent.token, ["src/c.ts"]);
    await Deno.writeTextFile(`${repo}/src/c.ts`, "export const c = 1;\n");
    await gitOk(repo, "add", "src/c.ts");
    assert.equal((await run("git", ["commit", "-q", "-m", "c"], repo, agentEnv)).code, 0);
    await release(agent.token, ["src/b.ts", "src/c.ts"]);
    const branchRefused = await run("git", ["push", "-q", "origin", "feature"], repo, agentEnv);
    assert.notEqual(branchRefused.code, 0);
    assert.match(branchRefused.out, /src\/c\.ts/);
    assert.doesNotMatch(branchRefused.out, /src\/b\.ts/);
    await claim(agent.token, ["src/c.ts"]);
    assert.equal((await run("git", ["push", "-q", "origin", "feature"], repo, agentEnv)).code, 0);

    // A linked worktree uses the main repository's hooks.
    await gitOk(repo, "worktree", "add", "-q", "-b", "linked", `${tmp}/linked`);
    await Deno.writeTextFile(`${tmp}/linked/src/d.ts`, "export const d = 1;\n");
    await gitOk(`${tmp}/linked`, "add", "src/d.ts");
    const wtRefused = await run("git", ["commit", "-q", "-m", "d"], `${tmp}/linked`, agentEnv);
    assert.notEqual(wtRefused.code, 0);
    assert.match(wtRefused.out, /src\/d\.ts: not claimed by you/);
    await claim(agent.token, ["src/d.ts"]);
    assert.equal((await run("git", ["commit", "-q", "-m", "d"], `${tmp}/linked`, agentEnv)).code, 0);

    // The service cannot be reached: refused (fail closed), allowed with SVC_GATE_OFFLINE=allow.
    const down = { ...agentEnv, SVC_URL: `http://127.0.0.1:${closedPort()}` };
    await Deno.writeTextFile(`${repo}/src/e.ts`, "export const e = 1;\n");
    await gitOk(repo, "add", "src/e.ts");
    const offline = await run("git", ["commit", "-q", "-m", "e"], repo, down);
    assert.notEqual(offline.code, 0);
    assert.match(offline.out, /cannot reach the service/);
    const allowed = await run("git", ["commit", "-q", "-m", "e"], repo, {
      ...down,
      SVC_GATE_OFFLINE: "allow",
    });
    assert.equal(allowed.code, 0, allowed.out);
    assert.match(allowed.out, /SVC_GATE_OFFLINE=allow/);

    // The token from a file (SVC_TOKEN_FILE); core.hooksPath is respected.
    const other = `${tmp}/other`;
    await newRepo(other);
    await gitOk(other, "config", "core.hooksPath", ".githooks");
    const tokenFile = `${tmp}/token`;
    await Deno.writeTextFile(tokenFile, `${agent.token}\n`);
    const fileEnv = { SVC_URL: server.url, SVC_TOKEN_FILE: tokenFile, PATH: Deno.env.get("PATH")! };
    assert.equal((await cli(["hooks", "install", "--repo", other], tmp, fileEnv)).code, 0);
    await Deno.stat(`${other}/.githooks/pre-commit`);
    await Deno.stat(`${other}/.githooks/pre-push`);
    await Deno.writeTextFile(`${other}/src-d.ts`, "x\n");
    await gitOk(other, "add", "src-d.ts");
    const viaFile = await run("git", ["commit", "-q", "-m", "x"], other, fileEnv);
    assert.notEqual(viaFile.code, 0);
    assert.match(viaFile.out, /src-d\.ts: not claimed by you/);
  } finally {
    await server.stop();
    await Deno.remove(tmp, { recursive: true });
  }
});

test("PROOF-3 the edit gate: a recorded PreToolUse payload exits 2 unclaimed and 0 claimed; the settings merge keeps existing hooks", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const server = await serve();
  const tmp = await Deno.makeTempDir({ prefix: "svc-edit-" });
  try {
    const repo = `${tmp}/repo`;
    await newRepo(repo);
    await Deno.mkdir(`${repo}/.claude`);
    const existing = {
      permissions: { allow: ["Bash(ls:*)"] },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo bash-check" }] }],
        PostToolUse: [{ matcher: "Edit", hooks: [{ type: "command", command: "deno fmt" }] }],
      },
    };
    await Deno.writeTextFile(`${repo}/.claude/settings.json`, JSON.stringify(existing));
    const agentEnv = { SVC_URL: server.url, SVC_TOKEN: agent.token, PATH: Deno.env.get("PATH")! };
    for (let i = 0; i < 2; i++) {
      const installed = await cli(["hooks", "install", "--repo", repo, "--claude-code"], tmp, agentEnv);
      assert.equal(installed.code, 0, installed.out);
    }
    const merged = JSON.parse(await Deno.readTextFile(`${repo}/.claude/settings.json`));
    assert.deepEqual(merged.permissions, existing.permissions);
    assert.deepEqual(merged.hooks.PostToolUse, existing.hooks.PostToolUse);
    assert.equal(merged.hooks.PreToolUse.length, 2, "added once, next to the existing hook");
    assert.deepEqual(merged.hooks.PreToolUse[0], existing.hooks.PreToolUse[0]);
    assert.equal(merged.hooks.PreToolUse[1].matcher, "Edit|Write|MultiEdit|NotebookEdit");
    const command: string = merged.hooks.PreToolUse[1].hooks[0].command;
    assert.match(command, /cli gate edit/);
    assert.deepEqual(mergeClaudeSettings({}, "x").hooks, {
      PreToolUse: [{
        matcher: "Edit|Write|MultiEdit|NotebookEdit",
        hooks: [{ type: "command", command: "x" }],
      }],
    });

    // A tool call as Claude Code sends it on standard input, run through the installed command.
    const payload = (filePath: string) =>
      JSON.stringify({
        session_id: "0b7c5c1e-2a7e-4f5a-9d55-3c2f1b7a9e10",
        transcript_path: `${tmp}/transcript.jsonl`,
        cwd: repo,
        permission_mode: "default",
        hook_event_name: "PreToolUse",
        tool_name: "Edit",
        tool_input: { file_path: filePath, old_string: "const a = 1", new_string: "const a = 2" },
      });
    const hookEnv = { ...agentEnv, CLAUDE_PROJECT_DIR: repo };
    const unclaimed = await run("sh", ["-c", command], repo, hookEnv, payload(`${repo}/src/e.ts`));
    assert.equal(unclaimed.code, 2, unclaimed.out);
    assert.match(unclaimed.out, /src\/e\.ts: not claimed by you/);
    await claim(agent.token, ["src/e.ts"]);
    const claimed = await run("sh", ["-c", command], repo, hookEnv, payload(`${repo}/src/e.ts`));
    assert.equal(claimed.code, 0, claimed.out);
    const relative = await run("sh", ["-c", command], repo, hookEnv, payload("src/./e.ts"));
    assert.equal(relative.code, 0, relative.out);
    const outside = await run("sh", ["-c", command], repo, hookEnv, payload(`${tmp}/notes.md`));
    assert.equal(outside.code, 0, "a file outside the repository is not gated");

    // Offline: exit 2, unless SVC_GATE_OFFLINE=allow.
    const down = { ...hookEnv, SVC_URL: `http://127.0.0.1:${closedPort()}` };
    const offline = await run("sh", ["-c", command], repo, down, payload(`${repo}/src/e.ts`));
    assert.equal(offline.code, 2);
    assert.match(offline.out, /cannot reach the service/);
    const allowed = await run(
      "sh",
      ["-c", command],
      repo,
      { ...down, SVC_GATE_OFFLINE: "allow" },
      payload("src/e.ts"),
    );
    assert.equal(allowed.code, 0, allowed.out);
  } finally {
    await server.stop();
    await Deno.remove(tmp, { recursive: true });
  }
});
