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
import { ACTIVITY_BODY_MAX, RESPONSE_BODY_MAX } from "@/contracts/sessions.ts";
import { BRIEF_CUSTOM_MAX, BRIEF_ITEM_MAX, BRIEF_LIST_MAX } from "@/contracts/brief.ts";
import { COMPACT_BRIEF_CHARS, FULL_BRIEF_CHARS } from "@/domain/context/brief.ts";
import { DOCUMENT_PREVIEW_CHARS } from "@/domain/context/documents.ts";
import {
  CONNECTED_AGENTS_SHOWN,
  OPEN_CLAIMS_SHOWN,
  PENDING_REVIEWS_SHOWN,
  STALE_TICKETS_SHOWN,
  YOUR_REVIEWS_SHOWN,
} from "@/domain/context/params.ts";
import { ARTIFACT_METADATA_MAX_BYTES } from "@/contracts/workflow.ts";
import { PAYLOAD_ITEM_MAX, PAYLOAD_LIST_MAX } from "@/contracts/ledger.ts";
import { MAX_CRITERIA } from "@/domain/tickets/acknowledge.ts";
import { MAX_BODY_BYTES, PAIRING_MAX_BODY_BYTES } from "@/contracts/common.ts";
import { MAX_CLIENT_NAME } from "@/domain/oauth/clients.ts";

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

/** "up to N", "at most N", "at least N", "max N", "cut to N", "truncated to N" (N may be written 16,000). */
const BOUND_PHRASE =
  /\b(up to|at most|at least|max(?:imum)?|no more than|cut to|truncated to) (\d{1,3}(?:,\d{3})+|\d+)\b/gi;
/** The item bound of a list phrase: "up to 10 notes of 200" states 200 as well. */
const ITEM_PHRASE = /\bup to \d+ [a-z]+ of (\d+)\b/gi;
const MAX_KEYWORDS = ["maxLength", "maximum", "maxItems", "exclusiveMaximum"] as const;
const MIN_KEYWORDS = ["minLength", "minimum", "minItems", "exclusiveMinimum"] as const;

/** Every schema or parameter (not an operation) whose description states a bound phrase. */
function statedBounds(
  node: unknown,
  where: string,
  found: { where: string; node: Node; phrase: string; lower: boolean; n: number }[],
) {
  if (where === "/info") return found; // document prose, not a schema
  if (Array.isArray(node)) node.forEach((item, i) => statedBounds(item, `${where}[${i}]`, found));
  if (node === null || typeof node !== "object" || Array.isArray(node)) return found;
  const record = node as Node;
  const operation = where.startsWith("/paths/") && "responses" in record;
  if (typeof record.description === "string" && !operation) {
    for (const match of flat(record.description).matchAll(BOUND_PHRASE)) {
      const [phrase, word = "", digits = ""] = match;
      const lower = word.toLowerCase() === "at least";
      found.push({ where, node: record, phrase, lower, n: Number(digits.replaceAll(",", "")) });
    }
    // "up to 10 strings of 500": the item bound, after the list's.
    for (const match of flat(record.description).matchAll(ITEM_PHRASE)) {
      found.push({ where, node: record, phrase: match[0], lower: false, n: Number(match[1]) });
    }
  }
  for (const [key, value] of Object.entries(record)) statedBounds(value, `${where}/${key}`, found);
  return found;
}

/** The bounds a node carries: its own keywords, its items' (a list "up to N, each up to M") and a parameter's schema's. */
function carriedBounds(node: Node, keywords: readonly string[]): number[] {
  const holders = [node, node.items, node.schema].filter((h): h is Node =>
    typeof h === "object" && h !== null
  );
  return holders.flatMap((h) => keywords.filter((k) => typeof h[k] === "number").map((k) => h[k] as number));
}

