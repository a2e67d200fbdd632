import assert from "node:assert/strict";
import { pruneCutoffs } from "@/domain/maintenance/prune.ts";
import { test } from "../helpers/mod.ts";

const H = 3600_000;
const D = 24 * H;

test("pruneCutoffs(): each kind of row is dead only past its retention and the rule it follows", () => {
  const now = new Date("2026-06-01T00:00:00Z");
  const ago = (date: Date) => now.getTime() - date.getTime();
  const c = pruneCutoffs(now);
  assert.equal(ago(c.counter), 5 * 60_000);
  assert.equal(ago(c.doneJob), D);
  assert.equal(ago(c.deadJob), 7 * D);
  assert.equal(ago(c.code), D);
  assert.equal(ago(c.codeUsed), D + H, "a used pairing code outlives its one-hour reuse window by a day");
  assert.equal(
    ago(c.token),
    8 * D,
    "a token stays refreshable for 7 days after expiry (SESS-028), then a day",
  );
  assert.equal(ago(c.revokedToken), 7 * D);
  assert.equal(ago(c.me), H);
  assert.equal(ago(c.oauth), D);
  assert.equal(ago(c.consent), D);
});
