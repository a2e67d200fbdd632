/**
 * `deno task sdk [outDir]` builds the typed client (generated/client.ts and schema.ts) into an npm package,
 * by default in dist/sdk: ESM JavaScript, `.d.ts` files and a package.json. The package needs no Deno and
 * has no dependencies: `npm install dist/sdk` (a plain folder install, which npm makes a symlink and for
 * which it installs no dependencies), then `import { createClient } from "@svc/coordination-sdk"`.
 *
 * So openapi-fetch, the client's one runtime dependency, is vendored into `vendor/openapi-fetch/` (its
 * dependency-free ESM build, its `.d.mts` types and its MIT LICENSE), with the type-only
 * `openapi-typescript-helpers` its types import in `vendor/openapi-typescript-helpers/`; client.js and
 * client.d.ts import them by relative path. Both come from Deno's npm cache, at the version deno.lock pins
 * (integrity-checked by Deno when it downloaded them): the static `import "openapi-fetch"` below makes
 * Deno fetch them before this script runs when `deno task check` has not already.
 *
 * Each file is transpiled on its own (`transpileModule`, `transpileDeclaration`): the client is written
 * with explicit types, so no type check (and no resolution of `openapi-fetch`) is needed here;
 * `deno task check` type-checks the sources, and tests/sdk/ type-checks a consumer against the package.
 */
import "openapi-fetch"; // only so that Deno has the package (and its dependencies) in its npm cache
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import ts from "typescript";

const ROOT = new URL("../", import.meta.url);
export const PACKAGE_NAME = "@svc/coordination-sdk";
const FETCH_SPECIFIER = /"npm:openapi-fetch@([^"]+)"/g;

const JS_OPTIONS: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext };
const DTS_OPTIONS: ts.CompilerOptions = { ...JS_OPTIONS, declaration: true, isolatedDeclarations: true };

const VENDOR = "vendor";
const FETCH_ENTRY = `./${VENDOR}/openapi-fetch/index.mjs`;

