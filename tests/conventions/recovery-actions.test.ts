import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";
import {
  EXTENSION_RECOVERY_ACTIONS,
  OPERATOR_RECOVERY_ACTIONS,
  RECOVERY_ACTIONS,
  SPEC_ENDPOINT_RECOVERY_ACTIONS,
  SPEC_RECOVERY_ACTIONS,
} from "@/domain/core/errors.ts";

const ROOT = new URL("../../", import.meta.url);

async function sourceFiles(dir: URL): Promise<URL[]> {
  const found: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) found.push(...await sourceFiles(url));
    else if (/\.tsx?$/.test(entry.name)) found.push(url);
  }
  return found;
}

/**
 * Actions written in the source: `recovery("X", ...)` calls and `recovery: { action: "X" ... }` literals,
 * with the file each appears in.
 */
async function sourceActions(): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const patterns = [/\brecovery\(\s*"([^"]+)"/g, /\brecovery:\s*\{\s*action:\s*"([^"]+)"/g];
  for (const url of await sourceFiles(new URL("src/", ROOT))) {
    const text = await Deno.readTextFile(url);
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        const where = found.get(match[1]!) ?? [];
        where.push(url.pathname.slice(ROOT.pathname.length));
        found.set(match[1]!, where);
      }
    }
  }
  return found;
}

/** Actions in the OpenAPI document: every `recovery.action` and every refusal's `remediation[].action`. */
function documentActions(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) documentActions(item, found);
  } else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "recovery" && value !== null && typeof value === "object" && "action" in value) {
        if (typeof value.action === "string") found.add(value.action);
      }
      if (key === "remediation" && Array.isArray(value)) {
        for (const item of value) if (typeof item?.action === "string") found.add(item.action);
      }
      documentActions(value, found);
    }
  }
  return found;
}

test("CONV-034 every recovery action in the source is one the spec lists (or a documented extension)", async () => {
  const known = new Set<string>(RECOVERY_ACTIONS);
  const actions = await sourceActions();
  assert.ok(actions.size >= 20, `found ${actions.size} actions: the scan still sees the source`);
  for (const [action, files] of actions) {
    assert.ok(known.has(action), `recovery action ${action} (${files.join(", ")}) is not in the spec's list`);
  }
  // The two the issue named are gone for good.
  for (const stray of ["LOG_PROGRESS_ENTRY", "REOPEN_THREAD", "CANCEL_SESSION", "POST_ENVIRONMENT_REPORT"]) {
    assert.equal(actions.has(stray), false, stray);
  }
});

test("CONV-034 every recovery and remediation action in the OpenAPI document is in the spec's list", async () => {
  const document = JSON.parse(await Deno.readTextFile(new URL("openapi/openapi.json", ROOT)));
  const actions = documentActions(document);
  assert.ok(actions.has("ADD_REQUIRED_FIELDS") && actions.has("LIST_SPRINTS"), [...actions].join(", "));
  const known = new Set<string>(RECOVERY_ACTIONS);
  for (const action of actions) {
    assert.ok(known.has(action), `${action} in openapi.json is not in the spec's list`);
  }
  // An extension must be documented as one in the route descriptions.
  const text = JSON.stringify(document);
  for (const action of EXTENSION_RECOVERY_ACTIONS as readonly string[]) {
    assert.ok(text.includes(action), `extension recovery action ${action} is not documented in openapi.json`);
  }
  // The operator API's own actions never reach the agent-facing document; the README documents them.
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  for (const action of OPERATOR_RECOVERY_ACTIONS as readonly string[]) {
    assert.ok(!text.includes(action), `operator recovery action ${action} appears in openapi.json`);
    assert.ok(readme.includes(action), `operator recovery action ${action} is not documented in README.md`);
  }
});

test("CONV-034 the registry holds the spec's 27 listed actions and the spec's per-endpoint words only", () => {
  assert.equal(SPEC_RECOVERY_ACTIONS.length, 27);
  assert.equal(new Set(SPEC_RECOVERY_ACTIONS).size, 27);
  for (const action of SPEC_RECOVERY_ACTIONS) assert.match(action, /^[A-Z]+(_[A-Z]+)*$/);
  // SESS-057's use_closeout_path and POST /claim's conflict actions, as the spec spells them.
  assert.deepEqual([...SPEC_ENDPOINT_RECOVERY_ACTIONS].sort(), [
    "release",
    "use_closeout_path",
    "wait",
    "wait_or_contact",
  ]);
});
