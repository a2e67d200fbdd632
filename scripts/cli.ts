/**
 * The operator surface on the command line: calls the operator API of the server at SVC_URL
 * (default http://localhost:8787) with SVC_ADMIN_TOKEN. `--json` prints the `data` object alone.
 */

type Flags = Record<string, string | true>;

interface Command {
  usage: string;
  method: string;
  path: (flags: Flags, positional: string[]) => string;
  /** Absent for reads (GET). */
  body?: (flags: Flags) => Record<string, unknown>;
}

/** `?limit=&cursor=` from --limit and --cursor. */
function page(f: Flags): string {
  const q = new URLSearchParams(
    compact({ limit: str(f, "limit"), cursor: str(f, "cursor") }) as Record<string, string>,
  );
  return q.size > 0 ? `?${q}` : "";
}

const PAGING = "[--limit 1..100] [--cursor CURSOR]";

/** `<noun> list` and `<noun> get ID` for each operator collection (GET /admin/...). */
function reads(): Record<string, Command> {
  const out: Record<string, Command> = {};
  for (const [noun, collection] of [["org", "orgs"], ["user", "users"], ["project", "projects"]] as const) {
    out[`${noun} list`] = {
      usage: `${noun} list ${PAGING}`,
      method: "GET",
      path: (f) => `/admin/${collection}${page(f)}`,
    };
    out[`${noun} get`] = {
      usage: `${noun} get ${noun.toUpperCase()}_ID`,
      method: "GET",
      path: (_f, p) => `/admin/${collection}/${encodeURIComponent(p[0] ?? "")}`,
    };
  }
  for (
    const [noun, collection] of [["member", "members"], ["agent", "agents"], ["api-key", "api-keys"]] as const
  ) {
    out[`${noun} list`] = {
      usage: `${noun} list --project PROJECT_ID ${PAGING}`,
      method: "GET",
      path: (f) => `/admin/projects/${encodeURIComponent(required(f, "project"))}/${collection}${page(f)}`,
    };
    out[`${noun} get`] = {
      usage: `${noun} get --project PROJECT_ID ID`,
      method: "GET",
      path: (f, p) =>
        `/admin/projects/${encodeURIComponent(required(f, "project"))}/${collection}/${
          encodeURIComponent(p[0] ?? "")
        }`,
    };
  }
  return out;
}