/** The source as Node resolves it: the vendored openapi-fetch, and `./x.js` for the sibling `./x.ts`. */
function forNode(source: string): string {
  return source.replace(FETCH_SPECIFIER, `"${FETCH_ENTRY}"`).replace(/"\.\/([\w-]+)\.ts"/g, '"./$1.js"');
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

async function packageJson(): Promise<string> {
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
    files: ["*.js", "*.d.ts", "README.md", "LICENSE", `${VENDOR}/`],
    sideEffects: false,
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

The package has no dependencies: \`npm install path/to/this/folder\` (or its \`npm pack\` tarball) is all it
needs. openapi-fetch (MIT, by Drew Powers) is vendored in \`${VENDOR}/openapi-fetch/\`, with the type-only
openapi-typescript-helpers in \`${VENDOR}/openapi-typescript-helpers/\`, each with its LICENSE.
`;

/** A package as found on disk: its directory (a file URL ending in `/`) and package.json. */
interface CachedPackage {
  dir: URL;
  name: string;
  version: string;
  license: string;
}

/** The package `name` that the file `file` (a file URL) belongs to: the nearest package.json above it. */
async function packageOf(file: URL, name: string): Promise<CachedPackage> {
  for (let dir = new URL("./", file), up = ""; dir.href !== up; up = dir.href, dir = new URL("../", dir)) {
    const text = await Deno.readTextFile(new URL("package.json", dir)).catch((e) => {
      if (e instanceof Deno.errors.NotFound) return undefined;
      throw e;
    });
    if (text === undefined) continue;
    const pkg = JSON.parse(text);
    if (pkg.name === name) return { dir, name, version: pkg.version, license: pkg.license ?? "see LICENSE" };
  }
  throw new Error(`Cannot build the SDK: no package.json of ${name} above ${file.href}`);
}

/**
 * A file of `pkg` to vendor, with a line naming its origin, checked to import nothing but the specifiers in
 * `allowed` (which the caller rewrites to relative ones).
 */
async function vendorFile(pkg: CachedPackage, path: string, allowed: string[] = []): Promise<string> {
  const text = (await Deno.readTextFile(new URL(path, pkg.dir))).replace(
    /^\/\/# sourceMappingURL=.*\n?/m,
    "",
  );
  // Comments dropped first: JSDoc may say `{import("./index.js").x}`.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]);
  const unexpected = specifiers.filter((s) => !allowed.includes(s!));
  if (unexpected.length > 0) {
    throw new Error(
      `Cannot vendor ${pkg.name}@${pkg.version}/${path}: it imports ${unexpected.join(", ")}; ` +
        "scripts/sdk.ts vendors only self-contained files",
    );
  }
  const changes = ["this line added", "its source map comment dropped"];
  if (allowed.length > 0) changes.push(`its imports of ${allowed.join(", ")} made relative`);
  return `// ${pkg.name}@${pkg.version} ${path} (${pkg.license}, see ./LICENSE), vendored by scripts/sdk.ts: ` +
    `${changes.join(", ")}.\n${text}`;
}

/**
 * openapi-fetch's runtime (dependency-free ESM) and types, and openapi-typescript-helpers' types, from
 * Deno's npm cache, keyed by their path in the package. `fetchVersion` is the version generated/client.ts
 * imports; deno.json's `openapi-fetch` import (which this script resolves) must be the same.
 */
async function vendoredFetch(fetchVersion: string): Promise<Record<string, string>> {
  const fetchPkg = await packageOf(new URL(import.meta.resolve("openapi-fetch")), "openapi-fetch");
  if (fetchPkg.version !== fetchVersion) {
    throw new Error(
      `Cannot build the SDK: generated/client.ts imports openapi-fetch@${fetchVersion}, but deno.json's ` +
        `openapi-fetch import is ${fetchPkg.version}; make them agree`,
    );
  }
  const helpersFile = createRequire(new URL("package.json", fetchPkg.dir)).resolve(
    "openapi-typescript-helpers",
  );
  const helpersPkg = await packageOf(pathToFileURL(helpersFile), "openapi-typescript-helpers");
  const helpersEntry = "../openapi-typescript-helpers/index.mjs";
  const fetchTypes = (await vendorFile(fetchPkg, "dist/index.d.mts", ["openapi-typescript-helpers"]))
    .replace(/(\bfrom\s*)["']openapi-typescript-helpers["']/g, `$1"${helpersEntry}"`);
  return {
    [`${VENDOR}/openapi-fetch/index.mjs`]: await vendorFile(fetchPkg, "dist/index.mjs"),
    [`${VENDOR}/openapi-fetch/index.d.mts`]: fetchTypes,
    [`${VENDOR}/openapi-fetch/LICENSE`]: await Deno.readTextFile(new URL("LICENSE", fetchPkg.dir)),
    // Types only: openapi-fetch's JavaScript never imports it; the empty module is there so that the
    // relative specifier in openapi-fetch's .d.mts names a real file.
    [`${VENDOR}/openapi-typescript-helpers/index.mjs`]:
      `// ${helpersPkg.name}@${helpersPkg.version}: types only.\nexport {};\n`,
    [`${VENDOR}/openapi-typescript-helpers/index.d.mts`]: await vendorFile(helpersPkg, "dist/index.d.mts"),
    [`${VENDOR}/openapi-typescript-helpers/LICENSE`]: await Deno.readTextFile(
      new URL("LICENSE", helpersPkg.dir),
    ),
  };
}

/** Builds the package into `outDir` (replaced); answers the files written. */
export async function buildSdk(outDir: string): Promise<string[]> {
  const client = await Deno.readTextFile(new URL("generated/client.ts", ROOT));
  const fetchVersion = [...client.matchAll(FETCH_SPECIFIER)][0]?.[1];
  if (!fetchVersion) {
    throw new Error("Cannot build the SDK: generated/client.ts imports no npm:openapi-fetch");
  }
  const files: Record<string, string> = {
    "package.json": await packageJson(),
    "README.md": README,
    "LICENSE": await Deno.readTextFile(new URL("LICENSE", ROOT)),
    ...await vendoredFetch(fetchVersion),
  };
  for (const name of ["client", "schema"]) {
    const built = transpile(name, forNode(await Deno.readTextFile(new URL(`generated/${name}.ts`, ROOT))));
    files[`${name}.js`] = built.js;
    files[`${name}.d.ts`] = built.dts;
  }
  await Deno.remove(outDir, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  for (const [name, text] of Object.entries(files)) {
    const path = `${outDir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return Object.keys(files).map((name) => `${outDir}/${name}`);
}

if (import.meta.main) {
  const outDir = Deno.args[0] ?? new URL("dist/sdk", ROOT).pathname;
  const written = await buildSdk(outDir);
  console.log(
    `built ${PACKAGE_NAME} in ${outDir} (${written.length} files); install with: npm install ${outDir}`,
  );
}
