/**
 * The operator surface on the command line: calls the operator API of the server at SVC_URL (else
 * PUBLIC_URL, else http://127.0.0.1:$PORT, else http://localhost:8787) with SVC_ADMIN_TOKEN. It prints
 * readable text; `--json` prints the answer's `data` (a list: `{ data, meta }`, `meta.nextCursor` naming
 * the next page).
 *
 * Every command is one row of COMMANDS: its words, usage, help line, the choices of its flags (from their
 * one definition in src/), the operator route it calls (src/admin/routes.ts: its method and path template,
 * whose `{params}` it fills in) and how its answer reads as text. A new command is a new row.
 */
import { ALL_SCOPES } from "@/domain/core/scopes.ts";
import { verifyLedger } from "./ledger-verify.ts";
import { adminPath, type AdminRoute, adminRoutes as r, webhookRouteGroups } from "@/admin/routes.ts";
import {
  AGENT_ROLES,
  MEMBER_ROLES,
  ORG_STATUSES,
  PLANS,
  PROJECT_STATUSES,
  REVIEW_MODES,
} from "@/shared/vocabulary.ts";
import { GATE_HELP, GATE_USAGE, type GateIo, installHooks, runGate } from "./gate.ts";

type Flags = Record<string, string | true>;
type Data = Record<string, unknown>;

export interface Command {
  /** The command's words, e.g. `org create`. */
  name: string;
  /** What follows the name in its usage line. */
  args: string;
  /** One line: what it does. */
  help: string;
  /** Allowed values per flag, listed by `--help`. */
  choices?: Record<string, readonly string[]>;
  /** The operator route it calls: the method and the path template come from it. */
  route: AdminRoute;
  /** The values of the route's path parameters (`{projectId}`); absent for a path without any. */
  params?: (flags: Flags, positional: string[]) => Record<string, string>;
  /** The query string of a list (`?limit=&cursor=`). */
  query?: (flags: Flags) => string;
  /** Absent for calls without a body. */
  body?: (flags: Flags) => Data;
  /** The answer's `data` as lines of text; a list's rows are printed as a table by default. */
  text?: (data: unknown) => string[];
  /**
   * A command that makes several calls (starting with `route`) and judges their answers itself: it
   * replaces the single call; returns the exit code.
   */
  run?: (
    flags: Flags,
    target: { url: string; token: string | undefined },
    out: (line: string) => void,
    fetchFn: typeof fetch,
  ) => Promise<number>;
}

// ---- flags ----------------------------------------------------------------------------------------

/** The undo commands: revoke a key or an agent, end a session, remove a member (200 with what changed). */
function undoCommands(): Command[] {
  const need = (p: string[], name: string) => {
    if (!p[0]) throw new Error(`missing ${name}`);
    return p[0];
  };
  return [
    {
      name: "api-key revoke",
      args: "--project PROJECT_ID KEY_ID",
      help: "Revokes an API key: refused at once, on every instance.",
      route: r.revokeApiKey,
      params: (f, p) => ({ projectId: required(f, "project"), keyId: need(p, "KEY_ID") }),
      text: titled("revoked API key"),
    },
    {
      name: "agent revoke",
      args: "--project PROJECT_ID AGENT_ID",
      help: "Revokes an agent: its keys, sessions and sub-agents revoked, its claims released.",
      route: r.revokeAgent,
      params: (f, p) => ({ projectId: required(f, "project"), agentId: need(p, "AGENT_ID") }),
      body: () => ({}),
      text: titled("revoked agent"),
    },
    {
      name: "session end",
      args: "SESSION_ID",
      help: "Ends a session: canceled, its token refused at once (the agent may pair again).",
      route: r.endSession,
      params: (_f, p) => ({ sessionId: need(p, "SESSION_ID") }),
      text: titled("ended session"),
    },
    {
      name: "member remove",
      args: "--project PROJECT_ID USER_ID",
      help: "Removes a member: the user loses the project at once (not the last admin).",
      route: r.removeMember,
      params: (f, p) => ({ projectId: required(f, "project"), userId: need(p, "USER_ID") }),
      text: titled("removed member"),
    },
  ];
}

/**
 * Webhook endpoints: `webhook ...` for a project's (--project), `partner-webhook ...` for an organisation's
 * partner endpoints (--org); the same ten commands each.
 */
