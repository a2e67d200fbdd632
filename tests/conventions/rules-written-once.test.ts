// Rules written once: numbers that prose states (the README, route descriptions that cannot interpolate
// them) are checked here against the constants that enforce them, so a changed limit fails a test instead
// of leaving the text agents read wrong.
import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";
import { readConfig } from "@/config.ts";
import { SESSION_GRACE_MS } from "@/domain/auth/token-policy.ts";
import { ACCESS_TOKEN_TTL_S, RETIRED_KEY_GRACE_S } from "@/domain/oauth/keys.ts";
import { ADMIN_CODE_TTL_SECONDS } from "@/domain/pairing/codes.ts";
import { ME_CACHE_MS } from "@/domain/sessions/me.ts";
import { MAX_BATCH } from "@/domain/ledger/batch.ts";
import { MAX_CLAIM_FILES } from "@/contracts/claims.ts";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "@/http/errors.ts";
import { TOOLS } from "@/mcp/tools/index.ts";

const ROOT = new URL("../../", import.meta.url);
const README = await Deno.readTextFile(new URL("README.md", ROOT));

interface Operation {
  description?: string;
  "x-svc-cost"?: number;
}
const DOCUMENT = JSON.parse(await Deno.readTextFile(new URL("openapi/openapi.json", ROOT))) as {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
};

function operations(): { method: string; path: string; op: Operation }[] {
  return Object.entries(DOCUMENT.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op }))
  );
}

/** Collapses line breaks so a phrase wrapped across lines of prose still matches. */
const flat = (text: string) => text.replace(/\s+/g, " ");

test("README states the limits the code enforces", () => {
  const readme = flat(README);
  const facts: [string, string][] = [
    [`${TOOLS.length} \`svc_*\` tools`, "MCP tools (src/mcp/tools/index.ts TOOLS)"],
    [`the ${ME_CACHE_MS / 1000}-second \`GET /me\` cache`, "ME_CACHE_MS"],
    [`the ${ME_CACHE_MS / 1000}-second \`/me\` cache`, "ME_CACHE_MS"],
    [`\`Retry-After: ${UNAVAILABLE_RETRY_AFTER_SECONDS}\``, "UNAVAILABLE_RETRY_AFTER_SECONDS"],
    [
      `(${ACCESS_TOKEN_TTL_S / 3600} hour, plus ${RETIRED_KEY_GRACE_S}`,
      "ACCESS_TOKEN_TTL_S, RETIRED_KEY_GRACE_S",
    ],
    [`their ${SESSION_GRACE_MS / 86_400_000}-day refresh grace`, "SESSION_GRACE_MS"],
    [`with the printed code (within ${ADMIN_CODE_TTL_SECONDS / 60} minutes)`, "ADMIN_CODE_TTL_SECONDS"],
    [`It listens on \`http://127.0.0.1:${readConfig({}).port}\``, "the default PORT (src/config.ts)"],
  ];
  for (const [phrase, constant] of facts) {
    assert.ok(readme.includes(phrase), `README.md should say "${phrase}" (from ${constant})`);
  }
});

test("the README check sees a changed number", () => {
  assert.ok(!flat(README).includes(`${TOOLS.length + 1} \`svc_*\` tools`));
});

test("an operation's description states the cost it is charged (x-svc-cost)", () => {
  const stated = /\bcosts? (\d+)\b/;
  let checked = 0;
  for (const { method, path, op } of operations()) {
    const match = stated.exec(op.description ?? "");
    if (!match) continue;
    checked++;
    assert.equal(Number(match[1]), op["x-svc-cost"], `${method} ${path}: description says cost ${match[1]}`);
  }
  assert.ok(checked > 10, `only ${checked} descriptions state a cost`);
});

test("the document's cost classes match every operation's x-svc-cost", () => {
  const cost = (method: string, path: string) => DOCUMENT.paths[path]?.[method]?.["x-svc-cost"];
  const info = flat(DOCUMENT.info.description);
  const batch = cost("post", "/ticket/batch");
  assert.ok(info.includes(`\`POST /ticket/batch\` ${batch})`), `POST /ticket/batch costs ${batch}`);
  assert.equal(cost("get", "/context"), 3);
  assert.equal(cost("get", "/search"), 3);
  assert.ok(info.includes("heavy reads (`GET /context`, `GET /search`) and any method on /ticket"));
  for (const { method, path, op } of operations()) {
    if (!/^\/ticket(\/|$)/.test(path) || path === "/ticket/batch") continue;
    assert.equal(op["x-svc-cost"], 3, `${method} ${path} is on /ticket and costs 3 units`);
  }
});

test("an operation's description names the scope it checks (x-svc-scope)", () => {
  const named = /\b[Ss]cope `?([a-z]+:[a-z_]+)`?/;
  let checked = 0;
  for (const { method, path, op } of operations()) {
    const description = op.description ?? "";
    const scope = (op as { "x-svc-scope"?: string })["x-svc-scope"];
    const match = named.exec(description);
    if (match) {
      checked++;
      assert.equal(match[1], scope, `${method} ${path}: description names scope ${match[1]}`);
    } else if (/\bno scope\b/.test(description)) {
      checked++;
      assert.equal(scope, undefined, `${method} ${path}: description says no scope`);
    }
  }
  assert.ok(checked > 20, `only ${checked} descriptions name a scope`);
});

type Node = Record<string, unknown>;
const BOUNDS = [["minLength", "maxLength"], ["minimum", "maximum"], ["minItems", "maxItems"]] as const;

/** Every schema in the document whose description states a range "N to M", with where it is. */
function statedRanges(
  node: unknown,
  where: string,
  found: { where: string; node: Node; lo: number; hi: number }[],
) {
  if (Array.isArray(node)) node.forEach((item, i) => statedRanges(item, `${where}[${i}]`, found));
  if (node === null || typeof node !== "object" || Array.isArray(node)) return found;
  const record = node as Node;
  const match = typeof record.description === "string" ? /\b(\d+) to (\d+)\b/.exec(record.description) : null;
  if (match) found.push({ where, node: record, lo: Number(match[1]), hi: Number(match[2]) });
  for (const [key, value] of Object.entries(record)) statedRanges(value, `${where}/${key}`, found);
  return found;
}

test("a schema whose description states a range 'N to M' has those bounds, or the constant the domain checks", () => {
  // Bounds the schema cannot carry (checked in the domain, or a comma list in one string).
  const enforcedElsewhere: Record<string, number> = {
    "/components/schemas/LedgerBatchRequest/properties/entries": MAX_BATCH,
    "/paths//claim/check/get/parameters[0]/schema": MAX_CLAIM_FILES,
  };
  let checked = 0;
  for (const { where, node, lo, hi } of statedRanges(DOCUMENT, "", [])) {
    const bounds = BOUNDS.find(([min, max]) => min in node || max in node);
    if (!bounds) continue;
    checked++;
    const [min, max] = bounds;
    if (where in enforcedElsewhere) {
      assert.equal(hi, enforcedElsewhere[where], `${where}: "${lo} to ${hi}"`);
      continue;
    }
    assert.equal(node[max], hi, `${where}: description says ${lo} to ${hi}, ${max} is ${node[max]}`);
    if (min in node) {
      assert.equal(node[min], lo, `${where}: description says ${lo} to ${hi}, ${min} is ${node[min]}`);
    }
  }
  assert.ok(checked > 20, `only ${checked} ranges checked`);
});
