import assert from "node:assert/strict";
import { sql } from "kysely";
import { env, test } from "../helpers/mod.ts";
import { checkEntry, entriesOverlap, fileKey, parseEntry, sameFile } from "@/shared/file-path.ts";
import { entryKeySql, entryOverlapsSql } from "@/domain/core/claim-holders.ts";
import { handoffWarnings } from "@/domain/handoff/warnings.ts";

// Issue 24 point 5: the forms of a claim entry (file, directory, symbol), their canonical spelling, and the
// one overlap rule (`entriesOverlap`) with its SQL counterpart (`entryOverlapsSql`), which must agree.

const CANONICAL: Array<[string, string]> = [
  ["src/auth/token.ts", "src/auth/token.ts"],
  ["src/auth/", "src/auth/**"],
  ["src/auth/**", "src/auth/**"],
  ["./src//auth/", "src/auth/**"],
  ["src\\auth\\", "src/auth/**"],
  [" /src/auth/** ", "src/auth/**"],
  ["src/lib/../auth/", "src/auth/**"],
  ["Src/Auth/", "Src/Auth/**"],
  ["src/auth/token.ts#parseToken", "src/auth/token.ts#parseToken"],
  ["./src//auth/token.ts#parseToken", "src/auth/token.ts#parseToken"],
  ["src/a.ts#Class.method", "src/a.ts#Class.method"],
  ["src/a.rs#crate::mod::f", "src/a.rs#crate::mod::f"],
  ["src/a.js#$el_1", "src/a.js#$el_1"],
  ["src/a.ts#" + "x".repeat(200), "src/a.ts#" + "x".repeat(200)],
  ["app/[id]/page.tsx", "app/[id]/page.tsx"],
  ["app/(shop)/cart.tsx", "app/(shop)/cart.tsx"],
  ["app/what?.ts", "app/what?.ts"],
  ["app/[...slug]/", "app/[...slug]/**"],
];

const REFUSED = [
  "src/a.ts#",
  "src/a.ts#pa rse",
  "src/a.ts#a-b",
  "src/a.ts#a#b",
  "src/a.ts#a/b",
  "src/#x/a.ts",
  "src/a.ts#" + "x".repeat(201),
  "src/auth/#parse",
  "#parse",
  "src/*.ts",
  "src/*",
  "src/**/a.ts",
  "src/**/",
  "src/a*/",
  "**",
  "*",
  "/**",
  "/",
  "../x/",
  "src/\tx/",
  "src/a.ts#x\u200b",
];

test("CLAIMQ-5 checkEntry: files, directories and symbols canonicalised; invalid symbols and stray * refused", () => {
  for (const [raw, canonical] of CANONICAL) {
    const result = checkEntry(raw);
    assert.deepEqual(result, { ok: true, path: canonical }, JSON.stringify(raw));
  }
  for (const raw of REFUSED) assert.equal(checkEntry(raw).ok, false, JSON.stringify(raw));
  assert.deepEqual(parseEntry("src/auth/**"), { kind: "directory", path: "src/auth", symbol: null });
  assert.deepEqual(parseEntry("src/a.ts#Foo.bar"), { kind: "symbol", path: "src/a.ts", symbol: "Foo.bar" });
  assert.deepEqual(parseEntry("app/[id]/page.tsx"), {
    kind: "file",
    path: "app/[id]/page.tsx",
    symbol: null,
  });
});

test("CLAIMQ-5 fileKey folds the path, keeps the symbol: sameFile means the same entry", () => {
  assert.equal(fileKey("SRC/A.ts#Parse"), "src/a.ts#Parse");
  assert.ok(sameFile("SRC/A.ts#parse", "src/a.ts#parse"));
  assert.ok(!sameFile("src/a.ts#Parse", "src/a.ts#parse"));
  assert.ok(sameFile("SRC/Auth/**", "src/auth/**"));
  assert.ok(!sameFile("src/auth/**", "src/auth"));
});

