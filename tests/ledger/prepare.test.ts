import assert from "node:assert/strict";
import { checkEntryType, entryBody, entryLabels } from "@/domain/ledger/validate.ts";
import { LEDGER_LABELS } from "@/domain/ledger/labels.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { statusOf } from "@/http/errors.ts";
import { test } from "../helpers/mod.ts";

const refused = (status: number, code: string) => (e: unknown) =>
  e instanceof DomainError && statusOf(e) === status && e.code === code;

test("LEDGER-005 checkEntryType(): AGENT_JOINED is the service's only; lifecycle types also orchestrators'", () => {
  assert.throws(() => checkEntryType({ role: "orchestrator" }, "AGENT_JOINED"), refused(422, "INVALID"));
  assert.throws(() => checkEntryType({ role: "generator" }, "AGENT_SPAWNED"), refused(422, "INVALID"));
  checkEntryType({ role: "orchestrator" }, "AGENT_COMPLETED");
  checkEntryType({ role: "generator" }, "PROGRESS");
});

test("LEDGER-013 entryBody(): a PROGRESS payload writes the content, blockers default to empty", () => {
  assert.deepEqual(entryBody({ type: "PROGRESS", content: "ignored", payload: { did: "a", next: "b" } }), {
    content: "Did: a\nNext: b",
    payload: { did: "a", next: "b", blockers: [] },
  });
  const blocked = entryBody({ type: "PROGRESS", payload: { did: "a", next: "b", blockers: ["x", "y"] } });
  assert.equal(blocked.content, "Did: a\nNext: b\nBlockers: x; y");
  assert.deepEqual(entryBody({ type: "PROGRESS", content: "plain" }), { content: "plain", payload: null });
  assert.throws(
    () => entryBody({ type: "PROGRESS", payload: { did: "a" } }),
    refused(400, "VALIDATION_ERROR"),
  );
  const long = entryBody({ type: "PROGRESS", payload: { did: "d".repeat(1000), next: "n".repeat(1000) } });
  assert.equal(long.content.length, 2000);
  assert.ok(long.content.endsWith("…"));
});

test("LEDGER-015 LEDGER-016 entryBody(): a DECISION needs rationale, alternatives default to empty", () => {
  assert.deepEqual(entryBody({ type: "DECISION", content: "c", payload: { rationale: "r" } }), {
    content: "c",
    payload: { rationale: "r", alternatives: [] },
  });
  assert.throws(() => entryBody({ type: "DECISION", content: "c" }), refused(422, "VALIDATION_ERROR"));
  assert.deepEqual(entryBody({ type: "FOUND", content: "c", payload: { k: 1 } }), {
    content: "c",
    payload: { k: 1 },
  });
});

test("LEDGER-022 entryLabels(): duplicates drop, an unknown label answers 422 INVALID", () => {
  const known = [...LEDGER_LABELS][0]!;
  assert.deepEqual(entryLabels([known, known]), [known]);
  assert.deepEqual(entryLabels(undefined), []);
  assert.throws(() => entryLabels([known, "no-such-label"]), refused(422, "INVALID"));
});