function webhookCommands(): Command[] {
  const kinds = [
    {
      noun: "webhook",
      flag: "--project PROJECT_ID",
      owner: (f: Flags) => ({ projectId: required(f, "project") }),
      routes: webhookRouteGroups.project,
    },
    {
      noun: "partner-webhook",
      flag: "--org ORG_ID",
      owner: (f: Flags) => ({ orgId: required(f, "org") }),
      routes: webhookRouteGroups.org,
    },
  ];
  const out: Command[] = [];
  for (const { noun, flag, owner, routes: w } of kinds) {
    const one = (f: Flags, p: string[]) => ({ ...owner(f), webhookId: p[0] ?? "" });
    const hookBody = (f: Flags) =>
      compact({
        url: str(f, "url"),
        events: str(f, "events")?.split(",").map((e) => e.trim()).filter(Boolean),
        description: str(f, "description"),
      });
    out.push(
      {
        name: `${noun} create`,
        args: `${flag} --url URL --events KIND,claim.*,* [--description TEXT]`,
        help: "Registers a webhook endpoint; its signing secret (whsec_...) is shown once.",
        route: w.create,
        params: owner,
        body: hookBody,
        text: titled("webhook endpoint (the secret is shown once: keep it now)"),
      },
      {
        name: `${noun} list`,
        args: `${flag} ${PAGING}`,
        help: "Lists webhook endpoints.",
        route: w.list,
        params: owner,
        query: page,
        text: (data) => table(data as Data[], ["id", "url", "events", "enabled", "disabledReason"]),
      },
      {
        name: `${noun} get`,
        args: `${flag} ID`,
        help: "Shows a webhook endpoint.",
        route: w.get,
        params: one,
        text: fields,
      },
      {
        name: `${noun} update`,
        args: `${flag} ID [--url URL] [--events LIST] [--description TEXT]`,
        help: "Changes a webhook endpoint's URL, events or description.",
        route: w.update,
        params: one,
        body: hookBody,
        text: titled("updated webhook endpoint"),
      },
      {
        name: `${noun} disable`,
        args: `${flag} ID`,
        help: "Disables an endpoint: events raised meanwhile are not queued for it.",
        route: w.disable,
        params: one,
        body: () => ({}),
        text: titled("disabled webhook endpoint"),
      },
      {
        name: `${noun} enable`,
        args: `${flag} ID`,
        help: "Enables an endpoint: its queued deliveries go out.",
        route: w.enable,
        params: one,
        body: () => ({}),
        text: titled("enabled webhook endpoint"),
      },
      {
        name: `${noun} delete`,
        args: `${flag} ID`,
        help: "Deletes an endpoint and its deliveries.",
        route: w.delete,
        params: one,
        text: titled("deleted webhook endpoint"),
      },
      {
        name: `${noun} rotate-secret`,
        args: `${flag} ID`,
        help: "New signing secret (shown once); the old one keeps signing beside it for 24 hours.",
        route: w.rotateSecret,
        params: one,
        body: () => ({}),
        text: titled("new webhook secret (shown once: keep it now)"),
      },
      {
        name: `${noun} deliveries`,
        args: `${flag} ID ${PAGING}`,
        help: "Lists an endpoint's deliveries, newest first, with attempts and response codes.",
        route: w.deliveries,
        params: one,
        query: page,
        text: (data) =>
          table(data as Data[], ["id", "seq", "kind", "status", "attempts", "lastStatus", "lastError"]),
      },
      {
        name: `${noun} redeliver`,
        args: `${flag} ID DELIVERY_ID`,
        help: "Sends a delivery again (same webhook-id).",
        route: w.redeliver,
        params: (f, p) => ({ ...one(f, p), deliveryId: p[1] ?? "" }),
        body: () => ({}),
        text: titled("queued again"),
      },
    );
  }
  return out;
}

function str(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}

function required(flags: Flags, name: string): string {
  const value = str(flags, name);
  if (value === undefined) throw new Error(`missing --${name}`);
  return value;
}

function compact(obj: Data): Data {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

function json(flags: Flags, name: string): unknown {
  const value = str(flags, name);
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new Error(`--${name} is not JSON: ${value}`);
  }
}