/** [a, b, overlap]: the table both the TypeScript rule and its SQL must answer. */
const OVERLAPS: Array<[string, string, boolean]> = [
  ["src/auth/**", "src/auth/token.ts", true],
  ["src/auth/**", "src/auth/deep/er/x.ts", true],
  ["src/auth/**", "src/auth/token.ts#parse", true],
  ["src/auth/**", "src/auth/sub/**", true],
  ["src/auth/**", "src/**", true],
  ["src/auth/**", "src/auth/**", true],
  ["src/auth/**", "src/auth", true],
  ["src/auth/**", "src/auth#x", true],
  ["src/auth/**", "src/authz/x.ts", false],
  ["src/auth/**", "src/authz/**", false],
  ["src/auth/**", "src/auth.ts", false],
  ["src/auth/**", "lib/auth/x.ts", false],
  ["src/auth/**", "src/a.ts", false],
  ["SRC/Auth/**", "src/auth/x.ts", true],
  ["src/auth/**", "Src/AUTH/x.ts#F", true],
  ["src/a.ts", "src/a.ts", true],
  ["src/a.ts", "SRC/A.TS", true],
  ["src/a.ts", "src/a.ts#parse", true],
  ["src/a.ts", "src/b.ts", false],
  ["src/a.ts", "src/a.ts.bak", false],
  ["src/a.ts#parse", "src/a.ts#parse", true],
  ["src/a.ts#parse", "SRC/a.ts#parse", true],
  ["src/a.ts#parse", "src/a.ts#Parse", false],
  ["src/a.ts#parse", "src/a.ts#format", false],
  ["src/a.ts#parse", "src/b.ts#parse", false],
  ["src/a.ts#A.b", "src/a.ts#A", false],
  ["app/[id]/**", "app/[id]/page.tsx", true],
  ["app/[id]/**", "app/x/page.tsx", false],
  ["a_b/**", "axb/c.ts", false],
  ["a%/**", "ab/c.ts", false],
];

test("CLAIMQ-5 entriesOverlap: directory, file and symbol table, symmetric, letter case of paths ignored", () => {
  for (const [a, b, expected] of OVERLAPS) {
    assert.equal(entriesOverlap(a, b), expected, `${a} ~ ${b}`);
    assert.equal(entriesOverlap(b, a), expected, `${b} ~ ${a}`);
  }
});

test("CLAIMQ-5 entryOverlapsSql and entryKeySql agree with entriesOverlap and fileKey on the whole table", async () => {
  const { db } = await env();
  for (const [a, b, expected] of OVERLAPS) {
    for (const [stored, asked] of [[a, b], [b, a]] as const) {
      const { rows } = await sql<{ o: boolean; k: string }>`SELECT ${
        entryOverlapsSql("v.file", [asked])
      } AS o,
        ${entryKeySql(sql.ref("v.file"))} AS k FROM (VALUES (${stored}::text)) AS v(file)`.execute(db);
      assert.equal(rows[0]!.o, expected, `SQL: stored ${stored} ~ asked ${asked}`);
      assert.equal(rows[0]!.k, fileKey(stored), `SQL key of ${stored}`);
    }
  }
  const { rows } = await sql<{ o: boolean }>`SELECT ${
    entryOverlapsSql("v.file", ["src/b.ts", "src/a.ts#x"])
  } AS o FROM (VALUES ('src/a.ts#y'), ('src/a.ts')) AS v(file) ORDER BY v.file`.execute(db);
  assert.deepEqual(rows.map((r) => r.o), [true, false], "any of several entries");
});

test("CLAIMQ-5 handoff's unlogged-work warning: a released directory or symbol is logged by an entry on a file it covers", () => {
  const entry = (fileRef: string | null, content = "Did things") => ({ type: "CHANGED", content, fileRef });
  const warn = (released: string[], entries: ReturnType<typeof entry>[]) =>
    handoffWarnings({ ticket: null, entries, releasedFiles: released, artifacts: [] }).warnings;
  assert.deepEqual(
    warn(["src/auth/**", "src/a.ts#parse"], [entry("SRC/auth/login.ts"), entry("src/a.ts")]),
    [],
  );
  assert.deepEqual(warn(["src/auth/**"], [entry(null, "Reworked src/auth: split the module")]), []);
  assert.deepEqual(warn(["src/auth/**", "src/a.ts#parse"], [entry("src/authz/x.ts"), entry("src/b.ts")]), [
    "Unlogged work: no ledger entry mentions src/auth/**, src/a.ts#parse",
  ]);
});
