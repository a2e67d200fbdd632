/**
 * The agent side of the CLI (issue 25): `hooks install` writes git hooks (and a Claude Code PreToolUse
 * hook) that run `gate`, and `gate pre-commit|pre-push|edit` asks the service (POST /api/claim/verify,
 * with the agent's token) whether the agent holds every file it is about to commit, push or edit.
 *
 * The gate fails closed: a file not held, a refusal or an unreachable service stops the commit, push or
 * edit, unless SVC_GATE_OFFLINE=allow lets it through while the service cannot be reached (and says so).
 * Paths are relative to the repository root and canonicalised as the service canonicalises them.
 */
import { isAbsolute, join, relative, resolve } from "node:path";
import { checkPath } from "@/shared/file-path.ts";

/** What a gate or an install needs from its process: environment, standard input, output lines. */
export interface GateIo {
  env: Record<string, string | undefined>;
  /** Standard input, read whole (pre-push's ref lines, the edit hook's JSON). */
  stdin: () => Promise<string>;
  out: (line: string) => void;
  err: (line: string) => void;
  fetchFn: typeof fetch;
  /**
   * The directory the CLI was started from (the repository when no --repo is given; `--repo` is relative
   * to it). Under `deno task --cwd`, the task runs in the checkout: INIT_CWD names where it was started.
   */
  cwd: string;
}

type Flags = Record<string, string | true>;

/** The absolute path of the checkout this CLI lives in: the hooks name it so they work from any repository. */
export const CHECKOUT = resolve(new URL("..", import.meta.url).pathname);

const ZERO = /^0+$/;
const MARKER = "# svc-gate: installed by `deno task cli hooks install`";
const EDIT_TOOLS = "Edit|Write|MultiEdit|NotebookEdit";
const MAX_VERIFY = 500;

// ---- git ------------------------------------------------------------------------------------------

async function git(cwd: string, args: string[], stdin?: string): Promise<string> {
  const command = new Deno.Command("git", {
    args,
    cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = command.spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const { code, stdout, stderr } = await child.output();
  if (code !== 0) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(stderr).trim()}`);
  }
  return new TextDecoder().decode(stdout);
}

/** NUL-separated paths (`-z`), each once. */
function zPaths(text: string): string[] {
  return [...new Set(text.split("\0").filter((p) => p.length > 0))];
}

async function repoRoot(dir: string): Promise<string> {
  return (await git(dir, ["rev-parse", "--show-toplevel"])).trim();
}

/** Staged paths (added, changed, deleted; a rename counts as both its paths). */
async function stagedFiles(root: string): Promise<string[]> {
  return zPaths(await git(root, ["diff", "--cached", "--name-only", "--no-renames", "-z"]));
}

/**
 * The files changed by the commits a push sends, from git's pre-push input (`<local ref> <local oid>
 * <remote ref> <remote oid>` per line): for an existing branch the commits after the remote's tip, for a
 * new branch (remote oid all zeros) the commits no ref of the remote has; a deletion sends none.
 */
async function pushedFiles(root: string, remote: string | undefined, input: string): Promise<string[]> {
  const files = new Set<string>();
  for (const line of input.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const [, localOid, , remoteOid] = line.split(/\s+/);
    if (!localOid || ZERO.test(localOid)) continue;
    const known = remoteOid && !ZERO.test(remoteOid) && await hasCommit(root, remoteOid);
    const range = known
      ? [`${remoteOid}..${localOid}`]
      : [localOid, "--not", `--remotes=${remote ?? "origin"}`];
    const log = await git(root, ["log", "--format=", "--name-only", "--no-renames", "-z", ...range]);
    for (const f of zPaths(log.replace(/\n/g, "\0"))) files.add(f);
  }
  return [...files];
}

async function hasCommit(root: string, oid: string): Promise<boolean> {
  try {
    await git(root, ["cat-file", "-e", `${oid}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

// ---- the service ----------------------------------------------------------------------------------

interface Verdict {
  file: string;
  status: string;
  holder?: string;
}

/** The agent's token: SVC_TOKEN, else the first line of the file SVC_TOKEN_FILE names. */
async function tokenOf(env: GateIo["env"]): Promise<string | undefined> {
  if (env.SVC_TOKEN) return env.SVC_TOKEN.trim();
  if (env.SVC_TOKEN_FILE) return (await Deno.readTextFile(env.SVC_TOKEN_FILE)).trim().split("\n")[0];
  return undefined;
}

class Unreachable extends Error {}

/** POST /api/claim/verify for `files` (in slices of 500); throws Unreachable when the service cannot answer. */
async function verify(io: GateIo, url: string, token: string, files: string[]): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (let i = 0; i < files.length; i += MAX_VERIFY) {
    let res: Response;
    try {
      res = await io.fetchFn(`${url.replace(/\/+$/, "")}/api/claim/verify`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ files: files.slice(i, i + MAX_VERIFY) }),
      });
    } catch (error) {
      throw new Unreachable(error instanceof Error ? error.message.split("\n")[0] : String(error));
    }
    const text = await res.text();
    if (res.status >= 500) throw new Unreachable(`HTTP ${res.status}`);
    let body: { data?: { files: Verdict[] }; error?: { code: string; message: string } } = {};
    try {
      body = JSON.parse(text);
    } catch {
      throw new Unreachable(`HTTP ${res.status}: not the service's answer`);
    }
    if (!res.ok || !body.data) {
      throw new Error(
        `the service refused the check: HTTP ${res.status} ${body.error?.code ?? ""}: ${
          body.error?.message ?? text.slice(0, 200)
        }`,
      );
    }
    verdicts.push(...body.data.files);
  }
  return verdicts;
}

