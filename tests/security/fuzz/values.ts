import fc from "fast-check";
import { LEDGER_LABELS } from "@/domain/ledger/labels.ts";
import type { Contract, Schema } from "./spec.ts";

/**
 * Valid values from the document's JSON Schemas. Values that must be real ids of the seeded project
 * are generated as placeholders `§pool:index§` (resolved against the world when the request is built),
 * so that generation stays pure and a seed replays the same choices.
 */

export const POOL = /§([A-Za-z]+):(\d+)§/g;

export function pool(name: string): fc.Arbitrary<string> {
  return fc.nat({ max: 1000 }).map((i) => `§${name}:${i}§`);
}

const LEDGER_TYPES = ["PROGRESS", "DECISION", "TESTED", "BLOCKED", "FOUND", "CONTEXT", "STATUS", "CHANGED"];
const EVENT_KINDS = ["ticket.", "claim.acquired", "ledger.", "thread.", "sprint."];
const TICKET_TYPES = ["feature", "bug", "chore", "task"];

/** Trims or pads `s` (by code points, never splitting a surrogate pair) into [min, max] UTF-16 units. */
export function fit(s: string, min: number, max: number): string {
  let out = s;
  if (out.length > max) {
    const points = Array.from(out);
    while (points.join("").length > max) points.pop();
    out = points.join("");
  }
  while (out.length < min) out += "x";
  return out;
}

function noNul(s: string): boolean {
  return !s.includes("\u0000");
}

/** Free text of [min, max] characters: mostly words, sometimes any printable Unicode. */
export function text(min = 0, max = 60): fc.Arbitrary<string> {
  const hi = Math.min(max, Math.max(min + 20, 60));
  return fc.oneof(
    { weight: 3, arbitrary: fc.lorem({ maxCount: 8, mode: "words" }) },
    { weight: 2, arbitrary: fc.string({ maxLength: hi }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: hi }) },
  ).filter(noNul).map((s) => fit(s, min, max));
}

function commaList(arb: fc.Arbitrary<string>, max = 3): fc.Arbitrary<string> {
  return fc.array(arb, { minLength: 1, maxLength: max }).map((xs) => xs.join(","));
}

const isoDate = fc.date({
  min: new Date("2020-01-01T00:00:00Z"),
  max: new Date("2030-01-01T00:00:00Z"),
  noInvalidDate: true,
}).map((d) => d.toISOString());

const filePath = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom("src/a.ts", "src/b.ts", "src/lib/util.ts", "README.md", "tests/a.test.ts"),
  },
  {
    weight: 1,
    arbitrary: fc.array(fc.stringMatching(/^[a-z0-9_.-]{1,12}$/), { minLength: 1, maxLength: 4 })
      .map((xs) => xs.join("/")),
  },
);

/**
 * Name-driven values: a parameter or property named `ticketId` gets a real ticket, `files` real paths.
 * `where` is `path`, `query`, `header` or `body`; `op` the operation id.
 */
