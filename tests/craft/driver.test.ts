/**
 * One copy of the PostgreSQL driver (issue 23, point 4): the patched postgres.js in vendor/postgres-js/
 * is mapped once in deno.json as "postgres", and every file imports it by that name, so the service,
 * the tests, the chaos experiments and the bench all run the same patched code.
 */
import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url);
const SCANNED = ["src/", "tests/", "scripts/", "examples/"];
// Spelled in pieces so that this file does not match its own rule.
const NPM_POSTGRES = "npm:" + "postgres";
const VENDORED = "postgres" + "-js/index.js";

/** Every import specifier of `text` that bypasses the import map's "postgres", as `path:line specifier`. */
export function driverBypasses(path: string, text: string): string[] {
  const out: string[] = [];
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"'\n]+)\1/g;
  for (const match of text.matchAll(specifier)) {
    const spec = match[2]!;
    const unpatched = spec === NPM_POSTGRES || /^npm:\/?postgres(?:@[^/]*)?(?:\/.*)?$/.test(spec);
    const vendoredByPath = /(?:^|\/)(?:vendor\/)?postgres-js\//.test(spec) && spec.startsWith(".");
    if (unpatched || vendoredByPath) {
      const line = text.slice(0, match.index).split("\n").length;
      out.push(`${path}:${line} ${spec}`);
    }
  }
  return out;
}

async function files(dir: URL): Promise<URL[]> {
  const out: URL[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) out.push(...await files(url));
      else if (/\.(?:[cm]?[jt]sx?)$/.test(entry.name)) out.push(url);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out;
}

test("craft: no file under src/, tests/, scripts/ imports npm:postgres or the vendored driver by path", async () => {
  const offenders: string[] = [];
  for (const dir of SCANNED) {
    for (const url of await files(new URL(dir, ROOT))) {
      const path = url.href.slice(ROOT.href.length);
      offenders.push(...driverBypasses(path, await Deno.readTextFile(url)));
    }
  }
  assert.deepEqual(
    offenders.sort(),
    [],
    `import "postgres" (the patched copy in vendor/postgres-js/):\n${offenders.join("\n")}`,
  );
});

test('craft: deno.json maps "postgres" once, to the vendored, patched driver', async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    imports: Record<string, string>;
  };
  assert.equal(config.imports["postgres"], "./vendor/postgres-js/index.js");
  const others = Object.entries(config.imports).filter(([name, target]) =>
    name !== "postgres" && (target.startsWith(NPM_POSTGRES + "@") || target.includes("vendor/postgres-js"))
  );
  assert.deepEqual(others, []);
});

test("craft: the driver rule sees every form of import of the unpatched driver", () => {
  const text = [
    `import postgres from "${NPM_POSTGRES}@3.4.9";`,
    `import pg from '${NPM_POSTGRES}';`,
    `const m = await import("${NPM_POSTGRES}@3.4.9");`,
    `export { default } from "npm:/${"postgres"}@3.4.9/src/index.js";`,
    `import postgres2 from "../../vendor/${VENDORED}";`,
    `import "./${VENDORED}";`,
    `import postgres3 from "postgres";`,
    `import { PostgresJSDialect } from "kysely-postgres-js";`,
    `import x from "npm:postgres-array@2";`,
  ].join("\n");
  assert.deepEqual(driverBypasses("z.ts", text), [
    `z.ts:1 ${NPM_POSTGRES}@3.4.9`,
    `z.ts:2 ${NPM_POSTGRES}`,
    `z.ts:3 ${NPM_POSTGRES}@3.4.9`,
    `z.ts:4 npm:/${"postgres"}@3.4.9/src/index.js`,
    `z.ts:5 ../../vendor/${VENDORED}`,
    `z.ts:6 ./${VENDORED}`,
  ]);
});
