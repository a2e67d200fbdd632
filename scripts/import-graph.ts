/**
 * The import graph of src/ (issue 23 point 1): static `import ... from` / `export ... from`,
 * `import type` included, between files and between domain folders, and its cycles.
 *
 *   deno run -A scripts/import-graph.ts          # print the cycles between domain folders and files
 *
 * The craft suite (tests/craft.test.ts) uses the same functions.
 */
import ts from "typescript";

/** A directed graph: node -> the nodes it imports. */
export type Graph = Map<string, Set<string>>;

const SRC = new URL("../src/", import.meta.url);

/** Specifiers into src/ (relative or `@/`) of a file's static imports and re-exports, type-only ones included. */
export function importSpecifiers(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier) && /^(\.|@\/)/.test(specifier.text)) {
      out.push(specifier.text);
    }
  }
  return out;
}

/** Every .ts/.tsx file under src/ (paths relative to src/), minus those `skip` names. */
async function listSources(dir: URL, skip: (path: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    const path = url.href.slice(SRC.href.length);
    if (skip(path)) continue;
    if (entry.isDirectory) out.push(...await listSources(url, skip));
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out.sort();
}

/** The file-level graph of src/ (paths relative to src/); imports leaving src/ are dropped. */
export async function fileGraph(skip: (path: string) => boolean = () => false): Promise<Graph> {
  const graph: Graph = new Map();
  for (const path of await listSources(SRC, skip)) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(path, await Deno.readTextFile(new URL(path, SRC)))) {
      const target = specifier.startsWith("@/")
        ? new URL(specifier.slice(2), SRC).href
        : new URL(specifier, new URL(path, SRC)).href;
      if (!target.startsWith(SRC.href)) continue;
      const relative = target.slice(SRC.href.length);
      if (!skip(relative)) targets.add(relative);
    }
    graph.set(path, targets);
  }
  return graph;
}

/** The folder of a file directly under src/domain/ (`domain/tickets/refs.ts` -> `tickets`), else undefined. */
export function domainFolder(path: string): string | undefined {
  return /^domain\/([^/]+)\//.exec(path)?.[1];
}

/** The graph between domain folders: an edge wherever a file of one imports a file of another. */
export function folderGraph(files: Graph): Graph {
  const graph: Graph = new Map();
  for (const [path, targets] of files) {
    const from = domainFolder(path);
    if (!from) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) {
      const to = domainFolder(target);
      if (to && to !== from) edges.add(to);
    }
  }
  return graph;
}

/**
 * The cycles of a graph as its strongly connected components of more than one node (or a node that
 * imports itself), each sorted, the list sorted (Tarjan's algorithm).
 */
export function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) out.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The edges inside one cycle, `a -> b`, for a readable report. */
export function cycleEdges(graph: Graph, component: string[]): string[] {
  const members = new Set(component);
  return component.flatMap((from) =>
    [...graph.get(from) ?? []].filter((to) => members.has(to)).map((to) => `${from} -> ${to}`)
  );
}

if (import.meta.main) {
  const files = await fileGraph();
  const folders = folderGraph(files);
  const folderCycles = cycles(folders);
  const fileCycles = cycles(files);
  console.log(`domain folder cycles: ${folderCycles.length}`);
  for (const c of folderCycles) {
    console.log(`  [${c.join(", ")}]\n    ${cycleEdges(folders, c).join("\n    ")}`);
  }
  console.log(`file cycles: ${fileCycles.length}`);
  for (const c of fileCycles) console.log(`  [${c.join(", ")}]\n    ${cycleEdges(files, c).join("\n    ")}`);
}