function hinted(name: string, schema: Schema, where: string, op: string): fc.Arbitrary<unknown> | null {
  const isArray = schema.type === "array";
  const real = (arb: fc.Arbitrary<string>) =>
    fc.oneof({ weight: 9, arbitrary: arb }, { weight: 1, arbitrary: fc.uuid() });
  switch (name) {
    case "ticketId":
      if (op.includes("/artifacts/{artifactId}")) return pool("artifactTicket");
      if (where === "path") return real(pool("ticketId"));
      return real(fc.oneof(pool("ticketId"), pool("ticketKey")));
    case "id":
    case "parentId":
      return real(pool("ticketId"));
    case "key":
      return pool("ticketKey");
    case "sessionId":
    case "ledger_sessionId":
      return fc.oneof({ weight: 3, arbitrary: fc.constant("§ownSession:0§") }, {
        weight: 1,
        arbitrary: real(pool("sessionId")),
      });
    case "threadId":
      return real(pool("threadId"));
    case "sprintId":
      if (where === "query") return fc.oneof(pool("sprintId"), fc.constant("none"));
      return real(pool("sprintId"));
    case "artifactId":
      return pool("artifactId");
    case "qaRunId":
      return real(pool("qaRunId"));
    case "agentId":
    case "reviewerAgentId":
      return fc.oneof(pool("agentId"), fc.constant("§ownAgent:0§"));
    case "assigneeId":
      return fc.oneof(pool("agentId"), fc.constantFrom("me", "none"));
    case "files":
      if (where === "query") return commaList(filePath, 4);
      return isArray ? fc.array(filePath, { minLength: 1, maxLength: 4 }) : null;
    case "expectedFiles":
    case "changedFiles":
      return isArray ? fc.array(filePath, { minLength: 1, maxLength: 4 }) : null;
    case "fileRef":
    case "blockedByFile":
    case "ledger_fileRef":
      return filePath;
    case "status":
    case "expectedStatus":
      if (schema.enum) return null;
      if (where === "query") return commaList(fc.constantFrom("backlog", "in_progress", "review", "done"), 2);
      return fc.constantFrom(
        "backlog",
        "claimed",
        "in_progress",
        "blocked",
        "needs_review",
        "review",
        "done",
      );
    case "type":
      if (schema.enum) return null;
      if (op.includes("/ledger")) return commaList(fc.constantFrom(...LEDGER_TYPES), 2);
      return fc.constantFrom(...TICKET_TYPES);
    case "ledger_type":
      return commaList(fc.constantFrom(...LEDGER_TYPES), 2);
    case "kinds":
      return commaList(fc.constantFrom(...EVENT_KINDS), 2);
    case "name":
      if (op.includes("/subagent")) {
        return fc.oneof(pool("subName"), fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/));
      }
      return null;
    case "subAgentName":
    case "ledger_subAgent":
      return pool("subName");
    case "code":
      return pool("code");
    case "token":
      return pool("spareToken");
    case "since":
    case "until":
      if (op.includes("/events")) return fc.oneof(isoDate, pool("cursor"));
      return isoDate;
    case "cursor":
      return pool("cursor");
    case "startDate":
    case "endDate":
      return fc.oneof(isoDate, isoDate.map((d) => d.slice(0, 10)));
    case "include":
      if (op === "GET /ticket") {
        return commaList(
          fc.constantFrom("comments", "ledger", "threads", "activities", "pullRequests", "ciStatus"),
        );
      }
      if (op === "GET /context") return fc.constantFrom("write_schemas", "documents");
      if (op === "GET /sprint/current") return fc.constant("tickets");
      return fc.constant("cancelled");
    case "thread_status":
      return fc.constantFrom("open", "closed", "all");
    case "expectedPlatform":
      return fc.constantFrom("claude-code", "cursor");
    case "platform":
      return fc.constantFrom("claude-code", "cursor", "codex");
    case "q":
      return fc.oneof(fc.lorem({ maxCount: 3 }).map((s) => fit(s, 2, 200)), pool("ticketKey"));
    case "labels":
      return isArray ? fc.uniqueArray(fc.constantFrom(...LEDGER_LABELS), { maxLength: 3 }) : null;
    case "payload":
      if (!op.includes("/ledger")) return null;
      // Satisfies every type's payload rule at once (PROGRESS: did and next; DECISION: rationale).
      return fc.record({ did: text(1, 100), next: text(1, 100), rationale: text(1, 100) });
    case "commitSha":
      return fc.stringMatching(/^[0-9a-f]{7,40}$/);
    case "url":
      return fc.webUrl();
    default:
      return null;
  }
}

export interface ValueGen {
  /** A valid value for `schema`; `name` is the property or parameter name (drives hints). */
  valid(schema: Schema, name: string, where: string, op: string, depth?: number): fc.Arbitrary<unknown>;
}