/** `?limit=&cursor=` from --limit and --cursor. */
function page(f: Flags): string {
  const q = new URLSearchParams(
    compact({ limit: str(f, "limit"), cursor: str(f, "cursor") }) as Record<string, string>,
  );
  return q.size > 0 ? `?${q}` : "";
}

// ---- text -----------------------------------------------------------------------------------------

function scalar(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) {
    return value.length === 0
      ? "(none)"
      : value.map((v) => typeof v === "object" ? JSON.stringify(v) : String(v))
        .join(", ");
  }
  if (typeof value === "object") {
    return Object.keys(value).length === 0 ? "(none)" : JSON.stringify(value);
  }
  return String(value);
}

/** An object as aligned `key: value` lines. */
function fields(data: unknown): string[] {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return [scalar(data)];
  const entries = Object.entries(data);
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${scalar(v)}`);
}

/** Rows as a table of `columns` (each as wide as its widest cell). */
function table(rows: Data[], columns: string[]): string[] {
  if (rows.length === 0) return ["(none)"];
  const cells = [columns, ...rows.map((r) => columns.map((c) => scalar(r[c])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd());
}

const titled = (title: string) => (data: unknown) => [title, ...fields(data).map((l) => `  ${l}`)];

// ---- commands -------------------------------------------------------------------------------------

const PAGING = "[--limit 1..100] [--cursor CURSOR]";

/** The columns a list of each noun shows. */
const COLUMNS: Record<string, string[]> = {
  org: ["id", "name", "plan", "status", "createdAt"],
  user: ["id", "email", "name", "createdAt"],
  project: ["id", "name", "ticketPrefix", "reviewMode", "status"],
  member: ["userId", "email", "name", "role"],
  agent: ["id", "name", "role", "status", "platform"],
  "api-key": ["id", "name", "agentId", "scopes"],
};

/** `<noun> list` and `<noun> get ID` for each operator collection (GET /admin/...). */
function reads(): Command[] {
  const out: Command[] = [];
  const collections = [
    ["org", r.listOrgs, r.getOrg, "orgId", "organizations"],
    ["user", r.listUsers, r.getUser, "userId", "users"],
    ["project", r.listProjects, r.getProject, "projectId", "projects"],
    ["member", r.listMembers, r.getMember, "userId", "members of a project"],
    ["agent", r.listAgents, r.getAgent, "agentId", "agents of a project"],
    ["api-key", r.listApiKeys, r.getApiKey, "keyId", "API keys of a project (never the keys themselves)"],
  ] as const;
  for (const [noun, listRoute, getRoute, idName, what] of collections) {
    const scoped = listRoute.path.includes("{projectId}");
    const project = (f: Flags): Record<string, string> => scoped ? { projectId: required(f, "project") } : {};
    out.push({
      name: `${noun} list`,
      args: `${scoped ? "--project PROJECT_ID " : ""}${PAGING}`,
      help: `Lists the ${what}, oldest first.`,
      route: listRoute,
      params: project,
      query: page,
      text: (data) => table(data as Data[], COLUMNS[noun]!),
    });
    out.push({
      name: `${noun} get`,
      args: `${scoped ? "--project PROJECT_ID " : ""}${noun === "member" ? "USER_ID" : "ID"}`,
      help: `Shows one of the ${what}.`,
      route: getRoute,
      params: (f, p) => ({ ...project(f), [idName]: p[0] ?? "" }),
      text: fields,
    });
  }
  return out;
}

export const COMMANDS: Command[] = [
  {
    name: "org create",
    args: "--name NAME [--plan PLAN]",
    help: "Creates an organization (plan free unless given).",
    choices: { plan: PLANS },
    route: r.createOrg,
    body: (f) => compact({ name: required(f, "name"), plan: str(f, "plan") }),
    text: titled("created organization"),
  },
  {
    name: "org update",
    args: "ORG_ID [--plan PLAN] [--status STATUS]",
    help: "Changes an organization's plan or status (suspended: its projects refuse agents).",
    choices: { plan: PLANS, status: ORG_STATUSES },
    route: r.updateOrg,
    params: (_f, p) => ({ orgId: p[0] ?? "" }),
    body: (f) => compact({ plan: str(f, "plan"), status: str(f, "status") }),
    text: titled("updated organization"),
  },
  {
    name: "user create",
    args: "--email EMAIL --password PASSWORD --name NAME",
    help: "Creates a user (signs in to the dashboard and the OAuth page).",
    route: r.createUser,
    body: (f) => ({
      email: required(f, "email"),
      password: required(f, "password"),
      name: required(f, "name"),
    }),
    text: titled("created user"),
  },
  {
    name: "project create",
    args: "--org ORG_ID --name NAME --prefix PREFIX [--review-mode MODE] [--password PW] [--settings JSON]",
    help: "Creates a project; PREFIX (2 to 10 upper-case letters) starts its ticket keys.",
    choices: { "review-mode": REVIEW_MODES },
    route: r.createProject,
    body: (f) =>
      compact({
        orgId: required(f, "org"),
        name: required(f, "name"),
        ticketPrefix: required(f, "prefix"),
        reviewMode: str(f, "review-mode"),
        password: str(f, "password"),
        settings: json(f, "settings"),
      }),
    text: titled("created project"),
  },
  {
    name: "project update",
    args: "PROJECT_ID [--name N] [--review-mode MODE] [--status STATUS] [--password PW] [--settings JSON]",
    help: "Changes a project's name, review mode, status, password or settings.",
    choices: { "review-mode": REVIEW_MODES, status: PROJECT_STATUSES },
    route: r.updateProject,
    params: (_f, p) => ({ projectId: p[0] ?? "" }),
    body: (f) =>
      compact({
        name: str(f, "name"),
        reviewMode: str(f, "review-mode"),
        status: str(f, "status"),
        password: str(f, "password"),
        settings: json(f, "settings"),
      }),
    text: titled("updated project"),
  },
  {
    name: "member add",
    args: "--project PROJECT_ID --user USER_ID --role ROLE",
    help: "Makes a user a member of a project.",
    choices: { role: MEMBER_ROLES },
    route: r.addMember,
    params: (f) => ({ projectId: required(f, "project") }),
    body: (f) => ({ userId: required(f, "user"), role: required(f, "role") }),
    text: titled("added member"),
  },
  {
    name: "pair-code",
    args: "--project PROJECT_ID [--role ROLE] [--agent-name NAME] [--platform P] [--model M]",
    help: "Mints a pairing code for an agent (role generator unless given); it is shown once.",
    choices: { role: AGENT_ROLES },
    route: r.createPairingCode,
    params: (f) => ({ projectId: required(f, "project") }),
    body: (f) =>
      compact({
        role: str(f, "role"),
        agentName: str(f, "agent-name"),
        platform: str(f, "platform"),
        model: str(f, "model"),
      }),
    text: (data) => {
      const d = data as Data;
      return [
        `pairing code: ${scalar(d.code)} (shown once; expires ${scalar(d.expiresAt)})`,
        'the agent sends it to POST /api/pair/connect as { "code": ..., "agentName": ... }',
      ];
    },
  },
  {
    name: "api-key",
    args: "--project PROJECT_ID --agent-name NAME [--name KEY_NAME] [--role ROLE] [--scopes a,b]",
    help: "Mints an API key for an agent (created by name if new); no scopes means unrestricted.",
    choices: { role: AGENT_ROLES, scopes: ALL_SCOPES },
    route: r.createApiKey,
    params: (f) => ({ projectId: required(f, "project") }),
    body: (f) =>
      compact({
        agentName: required(f, "agent-name"),
        name: str(f, "name"),
        role: str(f, "role"),
        scopes: str(f, "scopes")?.split(",").map((s) => s.trim()).filter(Boolean),
      }),
    text: titled("API key (the key is shown once: keep it now)"),
  },
  {
    name: "keys rotate",
    args: "",
    help: "Adds a new OAuth signing key; older keys verify until their tokens expire.",
    route: r.rotateKeys,
    body: () => ({}),
    text: titled("new signing key"),
  },
  {
    name: "clock advance",
    args: "--ms MILLISECONDS",
    help: "Moves the service's clock forward (a server started with SVC_TEST_CLOCK=1).",
    route: r.advanceClock,
    body: (f) => ({ advanceMs: Number(required(f, "ms")) }),
    text: titled("clock advanced"),
  },
  ...reads(),
  ...undoCommands(),
  ...webhookCommands(),
  {
    name: "ledger verify",
    args: "--project PROJECT_ID [--jwks FILE_OR_URL]",
    help: "Recomputes a project's ledger hash chain and checks each signed checkpoint against the JWKS " +
      "(the service's, or a saved copy); reports the first entry that does not match (exit 1).",
    route: r.ledgerChain,
    params: (f) => ({ projectId: required(f, "project") }),
    run: (f, target, out, fetchFn) =>
      verifyLedger(required(f, "project"), target, out, fetchFn, str(f, "jwks")),
  },
];

// ---- running --------------------------------------------------------------------------------------

const BOOLEAN_FLAGS = new Set(["json", "help", "pre-commit", "pre-push", "claude-code", "force"]);

function parseArgs(args: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-h") flags.help = true;
    else if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
      if (inline !== undefined) flags[name] = inline;
      else if (BOOLEAN_FLAGS.has(name)) flags[name] = true;
      else if (args[i + 1] !== undefined && !args[i + 1]!.startsWith("--")) flags[name] = args[++i]!;
      else flags[name] = true;
    } else {
      words.push(arg);
    }
  }
  return { words, flags };
}

const usageOf = (c: Command) => `${c.name}${c.args ? ` ${c.args}` : ""}`;

function overview(): string {
  return "usage: deno task cli [--json] <command>\ncommands:\n" +
    COMMANDS.map((c) => `  ${usageOf(c)}`).join("\n") +
    "\n`deno task cli <command> --help` lists a command's choices. Output is text; --json prints the answer's " +
    "data.\nenvironment: SVC_URL (else PUBLIC_URL, else http://127.0.0.1:$PORT, else http://localhost:8787), " +
    "SVC_ADMIN_TOKEN\nagent commands (gate commits, pushes and edits on the agent's claims; SVC_URL, SVC_TOKEN " +
    "or SVC_TOKEN_FILE, SVC_GATE_OFFLINE=allow):\n" + GATE_USAGE.map((u) => `  ${u}`).join("\n");
}

function commandHelp(c: Command): string {
  const lines = [`usage: deno task cli [--json] ${usageOf(c)}`, c.help];
  for (const [flag, values] of Object.entries(c.choices ?? {})) {
    lines.push(`  --${flag}: ${values.join(", ")}`);
  }
  return lines.join("\n");
}

/** The command the words name (two words, else one), with the words left over. */
function lookUp(words: string[]): { command: Command; positional: string[] } | undefined {
  for (const n of [2, 1]) {
    const command = COMMANDS.find((c) => c.name === words.slice(0, n).join(" "));
    if (command && words.length >= n) return { command, positional: words.slice(n) };
  }
  return undefined;
}

function unknownCommand(words: string[]): string {
  const asked = words.slice(0, 2).join(" ");
  const near = COMMANDS.filter((c) => c.name.split(" ")[0] === words[0]).map((c) => c.name);
  return `unknown command: ${asked}` + (near.length > 0 ? ` (did you mean: ${near.join(", ")}?)` : "") +
    "\nrun `deno task cli --help` for the list of commands";
}

/** The server's URL from the environment: SVC_URL, else PUBLIC_URL, else PORT, else the default. */
export function defaultUrl(env: Record<string, string | undefined>): string {
  if (env.SVC_URL) return env.SVC_URL;
  if (env.PUBLIC_URL) return env.PUBLIC_URL;
  if (env.PORT) return `http://127.0.0.1:${env.PORT}`;
  return "http://localhost:8787";
}