/** The undo commands: revoke a key or an agent, end a session, remove a member (200 with what changed). */
function undoCommands(): Record<string, Command> {
  const id = (p: string[], name: string) => {
    if (!p[0]) throw new Error(`missing ${name}`);
    return encodeURIComponent(p[0]);
  };
  const project = (f: Flags) => `/admin/projects/${encodeURIComponent(required(f, "project"))}`;
  return {
    "api-key revoke": {
      usage: "api-key revoke --project PROJECT_ID KEY_ID   (the key is refused at once)",
      method: "DELETE",
      path: (f, p) => `${project(f)}/api-keys/${id(p, "KEY_ID")}`,
    },
    "agent revoke": {
      usage: "agent revoke --project PROJECT_ID AGENT_ID   (its keys and sessions revoked, claims released)",
      method: "POST",
      path: (f, p) => `${project(f)}/agents/${id(p, "AGENT_ID")}/revoke`,
      body: () => ({}),
    },
    "session end": {
      usage: "session end SESSION_ID   (canceled, its token refused at once)",
      method: "DELETE",
      path: (_f, p) => `/admin/sessions/${id(p, "SESSION_ID")}`,
    },
    "member remove": {
      usage: "member remove --project PROJECT_ID USER_ID   (the user loses the project at once)",
      method: "DELETE",
      path: (f, p) => `${project(f)}/members/${id(p, "USER_ID")}`,
    },
  };
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

function compact(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

const COMMANDS: Record<string, Command> = {
  "org create": {
    usage: "org create --name NAME [--plan free|builder|growth|team|enterprise]",
    method: "POST",
    path: () => "/admin/orgs",
    body: (f) => compact({ name: required(f, "name"), plan: str(f, "plan") }),
  },
  "org update": {
    usage: "org update ORG_ID [--plan PLAN] [--status active|suspended]",
    method: "PATCH",
    path: (_f, p) => `/admin/orgs/${p[0] ?? ""}`,
    body: (f) => compact({ plan: str(f, "plan"), status: str(f, "status") }),
  },
  "user create": {
    usage: "user create --email EMAIL --password PASSWORD --name NAME",
    method: "POST",
    path: () => "/admin/users",
    body: (f) => ({
      email: required(f, "email"),
      password: required(f, "password"),
      name: required(f, "name"),
    }),
  },
  "project create": {
    usage: "project create --org ORG_ID --name NAME --prefix PREFIX [--review-mode MODE] [--password PW]",
    method: "POST",
    path: () => "/admin/projects",
    body: (f) =>
      compact({
        orgId: required(f, "org"),
        name: required(f, "name"),
        ticketPrefix: required(f, "prefix"),
        reviewMode: str(f, "review-mode"),
        password: str(f, "password"),
        settings: str(f, "settings") ? JSON.parse(str(f, "settings")!) : undefined,
      }),
  },
  "project update": {
    usage:
      "project update PROJECT_ID [--name N] [--review-mode M] [--status active|archived] [--settings JSON]",
    method: "PATCH",
    path: (_f, p) => `/admin/projects/${p[0] ?? ""}`,
    body: (f) =>
      compact({
        name: str(f, "name"),
        reviewMode: str(f, "review-mode"),
        status: str(f, "status"),
        password: str(f, "password"),
        settings: str(f, "settings") ? JSON.parse(str(f, "settings")!) : undefined,
      }),
  },
  "member add": {
    usage: "member add --project PROJECT_ID --user USER_ID --role admin|member|viewer",
    method: "POST",
    path: (f) => `/admin/projects/${required(f, "project")}/members`,
    body: (f) => ({ userId: required(f, "user"), role: required(f, "role") }),
  },
  "pair-code": {
    usage: "pair-code --project PROJECT_ID [--role ROLE] [--agent-name NAME] [--platform P] [--model M]",
    method: "POST",
    path: (f) => `/admin/projects/${required(f, "project")}/pairing-codes`,
    body: (f) =>
      compact({
        role: str(f, "role"),
        agentName: str(f, "agent-name"),
        platform: str(f, "platform"),
        model: str(f, "model"),
      }),
  },
  "api-key": {
    usage: "api-key --project PROJECT_ID --agent-name NAME [--name KEY_NAME] [--role ROLE] [--scopes a,b]",
    method: "POST",
    path: (f) => `/admin/projects/${required(f, "project")}/api-keys`,
    body: (f) =>
      compact({
        agentName: required(f, "agent-name"),
        name: str(f, "name"),
        role: str(f, "role"),
        scopes: str(f, "scopes")?.split(",").map((s) => s.trim()).filter(Boolean),
      }),
  },
  "keys rotate": {
    usage: "keys rotate   (new OAuth signing key; older keys verify until their tokens expire)",
    method: "POST",
    path: () => "/admin/keys/rotate",
    body: () => ({}),
  },
  "clock advance": {
    usage: "clock advance --ms MILLISECONDS   (server started with SVC_TEST_CLOCK=1)",
    method: "POST",
    path: () => "/admin/clock",
    body: (f) => ({ advanceMs: Number(required(f, "ms")) }),
  },
  ...reads(),
  ...undoCommands(),
};

const BOOLEAN_FLAGS = new Set(["json", "help"]);

function parseArgs(args: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith("--")) {
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

function usage(): string {
  return "usage: deno task cli [--json] <command>\n" +
    Object.values(COMMANDS).map((c) => `  ${c.usage}`).join("\n") +
    "\nenvironment: SVC_URL (default http://localhost:8787), SVC_ADMIN_TOKEN";
}

/** Runs one CLI invocation; returns the exit code. Exported for tests. */
export async function runCli(
  args: string[],
  env: { url: string; token: string | undefined },
  out: (line: string) => void,
  fetchFn: typeof fetch = fetch,
): Promise<number> {
  const { words, flags } = parseArgs(args);
  const key = COMMANDS[`${words[0]} ${words[1]}`] ? `${words[0]} ${words[1]}` : words[0] ?? "";
  const command = COMMANDS[key];
  if (!command) {
    out(usage());
    return flags.help ? 0 : 2;
  }
  if (flags.help) {
    out(`usage: deno task cli [--json] ${command.usage}`);
    return 0;
  }
  const positional = words.slice(key.split(" ").length);
  let body: Record<string, unknown> | undefined;
  let path: string;
  try {
    body = command.body?.(flags);
    path = command.path(flags, positional);
  } catch (err) {
    out(`error: ${err instanceof Error ? err.message : String(err)}\n  ${command.usage}`);
    return 2;
  }
  const url = `${env.url.replace(/\/+$/, "")}${path}`;
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: command.method,
      headers: {
        Authorization: `Bearer ${env.token ?? ""}`,
        ...(body ? { "Content-Type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
    out(`error: cannot reach the server at ${env.url} (set SVC_URL): ${reason}`);
    return 1;
  }
  const text = await res.text();
  let parsed: {
    data?: unknown;
    meta?: unknown;
    error?: { code: string; message: string; details?: { fields?: { path: string; message: string }[] } };
  } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    out(`error: HTTP ${res.status}: ${text.slice(0, 200)}`);
    return 1;
  }
  if (!res.ok) {
    out(`error: HTTP ${res.status} ${parsed.error?.code ?? ""}: ${parsed.error?.message ?? text}`);
    for (const field of parsed.error?.details?.fields ?? []) out(`  ${field.path}: ${field.message}`);
    return 1;
  }
  out(JSON.stringify(flags.json ? parsed.data : parsed, null, 2));
  return 0;
}

if (import.meta.main) {
  const code = await runCli(
    Deno.args,
    { url: Deno.env.get("SVC_URL") ?? "http://localhost:8787", token: Deno.env.get("SVC_ADMIN_TOKEN") },
    (line) => console.log(line),
  );
  Deno.exit(code);
}
