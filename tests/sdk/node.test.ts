// The SDK as a Node project uses it: `deno task sdk` builds the package into a temporary directory (two
// concurrent suites never share one), a plain `npm install <folder>` puts it in a scratch npm project (npm
// symlinks the folder and installs no dependency of it: the package has none, openapi-fetch is vendored),
// a .mjs script calls a real service on a loopback port, tsc checks a TypeScript consumer against the
// installed .d.ts, and the package's `npm pack` tarball installs and imports too. Reported as ignored, saying why, when
// node or npm is absent.
import assert from "node:assert/strict";
import ts from "typescript";
import { createApp } from "@/app.ts";
import { ADMIN_TOKEN, env, newProject, test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url);
const PACKAGE = "@svc/coordination-sdk";

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    env: { NO_COLOR: "1", npm_config_update_notifier: "false" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${out.code}):\n${text}${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return text;
}

async function hasNodeAndNpm(): Promise<boolean> {
  try {
    await run("node", ["--version"], ".");
    await run("npm", ["--version"], ".");
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** A fresh npm project in `dir`. */
async function npmProject(dir: string): Promise<string> {
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/package.json`,
    JSON.stringify({ name: "scratch", private: true, type: "module" }),
  );
  return dir;
}

/**
 * Builds the SDK with `deno task sdk` and installs the folder into a fresh npm project, as its README says:
 * a plain `npm install <folder>` (no `--install-links`), which links the folder and installs none of its
 * dependencies, so the package must need none.
 */
async function installSdk(work: string): Promise<string> {
  await run(Deno.execPath(), ["task", "sdk", `${work}/sdk`], ROOT.pathname);
  const app = await npmProject(`${work}/app`);
  await run("npm", ["install", "--no-audit", "--no-fund", `${work}/sdk`], app);
  return app;
}

const SCRIPT = `import { createClient, OPERATIONS } from "${PACKAGE}";
const [origin, code] = process.argv.slice(2);
const baseUrl = origin + "/api";
const paired = await createClient({ baseUrl }).postPairConnect({ body: { code, agentName: "node-agent" } });
const api = createClient({ baseUrl, token: paired.data.data.sessionToken });
const me = await api.getMe();
const missing = await api.getTicket({ params: { query: { key: "NOPE-999" } } });
const metadata = await api.getWellKnownOauthAuthorizationServer();
console.log(JSON.stringify({
  operations: Object.keys(OPERATIONS).length,
  paired: paired.response.status,
  me: [me.response.status, me.data.data.agent.name, me.data.data.sessionId === paired.data.data.sessionId],
  missing: [missing.response.status, missing.error.error.code, missing.error.error.details.recovery.action],
  metadata: [metadata.response.status, typeof metadata.data.issuer],
}));
`;

const CONSUMER = `import { createClient, type SvcApi } from "${PACKAGE}";
const api: SvcApi = createClient({ baseUrl: "http://localhost:8787/api", token: "svc_sess_x" });
const me = await api.getMe();
const name: string | undefined = me.data?.data.agent.name;
const approved = await api.postTicketApprove({ params: { path: { ticketId: "t" } }, body: { comment: "ok" } });
const code: string | undefined = approved.error?.error.code;
// @ts-expect-error the ticket id is a required path parameter
await api.postTicketApprove();
// @ts-expect-error the pairing code is a string
await api.postPairConnect({ body: { code: 7, agentName: "x" } });
// @ts-expect-error no such operation
await api.getNothing();
export { code, name };
`;

/** tsc's diagnostics for the consumer, resolved as Node does (NodeNext) against the installed package. */
function typeCheck(app: string): string[] {
  const file = `${app}/consumer.mts`;
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    // The package's .d.ts files, the vendored openapi-fetch's included, are checked too (an import in them
    // that does not resolve would otherwise pass unreported); TypeScript's own lib files are not.
    skipLibCheck: false,
    skipDefaultLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) =>
    `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
  );
}

const NODE_AND_NPM = await hasNodeAndNpm();

test(
  "the npm package built by `deno task sdk` installs with a plain `npm install <folder>` (or its tarball) and, from Node, pairs an agent and calls getMe, getTicket and an OAuth operation; its .d.ts types a consumer",
  async () => {
    const e = await env();
    const work = await Deno.makeTempDir({ prefix: "svc-sdk-" });
    const app = createApp({ db: e.db, engine: e.engine, clock: e.clock, config: e.config });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
    const origin = `http://127.0.0.1:${server.addr.port}`;
    try {
      const { projectId } = await newProject();
      const res = await e.fetch(`/admin/projects/${projectId}/pairing-codes`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ role: "generator" }),
      });
      const { code } = (await res.json()).data;
      const project = await installSdk(work);
      const installed = JSON.parse(
        await Deno.readTextFile(`${project}/node_modules/${PACKAGE}/package.json`),
      );
      assert.equal(installed.type, "module");
      assert.deepEqual(installed.exports["."], { types: "./client.d.ts", import: "./client.js" });
      assert.equal(installed.dependencies, undefined);
      const modules = [];
      for await (const entry of Deno.readDir(`${project}/node_modules`)) modules.push(entry.name);
      assert.deepEqual(modules.filter((name) => !name.startsWith(".")), ["@svc"]);

      await Deno.writeTextFile(`${project}/main.mjs`, SCRIPT);
      const output = JSON.parse(await run("node", ["main.mjs", origin, code], project));
      const paths = JSON.parse(await Deno.readTextFile(new URL("openapi/openapi.json", ROOT))).paths;
      assert.deepEqual(output, {
        operations: Object.values(paths).flatMap((item) => Object.keys(item as object)).length,
        paired: 200,
        me: [200, "node-agent", true],
        missing: [404, "TICKET_NOT_FOUND", "RESOLVE_TICKET_REF"],
        metadata: [200, "string"],
      });

      await Deno.writeTextFile(`${project}/consumer.mts`, CONSUMER);
      assert.deepEqual(typeCheck(project), []);

      // The tarball `npm pack` makes (what a registry would serve) holds the vendored files and works alike.
      const [packed] = JSON.parse(await run("npm", ["pack", "--json", "./sdk"], work));
      assert.ok(packed.files.some((f: { path: string }) => f.path === "vendor/openapi-fetch/index.mjs"));
      const fromTarball = await npmProject(`${work}/from-tarball`);
      await run("npm", ["install", "--no-audit", "--no-fund", `${work}/${packed.filename}`], fromTarball);
      const imported = await run("node", [
        "--input-type=module",
        "-e",
        `import { createClient } from "${PACKAGE}";
const api = createClient({ baseUrl: process.argv[1] + "/api" });
console.log((await api.getWellKnownOauthAuthorizationServer()).response.status);`,
        origin,
      ], fromTarball);
      assert.equal(imported.trim(), "200");
    } finally {
      await server.shutdown();
      await Deno.remove(work, { recursive: true });
    }
  },
  { ignore: !NODE_AND_NPM, reason: "node or npm is not on PATH" },
);