test("a bound a schema or parameter description states ('up to N', 'at most N', ...) is one its schema enforces", () => {
  // Bounds the domain enforces, not the schema: each stated number must equal one of these constants.
  const enforcedElsewhere: Record<string, number[]> = {
    // The schema allows RESPONSE_BODY_MAX (interpolated too) for type response; other types stop at this.
    "/components/schemas/SessionActivityRequest/properties/body": [ACTIVITY_BODY_MAX],
    // A union of a string and a list: the list's bounds are not on the described node.
    "/components/schemas/BriefPatchRequest/properties/goals": [BRIEF_LIST_MAX, BRIEF_ITEM_MAX],
    "/components/schemas/BriefPatchRequest/properties/stack": [BRIEF_LIST_MAX, BRIEF_ITEM_MAX],
    "/components/schemas/BriefPatchRequest/properties/constraints": [BRIEF_LIST_MAX, BRIEF_ITEM_MAX],
    "/components/schemas/BriefPatchRequest/properties/custom": [BRIEF_CUSTOM_MAX],
    // Response fields the context read cuts.
    "/components/schemas/Context/properties/brief": [FULL_BRIEF_CHARS],
    "/components/schemas/Context/properties/pendingReviews": [PENDING_REVIEWS_SHOWN],
    "/components/schemas/Context/properties/staleTickets": [STALE_TICKETS_SHOWN],
    "/components/schemas/ContextDocument/properties/contentText": [DOCUMENT_PREVIEW_CHARS],
    "/components/schemas/OAuthRegisterRequest/properties/client_name": [MAX_CLIENT_NAME],
    "/components/schemas/SessionRefreshResult/properties/refreshMode": [SESSION_GRACE_MS / 86_400_000],
    "/components/schemas/Context/properties/openClaims": [OPEN_CLAIMS_SHOWN],
    "/components/schemas/Context/properties/yourReviews": [YOUR_REVIEWS_SHOWN],
    "/components/schemas/Context/properties/connectedAgents": [CONNECTED_AGENTS_SHOWN],
    // Bodies the domain checks inside a free-form object.
    "/components/schemas/AddArtifactRequest/properties/metadata": [ARTIFACT_METADATA_MAX_BYTES / 1024],
    "/components/schemas/LedgerEntryRequest/properties/payload": [PAYLOAD_LIST_MAX, PAYLOAD_ITEM_MAX],
  };
  const mismatches: string[] = [];
  let checked = 0;
  for (const { where, node, phrase, lower, n } of statedBounds(DOCUMENT, "", [])) {
    checked++;
    const allowed = [
      ...carriedBounds(node, lower ? MIN_KEYWORDS : MAX_KEYWORDS),
      ...(enforcedElsewhere[where] ?? []),
    ];
    if (!allowed.includes(n)) {
      mismatches.push(
        `${where}: description says "${phrase}", the schema and constants allow [${allowed.join(", ")}]`,
      );
    }
  }
  assert.deepEqual(
    mismatches,
    [],
    `descriptions stating a bound their schema does not enforce:\n${mismatches.join("\n")}`,
  );
  console.log(`${checked} bound phrases checked against their schema or constant`);
  assert.ok(checked > 40, `only ${checked} bound phrases checked`);
});

test("a route description's 'up to N' / 'at most N' is the bound its schema or the domain enforces", () => {
  const schemas =
    (DOCUMENT as unknown as { components: { schemas: Record<string, { properties: Record<string, Node> }> } })
      .components.schemas;
  const bound = (schema: string, property: string, keyword: string) =>
    schemas[schema]?.properties[property]?.[keyword];
  // [method, path, phrase the description must contain, where its numbers come from]
  const facts: [string, string, string, string][] = [
    [
      "patch",
      "/session/{sessionId}",
      `plan (up to ${bound("SessionPatchRequest", "plan", "maxItems")} items`,
      "SessionPatchRequest.plan maxItems",
    ],
    [
      "post",
      "/session/{sessionId}/activity",
      `(up to ${ACTIVITY_BODY_MAX} characters, ${RESPONSE_BODY_MAX} for response)`,
      "ACTIVITY_BODY_MAX, RESPONSE_BODY_MAX",
    ],
    [
      "post",
      "/session/refresh",
      `at most ${SESSION_GRACE_MS / 86_400_000} days ago refreshes in mode grace`,
      "SESSION_GRACE_MS",
    ],
    [
      "post",
      "/ticket/{ticketId}/acknowledge",
      `\`additionalCriteria\` (up to ${
        bound("AcknowledgeCriteriaRequest", "additionalCriteria", "maxItems")
      }, each`,
      "AcknowledgeCriteriaRequest.additionalCriteria maxItems",
    ],
    [
      "post",
      "/claim",
      `(positive integer up to ${bound("ClaimRequest", "estimatedSeconds", "maximum")})`,
      "ClaimRequest.estimatedSeconds maximum",
    ],
    [
      "post",
      "/ledger",
      `\`labels\` up to ${bound("LedgerEntryRequest", "labels", "maxItems")} of:`,
      "LedgerEntryRequest.labels maxItems",
    ],
    [
      "get",
      "/context",
      `cut to ${COMPACT_BRIEF_CHARS} characters (full mode: ${FULL_BRIEF_CHARS.toLocaleString("en-US")},`,
      "COMPACT_BRIEF_CHARS, FULL_BRIEF_CHARS",
    ],
    [
      "post",
      "/ticket/{ticketId}/acknowledge",
      `A ticket holds at most ${MAX_CRITERIA} criteria in all`,
      "MAX_CRITERIA",
    ],
    ["post", "/pair/connect", `Body at most ${PAIRING_MAX_BODY_BYTES / 1024} KB`, "PAIRING_MAX_BODY_BYTES"],
  ];
  for (const [method, path, phrase, source] of facts) {
    const description = flat(DOCUMENT.paths[path]?.[method]?.description ?? "");
    assert.ok(
      description.includes(phrase),
      `${method.toUpperCase()} ${path} should say "${phrase}" (from ${source})`,
    );
  }
});

test("the 413 answer's description states the body limits the service enforces", () => {
  const stated = new Set<string>();
  for (const operations of Object.values(DOCUMENT.paths)) {
    for (const operation of Object.values(operations ?? {})) {
      const description = (operation as { responses?: Record<string, { description?: string }> }).responses
        ?.["413"]?.description;
      if (description) stated.add(description);
    }
  }
  assert.ok(stated.size > 0, "no operation documents a 413");
  for (const description of stated) {
    assert.ok(description.includes(`${MAX_BODY_BYTES / 1024 / 1024} MiB`), description);
    if (description.includes("pairing")) {
      assert.ok(description.includes(`${PAIRING_MAX_BODY_BYTES / 1024} KB for pairing`), description);
    }
  }
});