function why(v: Verdict): string {
  switch (v.status) {
    case "not_claimed":
      return "not claimed by you: claim it first (POST /claim)";
    case "held_by_other":
      return `held by ${v.holder ?? "another agent"}`;
    case "fence_stale":
      return "your claim on it ended: claim it again";
    default:
      return v.status;
  }
}

/**
 * Judges `files` (relative to the repository root): the reasons each one not held is refused, one line
 * each, or an empty list when all are held. Paths the service would refuse are refused here.
 */
async function judge(io: GateIo, files: string[]): Promise<{ refused: string[]; offline?: string }> {
  const refused: string[] = [];
  const canonical: string[] = [];
  for (const file of files) {
    const checked = checkPath(file);
    if (checked.ok) canonical.push(checked.path);
    else refused.push(`${file}: not a path the service can claim (${checked.reason})`);
  }
  if (canonical.length === 0) return { refused };
  const url = io.env.SVC_URL ?? "http://localhost:8787";
  const token = await tokenOf(io.env);
  if (!token) return { refused: [...refused, "no agent token: set SVC_TOKEN or SVC_TOKEN_FILE"] };
  try {
    const verdicts = await verify(io, url, token, [...new Set(canonical)]);
    for (const v of verdicts) if (v.status !== "held") refused.push(`${v.file}: ${why(v)}`);
    return { refused };
  } catch (error) {
    if (error instanceof Unreachable) {
      return { refused, offline: `cannot reach the service at ${url} (${error.message})` };
    }
    return { refused: [...refused, error instanceof Error ? error.message : String(error)] };
  }
}

/**
 * The gate's verdict as an exit code: 0 when every file is held (or, with SVC_GATE_OFFLINE=allow, when
 * the service cannot be reached); otherwise each reason on standard error and `refuseCode`.
 */