interface Answer {
  data?: unknown;
  meta?: { nextCursor?: string | null };
  error?: { code: string; message: string; details?: { fields?: { path: string; message: string }[] } };
}

function refusal(status: number, parsed: Answer, text: string, url: string): string[] {
  if (status === 404 && /operator API is off/i.test(parsed.error?.message ?? "")) {
    return [
      `error: the operator API of the server at ${url} is off`,
      "  turn it on: restart the server with SVC_ADMIN_TOKEN=<a long random secret> in its environment,",
      "  then run the CLI with the same SVC_ADMIN_TOKEN",
    ];
  }
  const lines = [`error: HTTP ${status} ${parsed.error?.code ?? ""}: ${parsed.error?.message ?? text}`];
  for (const field of parsed.error?.details?.fields ?? []) lines.push(`  ${field.path}: ${field.message}`);
  if (status === 401) lines.push("  check SVC_ADMIN_TOKEN: it must be the server's admin token");
  return lines;
}

function answerText(command: Command, parsed: Answer): string[] {
  const lines = command.text ? command.text(parsed.data) : fields(parsed.data);
  const next = parsed.meta?.nextCursor;
  if (next) lines.push(`next page: --cursor ${next}`);
  return lines;
}

/** The URL path a command calls: its route's template under /admin, parameters filled in, plus its query. */
export function commandPath(command: Command, flags: Flags, positional: string[]): string {
  return adminPath(command.route, command.params?.(flags, positional)) + (command.query?.(flags) ?? "");
}

