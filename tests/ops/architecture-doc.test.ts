// docs/architecture.md names folders and files of the tree (issue 23 point 6): each must exist, so a move
// or a rename that forgets the document fails here instead of leaving it wrong.
import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url);
const DOC = "docs/architecture.md";

/**
 * Every repository path the text names (`src/...`, `tests/...`, `scripts/...`, `vendor/...`, `openapi/...`,
 * `generated/...`, `docs/...`), in code spans and in the diagram alike. A placeholder (`src/domain/<area>/`)
 * is cut at its `<`: the part before it must exist.
 */
function namedPaths(text: string): string[] {
  const found = text.match(/(?<![\w./-])(?:src|tests|scripts|vendor|openapi|generated|docs)\/[\w./-]*/g) ??
    [];
  return [...new Set(found.map((p) => p.replace(/[.]+$/, "")))].sort();
}

function exists(path: string): boolean {
  try {
    Deno.statSync(new URL(path, ROOT));
    return true;
  } catch {
    return false;
  }
}

test("docs/architecture.md: every folder and file it names exists", async () => {
  const paths = namedPaths(await Deno.readTextFile(new URL(DOC, ROOT)));
  assert.ok(paths.length > 40, `expected the document to name the tree, found ${paths.length} paths`);
  for (const layer of ["src/routes/", "src/domain/core/", "src/db/", "src/mcp/tools/", "src/dashboard/"]) {
    assert.ok(paths.includes(layer), `the document names ${layer}`);
  }
  assert.deepEqual(
    paths.filter((p) => !exists(p)),
    [],
    "paths named in docs/architecture.md that do not exist",
  );
});

test("docs/architecture.md: the path rule sees paths in prose, code spans, diagrams and placeholders", () => {
  const text = "See `src/domain/<area>/x.ts` and src/nowhere/ in a box │ tests/gone.test.ts. Not a/src/x.";
  const paths = namedPaths(text);
  assert.deepEqual(paths, ["src/domain/", "src/nowhere/", "tests/gone.test.ts"]);
  assert.deepEqual(paths.filter((p) => !exists(p)), ["src/nowhere/", "tests/gone.test.ts"]);
});

test("CONTRIBUTING.md links docs/architecture.md near the top", async () => {
  const head = (await Deno.readTextFile(new URL("CONTRIBUTING.md", ROOT))).split("\n").slice(0, 10).join(
    "\n",
  );
  assert.match(head, /\]\(docs\/architecture\.md\)/);
});