async function decide(io: GateIo, what: string, files: string[], refuseCode: number): Promise<number> {
  if (files.length === 0) return 0;
  const { refused, offline } = await judge(io, files);
  if (offline) {
    if (io.env.SVC_GATE_OFFLINE === "allow" && refused.length === 0) {
      io.err(`svc gate: ${offline}; allowed without a check because SVC_GATE_OFFLINE=allow`);
      return 0;
    }
    refused.push(
      `${offline}; refused (set SVC_GATE_OFFLINE=allow to let it through while the service is down)`,
    );
  }
  if (refused.length === 0) return 0;
  io.err(`svc gate: ${what} refused: you do not hold every file it changes`);
  for (const line of refused) io.err(`  ${line}`);
  return refuseCode;
}

// ---- gates ----------------------------------------------------------------------------------------

/** The file an edit tool call names, relative to the repository root; null when it is outside it. */
export function editedFile(payload: unknown, root: string, base: string): string | null | undefined {
  const input = (payload as { tool_input?: Record<string, unknown> } | null)?.tool_input;
  const named = input?.file_path ?? input?.notebook_path;
  if (typeof named !== "string" || named.length === 0) return undefined;
  const absolute = isAbsolute(named) ? named : resolve(base, named);
  const rel = relative(realDir(root), realPathOf(absolute));
  if (rel.startsWith("..") || isAbsolute(rel)) return null;
  return rel;
}

function realDir(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/** The real path of a file that may not exist yet (its nearest existing parent resolved). */
function realPathOf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    const parent = resolve(path, "..");
    if (parent === path) return path;
    return join(realPathOf(parent), path.slice(parent.length + 1));
  }
}

async function gateEdit(io: GateIo, flags: Flags): Promise<number> {
  const raw = await io.stdin();
  let payload: unknown;
  try {
    payload = JSON.parse(raw);
  } catch {
    io.err("svc gate: the edit hook's input is not JSON: refused");
    return 2;
  }
  const cwd = (payload as { cwd?: unknown }).cwd;
  const named = str(flags, "repo") || (typeof cwd === "string" ? cwd : "");
  const dir = resolve(io.cwd, named || ".");
  const root = await repoRoot(dir);
  const file = editedFile(payload, root, dir);
  if (file === undefined) return 0; // No file named: nothing to gate.
  if (file === null) return 0; // Outside the repository: not a claimable file.
  return await decide(io, `editing ${file}`, [file], 2);
}

/** `gate pre-commit|pre-push|edit [--repo PATH] [remote] [url]`. */
export async function runGate(io: GateIo, words: string[], flags: Flags): Promise<number> {
  const kind = words[1];
  try {
    if (kind === "edit") return await gateEdit(io, flags);
    const root = await repoRoot(repoDir(io, flags));
    if (kind === "pre-commit") return await decide(io, "commit", await stagedFiles(root), 1);
    if (kind === "pre-push") {
      return await decide(io, "push", await pushedFiles(root, words[2], await io.stdin()), 1);
    }
  } catch (error) {
    io.err(`svc gate: ${error instanceof Error ? error.message : String(error)}: refused`);
    return kind === "edit" ? 2 : 1;
  }
  io.err("usage: deno task cli gate pre-commit|pre-push|edit [--repo PATH]");
  return 2;
}

// ---- install --------------------------------------------------------------------------------------

/** `--repo PATH` (relative to where the CLI was started), else that directory. */
function repoDir(io: GateIo, flags: Flags): string {
  return resolve(io.cwd, str(flags, "repo") || ".");
}

function str(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}

/** The shell command that runs this checkout's CLI from anywhere. */
export function cliCommand(): string {
  return `deno task -q --cwd '${CHECKOUT.replace(/'/g, `'\\''`)}' cli`;
}

function hookScript(kind: "pre-commit" | "pre-push"): string {
  const args = kind === "pre-push" ? ` "$@"` : "";
  return `#!/bin/sh\n${MARKER}\n# Refuses a ${kind.slice(4)} that changes files the agent does not hold ` +
    `(SVC_URL, SVC_TOKEN or SVC_TOKEN_FILE; SVC_GATE_OFFLINE=allow lets it through while the service is down).\n` +
    `exec ${cliCommand()} gate ${kind} --repo "$(pwd)"${args}\n`;
}