export function valueGen(contract: Contract): ValueGen {
  const gen = (schema: Schema, name: string, where: string, op: string, depth = 0): fc.Arbitrary<unknown> => {
    const s = contract.deref(schema);
    // Batch items: the document types them as bare objects; give them the single-item schema.
    if (name === "tickets" && s.type === "array") {
      return fc.array(
        gen({ $ref: "#/components/schemas/CreateTicketRequest" }, "", where, "POST /ticket", depth + 1),
        {
          minLength: 1,
          maxLength: 3,
        },
      );
    }
    if (name === "entries" && s.type === "array") {
      return fc.array(
        gen({ $ref: "#/components/schemas/LedgerEntryRequest" }, "", where, "POST /ledger", depth + 1),
        {
          minLength: 1,
          maxLength: 3,
        },
      );
    }
    const hint = hinted(name, s, where, op);
    if (hint) return hint;
    if (s.const !== undefined) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
    if (s.anyOf || s.oneOf) {
      return fc.oneof(...(s.anyOf ?? s.oneOf).map((x: Schema) => gen(x, name, where, op, depth + 1)));
    }
    if (s.allOf) {
      const merged = Object.assign({}, ...s.allOf.map((x: Schema) => contract.deref(x)));
      return gen(merged, name, where, op, depth);
    }
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
    if (types.length > 1) {
      const nonNull = types.filter((t) => t !== "null");
      const arbs = nonNull.map((t) => gen({ ...s, type: t }, name, where, op, depth));
      if (types.includes("null") && where === "body") {
        return fc.oneof({ weight: 4, arbitrary: fc.oneof(...arbs) }, {
          weight: 1,
          arbitrary: fc.constant(null),
        });
      }
      return fc.oneof(...arbs);
    }
    switch (types[0]) {
      case "string": {
        const min = s.minLength ?? 0;
        const max = s.maxLength ?? 200;
        if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
        if (s.format === "uuid") return fc.uuid();
        if (s.format === "uri") return fc.webUrl().filter((u) => u.length <= max);
        if (s.format === "date-time") return isoDate;
        return text(min, max);
      }
      case "integer": {
        const min = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : s.minimum ?? -1000;
        const max = s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : s.maximum ?? 100000;
        return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
      }
      case "number": {
        const min = s.minimum ?? -1e6;
        const max = s.maximum ?? 1e6;
        return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      }
      case "boolean":
        return fc.boolean();
      case "array": {
        const item = gen(s.items ?? {}, name, where, op, depth + 1);
        const maxItems = Math.min(s.maxItems ?? 5, 5);
        return fc.array(item, { minLength: Math.min(s.minItems ?? 0, maxItems), maxLength: maxItems });
      }
      case "object": {
        const props: Record<string, Schema> = s.properties ?? {};
        const required: string[] = s.required ?? [];
        const model: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [key, sub] of Object.entries(props)) model[key] = gen(sub, key, where, op, depth + 1);
        if (Object.keys(props).length === 0) {
          return depth > 3 ? fc.constant({}) : fc.dictionary(
            fc.string({ minLength: 1, maxLength: 10 }),
            fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes("\\u0000")),
            { maxKeys: 4 },
          );
        }
        // About three optional fields per object (at most half of them): fast-check's record keeps most
        // of them, and cross-field rules ("blockedByFile only on BLOCKED", "action wins over status")
        // then refuse nearly every request.
        const ABSENT = Symbol("absent");
        const optional = Object.keys(model).filter((k) => !required.includes(k));
        const absentWeight = Math.max(1, Math.round(optional.length / 3) - 1);
        for (const key of optional) {
          model[key] = fc.oneof(
            { weight: absentWeight, arbitrary: fc.constant(ABSENT) },
            { weight: 1, arbitrary: model[key]! },
          );
        }
        return fc.record(model).map((o) =>
          Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ABSENT))
        );
      }
      default:
        return depth > 3
          ? fc.constant(null)
          : fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v ?? null).includes("\\u0000"));
    }
  };
  return { valid: gen };
}
