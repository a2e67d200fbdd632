/**
 * House rules about the shape of the code (issue 11), read from the TypeScript source with the
 * compiler's parser: domain verbs stay short enough to read as load, decide, write, and the domain
 * knows no HTTP.
 */
import assert from "node:assert/strict";
import ts from "typescript";
import { test } from "./helpers/mod.ts";
import {
  cycleEdges,
  cycles,
  fileGraph,
  folderGraph,
  type Graph,
  importSpecifiers,
} from "../scripts/import-graph.ts";

const SRC = new URL("../src/", import.meta.url);
const DOMAIN = new URL("domain/", SRC);
const MAX_FUNCTION_LINES = 80;

interface Source {
  /** Path relative to src/, as offenders are reported. */
  path: string;
  file: ts.SourceFile;
}

async function sources(dir: URL): Promise<Source[]> {
  const out: Source[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) out.push(...await sources(url));
    else if (/\.tsx?$/.test(entry.name)) {
      const path = url.href.slice(SRC.href.length);
      const text = await Deno.readTextFile(url);
      out.push({ path, file: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true) });
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

function lineOf(file: ts.SourceFile, pos: number): number {
  return file.getLineAndCharacterOfPosition(pos).line + 1;
}

/** A function's own name, or the name it is bound to (`const f = () => ...`, `{ f: () => ... }`). */
function nameOf(fn: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (fn.name) return fn.name.getText(file);
  const parent = fn.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(file);
  }
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(file).slice(0, 40)})`;
  return "(anonymous)";
}

/** Every function with a body longer than `max` lines, as `path:line name (N lines)`. */
function longFunctions(files: Source[], max: number): string[] {
  const out: string[] = [];
  for (const { path, file } of files) {
    walk(file, (node) => {
      if (!ts.isFunctionLike(node)) return;
      const fn = node as ts.FunctionLikeDeclaration;
      if (!fn.body) return;
      const start = lineOf(file, fn.getStart(file));
      const lines = lineOf(file, fn.end) - start + 1;
      if (lines > max) out.push(`${path}:${start} ${nameOf(fn, file)} (${lines} lines)`);
    });
  }
  return out;
}

const HEADER_METHODS = new Set(["header", "setHeader"]);

/** Imports of hono, and code that builds a response or sets a header, as `path:line what`. */
function httpInDomain(files: Source[]): string[] {
  const out: string[] = [];
  for (const { path, file } of files) {
    walk(file, (node) => {
      const at = `${path}:${lineOf(file, node.getStart(file))}`;
      const specifier = ts.isImportDeclaration(node) || ts.isExportDeclaration(node)
        ? node.moduleSpecifier
        : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
        ? node.arguments[0]
        : undefined;
      if (
        specifier && ts.isStringLiteral(specifier) && /^(npm:)?(@hono\/|hono($|\/|@))/.test(specifier.text)
      ) {
        out.push(`${at} imports "${specifier.text}"`);
      }
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
        const built = node.expression.text;
        if (built === "Headers" || built === "Response") out.push(`${at} builds new ${built}()`);
      }
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const method = node.expression.name.text;
        const target = node.expression.expression.getText(file);
        if (HEADER_METHODS.has(method)) out.push(`${at} sets a header: ${node.getText(file).slice(0, 60)}`);
        if ((method === "set" || method === "append") && /headers$/i.test(target)) {
          out.push(`${at} sets a header: ${node.getText(file).slice(0, 60)}`);
        }
      }
    });
  }
  return out;
}

test(`craft: no function in src/domain is longer than ${MAX_FUNCTION_LINES} lines`, async () => {
  const offenders = longFunctions(await sources(DOMAIN), MAX_FUNCTION_LINES);
  assert.deepEqual(offenders, [], `split these into load, decide and write:\n${offenders.join("\n")}`);
});

test("craft: the function-length rule sees functions of every form", () => {
  const text = [
    "export async function verb() {",
    ...Array.from({ length: 80 }, (_, i) => `  const a${i} = ${i};`),
    "}",
    "const arrow = () => {",
    ...Array.from({ length: 80 }, () => "  void 0;"),
    "};",
    "const short = () => 1;",
  ].join("\n");
  const file = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true);
  assert.deepEqual(longFunctions([{ path: "x.ts", file }], MAX_FUNCTION_LINES), [
    "x.ts:1 verb (82 lines)",
    "x.ts:83 arrow (82 lines)",
  ]);
});

test("craft: no file in src/domain imports hono, builds a response or sets an HTTP header", async () => {
  const offenders = httpInDomain(await sources(DOMAIN));
  assert.deepEqual(
    offenders,
    [],
    `the domain knows no HTTP; map these in src/http:\n${offenders.join("\n")}`,
  );
});

test("craft: the HTTP rule sees hono imports, responses and headers", () => {
  const text = [
    'import { Hono } from "hono";',
    'import type { Context } from "hono/utils";',
    'import { z } from "@hono/zod-openapi";',
    'import { sql } from "kysely";',
    'c.header("Retry-After", "1");',
    "const r = new Response(null);",
    'res.headers.set("X-A", "1");',
    'map.set("a", 1);',
  ].join("\n");
  const file = ts.createSourceFile("y.ts", text, ts.ScriptTarget.Latest, true);
  assert.deepEqual(httpInDomain([{ path: "y.ts", file }]), [
    'y.ts:1 imports "hono"',
    'y.ts:2 imports "hono/utils"',
    'y.ts:3 imports "@hono/zod-openapi"',
    'y.ts:5 sets a header: c.header("Retry-After", "1")',
    "y.ts:6 builds new Response()",
    'y.ts:7 sets a header: res.headers.set("X-A", "1")',
  ]);
});

/*
 * Import cycles (issue 23 point 1): shared domain helpers live in src/domain/core, which imports only
 * src/shared, src/db, src/contracts, src/clock.ts and itself; domain folders import each other one way
 * only; no two files under src/ import each other, type-only imports included. The graph is the one
 * `deno run -A scripts/import-graph.ts` prints.
 */

const CORE_MAY_IMPORT = /^(shared\/|db\/|contracts\/|clock\.ts$|domain\/core\/)/;

/** Files of src/domain/core that import anything under src/ but the core's allowed layers, as `a -> b`. */
function coreOffenders(files: Graph): string[] {
  return [...files].filter(([path]) => path.startsWith("domain/core/")).flatMap(([path, targets]) =>
    [...targets].filter((to) => !CORE_MAY_IMPORT.test(to)).map((to) => `${path} -> ${to}`)
  );
}

function graphOf(edges: Record<string, string[]>): Graph {
  return new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));
}

test("craft: no cycle between the folders of src/domain", async () => {
  const folders = folderGraph(await fileGraph());
  const found = cycles(folders).map((c) => `[${c.join(", ")}]: ${cycleEdges(folders, c).join("; ")}`);
  assert.deepEqual(found, [], `move the shared helper into src/domain/core:\n${found.join("\n")}`);
});

test("craft: the domain-folder cycle rule sees a planted cycle", () => {
  const files = graphOf({
    "domain/tickets/create.ts": ["domain/ledger/append.ts", "domain/core/errors.ts"],
    "domain/ledger/append.ts": ["domain/claims/release.ts"],
    "domain/claims/release.ts": ["domain/tickets/refs.ts"],
    "domain/tickets/refs.ts": [],
    "domain/core/errors.ts": [],
    "routes/tickets.ts": ["domain/tickets/create.ts"],
  });
  const folders = folderGraph(files);
  assert.deepEqual(cycles(folders), [["claims", "ledger", "tickets"]]);
  assert.deepEqual(cycleEdges(folders, ["claims", "ledger", "tickets"]), [
    "claims -> tickets",
    "ledger -> claims",
    "tickets -> ledger",
  ]);
  files.set("domain/claims/release.ts", new Set(["domain/core/errors.ts"]));
  assert.deepEqual(cycles(folderGraph(files)), []);
});

test("craft: no import cycle between files under src/ (type-only imports included)", async () => {
  const files = await fileGraph();
  const found = cycles(files).map((c) => cycleEdges(files, c).join("; "));
  assert.deepEqual(
    found,
    [],
    `move the shared types or helpers into a file both import:\n${found.join("\n")}`,
  );
});

test("craft: the file cycle rule sees type-only imports and re-exports", () => {
  const specifiers = importSpecifiers(
    "domain/handoff/plan.ts",
    [
      'import type { HandoffInput } from "./handoff.ts";',
      'export { toTicket } from "@/domain/core/ticket-serialize.ts";',
      'export type { Holder } from "../core/claim-holders.ts";',
      'import { z } from "zod";',
      "const later = () => import('./lazy.ts');",
    ].join("\n"),
  );
  assert.deepEqual(specifiers, [
    "./handoff.ts",
    "@/domain/core/ticket-serialize.ts",
    "../core/claim-holders.ts",
  ]);
  const files = graphOf({
    "a.ts": ["b.ts"],
    "b.ts": ["c.ts"],
    "c.ts": ["a.ts"],
    "d.ts": ["d.ts"],
    "e.ts": [],
  });
  assert.deepEqual(cycles(files), [["a.ts", "b.ts", "c.ts"], ["d.ts"]]);
});

test("craft: src/domain/core imports only shared, db, contracts, clock and core", async () => {
  const offenders = coreOffenders(await fileGraph());
  assert.deepEqual(offenders, [], `the core knows no feature; split these:\n${offenders.join("\n")}`);
  const planted = graphOf({
    "domain/core/refs.ts": ["db/database.ts", "shared/vocabulary.ts", "contracts/common.ts", "clock.ts"],
    "domain/core/workflow.ts": ["domain/core/refs.ts", "domain/tickets/next-action.ts", "http/route.ts"],
  });
  assert.deepEqual(coreOffenders(planted), [
    "domain/core/workflow.ts -> domain/tickets/next-action.ts",
    "domain/core/workflow.ts -> http/route.ts",
  ]);
});