async function writeHook(io: GateIo, dir: string, kind: "pre-commit" | "pre-push", force: boolean) {
  const path = join(dir, kind);
  let existing: string | null = null;
  try {
    existing = await Deno.readTextFile(path);
  } catch {
    existing = null;
  }
  if (existing !== null && !existing.includes(MARKER) && !force) {
    throw new Error(`${path} exists and is not ours: move it aside or pass --force to replace it`);
  }
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(path, hookScript(kind), { mode: 0o755 });
  await Deno.chmod(path, 0o755);
  io.out(`installed ${kind} hook: ${path}`);
}

interface HookEntry {
  matcher?: string;
  hooks?: { type?: string; command?: string }[];
}

/**
 * Merges the edit gate into `.claude/settings.json`: a PreToolUse entry for the edit tools, added once;
 * every other key and hook is kept as it was.
 */
export function mergeClaudeSettings(
  current: Record<string, unknown>,
  command: string,
): Record<string, unknown> {
  const hooks = (current.hooks && typeof current.hooks === "object" ? current.hooks : {}) as Record<
    string,
    unknown
  >;
  const pre = Array.isArray(hooks.PreToolUse) ? [...hooks.PreToolUse as HookEntry[]] : [];
  const present = pre.some((e) => e.hooks?.some((h) => h.command === command));
  if (!present) pre.push({ matcher: EDIT_TOOLS, hooks: [{ type: "command", command }] });
  return { ...current, hooks: { ...hooks, PreToolUse: pre } };
}

async function installClaudeCode(io: GateIo, root: string): Promise<void> {
  const path = join(root, ".claude", "settings.json");
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw new Error(`${path} is not valid JSON: fix it first`);
  }
  const command = `${cliCommand()} gate edit --repo "$CLAUDE_PROJECT_DIR"`;
  await Deno.mkdir(join(root, ".claude"), { recursive: true });
  await Deno.writeTextFile(path, JSON.stringify(mergeClaudeSettings(current, command), null, 2) + "\n");
  io.out(`installed the Claude Code edit gate (PreToolUse ${EDIT_TOOLS}): ${path}`);
}

/**
 * `hooks install [--repo PATH] [--pre-commit] [--pre-push] [--claude-code] [--force]`: without a choice,
 * both git hooks. The hooks folder is git's (`git rev-parse --git-path hooks`: core.hooksPath, and the
 * main repository's for a linked worktree).
 */
export async function installHooks(io: GateIo, flags: Flags): Promise<number> {
  try {
    const root = await repoRoot(repoDir(io, flags));
    const none = !flags["pre-commit"] && !flags["pre-push"] && !flags["claude-code"];
    const hooksDir = resolve(root, (await git(root, ["rev-parse", "--git-path", "hooks"])).trim());
    if (none || flags["pre-commit"]) await writeHook(io, hooksDir, "pre-commit", flags.force === true);
    if (none || flags["pre-push"]) await writeHook(io, hooksDir, "pre-push", flags.force === true);
    if (flags["claude-code"]) await installClaudeCode(io, root);
    return 0;
  } catch (error) {
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** The agent commands' help text (after their usage line). */
export const GATE_HELP =
  "Gates commits, pushes and edits on the agent's claims (POST /api/claim/verify). hooks install writes " +
  "pre-commit and pre-push hooks (both unless one is chosen) into git's hooks folder and, with --claude-code, " +
  "a PreToolUse edit gate into .claude/settings.json. Environment: SVC_URL, SVC_TOKEN or SVC_TOKEN_FILE; " +
  "SVC_GATE_OFFLINE=allow lets changes through while the service cannot be reached (otherwise refused).";

/** The agent commands' usage lines, for the CLI's overview. */
export const GATE_USAGE = [
  "hooks install [--repo PATH] [--pre-commit] [--pre-push] [--claude-code] [--force]",
  "gate pre-commit|pre-push|edit [--repo PATH]",
];