/**
 * The agent commands (issue 25), which call the REST API with the agent's token rather than an operator
 * route: `hooks install` and `gate ...`; null for any other command.
 */
export async function runAgentCommand(args: string[], io: GateIo): Promise<number | null> {
  const { words, flags } = parseArgs(args);
  if (flags.help) return null; // runCli prints the usage.
  if (words[0] === "hooks" && words[1] === "install") return await installHooks(io, flags);
  if (words[0] === "gate") return await runGate(io, words, flags);
  return null;
}

/** Runs one CLI invocation; returns the exit code. Exported for tests. */
export async function runCli(
  args: string[],
  env: { url: string; token: string | undefined },
  out: (line: string) => void,
  fetchFn: typeof fetch = fetch,
): Promise<number> {
  const { words, flags } = parseArgs(args);
  if (words.length === 0) {
    out(overview());
    return flags.help ? 0 : 2;
  }
  const agentUsage = GATE_USAGE.find((u) => u.startsWith(`${words.slice(0, 2).join(" ")} `)) ??
    GATE_USAGE.find((u) => words.length === 1 && u.startsWith(`${words[0]} `));
  if (agentUsage && flags.help) {
    out(`usage: deno task cli [--json] ${agentUsage}\n${GATE_HELP}`);
    return 0;
  }
  const found = lookUp(words);
  if (!found) {
    out(unknownCommand(words));
    return 2;
  }
  const { command, positional } = found;
  if (flags.help) {
    out(commandHelp(command));
    return 0;
  }
  let body: Data | undefined;
  let path: string;
  try {
    body = command.body?.(flags);
    path = commandPath(command, flags, positional);
  } catch (err) {
    out(
      `error: ${err instanceof Error ? err.message : String(err)}\n  usage: deno task cli ${
        usageOf(command)
      }`,
    );
    return 2;
  }
  if (command.run) return await command.run(flags, env, out, fetchFn);
  const url = `${env.url.replace(/\/+$/, "")}${path}`;
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: command.route.method.toUpperCase(),
      headers: {
        Authorization: `Bearer ${env.token ?? ""}`,
        ...(body ? { "Content-Type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
    out(`error: cannot reach the server at ${env.url} (set SVC_URL, PUBLIC_URL or PORT): ${reason}`);
    return 1;
  }
  const text = await res.text();
  let parsed: Answer = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    out(`error: HTTP ${res.status}: ${text.slice(0, 200)}`);
    return 1;
  }
  if (!res.ok) {
    for (const line of refusal(res.status, parsed, text, env.url)) out(line);
    return 1;
  }
  if (flags.json) out(JSON.stringify(Array.isArray(parsed.data) ? parsed : parsed.data, null, 2));
  else for (const line of answerText(command, parsed)) out(line);
  return 0;
}

if (import.meta.main) {
  const env = Deno.env.toObject();
  const agent = await runAgentCommand(Deno.args, {
    env,
    stdin: () => new Response(Deno.stdin.readable).text(),
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    fetchFn: fetch,
    cwd: env.INIT_CWD || Deno.cwd(),
  });
  if (agent !== null) Deno.exit(agent);
  const code = await runCli(
    Deno.args,
    { url: defaultUrl(env), token: env.SVC_ADMIN_TOKEN },
    (line) => console.log(line),
  );
  Deno.exit(code);
}
