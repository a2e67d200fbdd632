import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

/**
 * Issue 27.1: the vendored driver writes every string parameter with `TextEncoder.encodeInto` (a short
 * string into room for three bytes per character, a long one after measuring it). What is stored is
 * exactly what was sent, whatever the characters and the length (on PostgreSQL; PGlite runs the same).
 */
test("PERF2-3 multi-byte and long strings are stored exactly as sent", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const { db } = await env();
  const samples = [
    "plain ascii",
    "déjà vu · naïve café ✓",
    "emoji 😀🚀 and CJK 漢字かな",
    "€".repeat(85), // 255 bytes: just under the short-string bound
    "ü".repeat(255), // 255 characters, 510 bytes
    "𝄞".repeat(300), // long: astral characters, four bytes each (600 UTF-16 units)
    "x".repeat(1_500) + "é",
  ];
  for (const content of samples) {
    const res = await call("POST", "/ledger", { token: a.token, body: { type: "FOUND", content } });
    assert.equal(res.status, 201, res.text);
    const row = await db.selectFrom("ledger_entries").select("content").where("id", "=", res.body.data.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.content, content);
  }
});
