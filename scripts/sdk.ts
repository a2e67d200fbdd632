/**
 * `deno task sdk [outDir]` builds the typed client (generated/client.ts and schema.ts) into an npm package,
 * by default in dist/sdk: ESM JavaScript, `.d.ts` files and a package.json that depends on `openapi-fetch`
 * from the npm registry. The package needs no Deno: `npm install dist/sdk`, then
 * `import { createClient } from "@svc/coordination-sdk"`.
 *
 * Each file is transpiled on its own (`transpileModule`, `transpileDeclaration`): the client is written
 * with explicit types, so no type check (and no resolution of `openapi-fetch`) is needed here;
 * `deno task check` type-checks the sources, and tests/sdk/ type-checks a consumer against the package.
 */
import ts from "typescript";

const ROOT = new URL("../", import.meta.url);
export const PACKAGE_NAME = "@svc/coordination-sdk";
const FETCH_SPECIFIER = /"npm:openapi-fetch@([^"]+)"/g;

const JS_OPTIONS: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext };
const DTS_OPTIONS: ts.CompilerOptions = { ...JS_OPTIONS, declaration: true, isolatedDeclarations: true };

/** The source as Node resolves it: bare `openapi-fetch`, and `./x.js` for the sibling `./x.ts`. */
function forNode(source: string): string {
  return source.replace(FETCH_SPECIFIER, '"openapi-fetch"').replace(/"\.\/([\w-]+)\.ts"/g, '"./$1.js"');
}

function transpile(name: string, source: string): { js: string; dts: string } {
  const fileName = `${name}.ts`;
  const js = ts.transpileModule(source, { compilerOptions: JS_OPTIONS, fileName, reportDiagnostics: true });
  const dts = ts.transpileDeclaration(source, { compilerOptions: DTS_OPTIONS, fileName });
  const problems = [...js.diagnostics ?? [], ...dts.diagnostics ?? []];
  if (problems.length > 0) {
    const text = problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n");
    throw new Error(`Cannot build the SDK from generated/${fileName}:\n${text}`);
  }
  return { js: js.outputText, dts: dts.outputText };
}

async function packageJson(fetchVersion: string): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const pkg = {
    name: PACKAGE_NAME,
    version: config.version,
    description: "Typed client for the agent coordination service: one method per OpenAPI operation",
    license: config.license,
    type: "module",
    main: "./client.js",
    types: "./client.d.ts",
    exports: { ".": { types: "./client.d.ts", import: "./client.js" } },
    files: ["*.js", "*.d.ts", "README.md"],
    sideEffects: false,
    dependencies: { "openapi-fetch": fetchVersion },
  };
  return JSON.stringify(pkg, null, 2) + "\n";
}

const README = `# ${PACKAGE_NAME}

Typed client for the agent coordination service, generated from its OpenAPI document: one method per
operation, named by its \`operationId\`, each answering \`{ data, error, response }\` (openapi-fetch).

\`\`\`js
import { createClient } from "${PACKAGE_NAME}";
const api = createClient({ baseUrl: "http://localhost:8787/api", token: "svc_sess_..." });
const { data, error } = await api.getMe();
await api.postTicketApprove({ params: { path: { ticketId } }, body: { comment: "Checked" } });
\`\`\`
`;

/** Builds the package into `outDir` (replaced); answers the files written. */
export async function buildSdk(outDir: string): Promise<string[]> {
  const client = await Deno.readTextFile(new URL("generated/client.ts", ROOT));
  const fetchVersion = [...client.matchAll(FETCH_SPECIFIER)][0]?.[1];
  if (!fetchVersion) {
    throw new Error("Cannot build the SDK: generated/client.ts imports no npm:openapi-fetch");
  }
  const files: Record<string, string> = {
    "package.json": await packageJson(fetchVersion),
    "README.md": README,
  };
  for (const name of ["client", "schema"]) {
    const built = transpile(name, forNode(await Deno.readTextFile(new URL(`generated/${name}.ts`, ROOT))));
    files[`${name}.js`] = built.js;
    files[`${name}.d.ts`] = built.dts;
  }
  await Deno.remove(outDir, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  await Deno.mkdir(outDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(`${outDir}/${name}`, text);
  return Object.keys(files).map((name) => `${outDir}/${name}`);
}

if (import.meta.main) {
  const outDir = Deno.args[0] ?? new URL("dist/sdk", ROOT).pathname;
  const written = await buildSdk(outDir);
  console.log(
    `built ${PACKAGE_NAME} in ${outDir} (${written.length} files); install with: npm install ${outDir}`,
  );
}
