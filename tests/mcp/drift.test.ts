// deno-lint-ignore-file no-explicit-any
/**
 * Drift between the tools and the routes they wrap, checked two ways:
 *
 * 1. On the schemas: each tool's input JSON Schema (what MCP clients see) against the request schema of
 *    every route the tool calls, as the OpenAPI document publishes it (properties, types, required
 *    fields, enums, lengths, bounds, patterns, formats, nested items). The tool may be stricter (the
 *    spec's MCP differences: svc_ticket_create's required fields and 100-character title and closed type
 *    list, svc_ledger_add's five types, svc_board's limit of 200, svc_ticket_begin's UUID-only ticketId,
 *    svc_brief_update's strings), never looser; the few parameters the tool translates are listed with
 *    the rule that makes them so, and must stay in use. Where a tool is stricter, the difference must be
 *    one the spec documents (NARROWED), so no tool tightens a route's contract unnoticed either.
 * 2. On values: inputs generated from each tool's JSON Schema, kept when the tool's own input schema
 *    accepts them, are turned into the REST calls the tool would make, and every call must pass its
 *    route's own Zod contract (which also holds the refinements JSON Schema cannot express).
 *
 * A tool whose schema accepts a field or value its route refuses fails here.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { z } from "@hono/zod-openapi";
import { BriefPatchBody } from "@/contracts/brief.ts";
import { ContextQuery } from "@/contracts/context.ts";
import { HandoffBody } from "@/contracts/handoff.ts";
import { LedgerEntryBody } from "@/contracts/ledger.ts";
import { SprintAssignBody, SprintCreateBody } from "@/contracts/sprints.ts";
import {
  AcknowledgeBody,
  BatchBody,
  BoardQuery,
  CreateTicketBody,
  GetTicketQuery,
  SearchQuery,
  TicketIdParam,
} from "@/contracts/tickets.ts";
import { BeginBody, PatchTicketBody } from "@/contracts/workflow.ts";
import { TOOLS } from "@/mcp/tools/index.ts";
import type { RestCall, ToolDefinition } from "@/mcp/types.ts";
import { test } from "../helpers/mod.ts";
import { type Contract, loadContract, type Operation } from "../security/fuzz/spec.ts";
import { inline, looserThan, type Schema } from "./schema-subset.ts";

/**
 * Cross-field rules of a contract that a tool leaves to REST on purpose (REST answers them with 400
 * VALIDATION_ERROR, relayed): they refuse a combination, never a field or value the tool offers.
 */
const CROSS_FIELD: Record<string, string[]> = {
  "PATCH /brief": ["Send at least one brief field besides expectedVersion"],
  "PATCH /ticket": ["Send either assignToSelf or unassign, not both"],
};

/**
 * A tool's input schema as MCP clients see it in tools/list: the SDK (1.32) converts Zod 4 schemas with
 * Zod's own toJSONSchema, target draft-7, `io: "input"` (src/mcp/server.ts registers `tool.input`).
 */
function clientSchema(input: z.ZodObject): Schema {
  return z.toJSONSchema(input, { io: "input", target: "draft-7" }) as Schema;
}

const queryOf = (call: RestCall) =>
  Object.fromEntries(
    Object.entries(call.query ?? {}).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]),
  );

/** The route contract a call must satisfy: the issues it raises (empty when it passes). */
function contractIssues(call: RestCall): string[] {
  const key = `${call.method} ${
    call.path.replace(/^\/ticket\/[^/]+\/acknowledge$/, "/ticket/{id}/acknowledge")
  }`;
  const issues = (r: { success: boolean; error?: z.ZodError }) =>
    r.success ? [] : r.error!.issues.map((i) => `${key} ${i.path.join(".")}: ${i.message}`);
  const noQuery = () => (Object.keys(queryOf(call)).length === 0 ? [] : [`${key} takes no query`]);
  switch (key) {
    case "GET /context":
      return issues(ContextQuery.safeParse(queryOf(call)));
    case "GET /board":
      return issues(BoardQuery.strict().safeParse(queryOf(call)));
    case "GET /search":
      return issues(SearchQuery.strict().safeParse(queryOf(call)));
    case "GET /ticket":
      return issues(GetTicketQuery.safeParse(queryOf(call)));
    case "GET /sprint":
      return noQuery();
    case "POST /ticket":
      return [...noQuery(), ...issues(CreateTicketBody.strict().safeParse(call.body))];
    case "POST /ticket/batch": {
      const rows = (call.body as { tickets: unknown[] }).tickets;
      return [
        ...issues(BatchBody.strict().safeParse(call.body)),
        ...rows.flatMap((row) => issues(CreateTicketBody.strict().safeParse(row))),
      ];
    }
    case "POST /begin":
      return issues(BeginBody.strict().safeParse(call.body));
    case "PATCH /ticket":
      return issues(PatchTicketBody.safeParse(call.body)).filter((i) =>
        !CROSS_FIELD[key]!.some((m) => i.endsWith(m))
      );
    case "POST /ticket/{id}/acknowledge": {
      const id = decodeURIComponent(call.path.split("/")[2]!);
      return [
        ...issues(TicketIdParam.safeParse({ ticketId: id })),
        ...issues(AcknowledgeBody.strict().safeParse(call.body)),
      ];
    }
    case "POST /sprint":
      return issues(SprintCreateBody.strict().safeParse(call.body));
    case "POST /sprint/assign":
      return issues(SprintAssignBody.strict().safeParse(call.body));
    case "PATCH /brief":
      return issues(BriefPatchBody.safeParse(call.body)).filter((i) =>
        !CROSS_FIELD[key]!.some((m) => i.endsWith(m))
      );
    case "POST /ledger":
      return issues(LedgerEntryBody.strict().safeParse(call.body));
    case "POST /handoff":
      return issues(HandoffBody.strict().safeParse(call.body));
    default:
      return [`${key}: no route contract known to the drift test`];
  }
}

// ---- inputs from JSON Schema ----

const ALPHABET = "abcxyz019/._- ABZ";
const char = fc.constantFrom(...ALPHABET.split(""));

function stringArb(s: any): fc.Arbitrary<string> {
  if (s.format === "uuid") return fc.uuid({ version: 4 });
  if (s.format === "uri") {
    return fc.oneof(
      fc.webUrl(),
      fc.constant(`https://x.example/${"a".repeat(1950)}`),
      fc.constant("mailto:a@b"),
    );
  }
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 300, 60_000);
  // Lengths at the bounds (where limits drift) as often as anywhere else.
  const length = fc.oneof(
    fc.constant(min),
    fc.constant(max),
    fc.integer({ min, max: Math.min(max, min + 40) }),
  );
  return length.chain((n) =>
    fc.oneof(
      fc.constant("x".repeat(n)),
      fc.array(char, { minLength: n, maxLength: n }).map((cs) => cs.join("")),
      fc.constant(n >= 7 ? `src/${"a".repeat(n - 7)}.ts` : "a".repeat(n)),
    )
  );
}

function numberArb(s: any, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000_000);
  const max = s.maximum ?? 1_000_000_000;
  const inner = integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
  return fc.oneof(fc.constant(min), fc.constant(max), inner);
}

function objectArb(s: any): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, any> = s.properties ?? {};
  const required: string[] = s.required ?? [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, v] of Object.entries(props)) model[k] = arbOf(v);
  if (Object.keys(props).length === 0) {
    return s.additionalProperties
      ? fc.dictionary(fc.string({ maxLength: 5 }), arbOf(s.additionalProperties), { maxKeys: 3 })
      : fc.constant({});
  }
  return fc.record(model, { requiredKeys: required });
}

function arbOf(s: any): fc.Arbitrary<unknown> {
  if (s.anyOf) return fc.oneof(...s.anyOf.map(arbOf));
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case "string":
      return stringArb(s);
    case "integer":
      return numberArb(s, true);
    case "number":
      return numberArb(s, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const min = s.minItems ?? 0;
      const max = Math.min(s.maxItems ?? 4, 25);
      const items = arbOf(s.items ?? {});
      return fc.oneof(
        fc.array(items, { minLength: min, maxLength: Math.min(max, min + 2) }),
        fc.array(items, { minLength: max, maxLength: max }),
      );
    }
    case "object":
      return objectArb(s);
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

/** Runs the tool against a recording forward that refuses every call (no reshaping needed). */
async function callsOf(tool: ToolDefinition, args: unknown): Promise<RestCall[]> {
  const calls: RestCall[] = [];
  await tool.run(args as never, (call) => {
    calls.push(call);
    return Promise.resolve({ status: 400, body: { error: { code: "TEST", message: "recorded" } } });
  });
  return calls;
}

/** Generated inputs the tool accepts whose REST calls the route contract refuses (empty: no drift). */
async function drift(tool: ToolDefinition, runs: number, seed: number) {
  const schema = clientSchema(tool.input);
  const samples = fc.sample(arbOf(schema), { numRuns: runs, seed });
  let accepted = 0;
  const found: { input: unknown; issues: string[] }[] = [];
  for (const sample of samples) {
    const parsed = tool.input.safeParse(sample);
    if (!parsed.success) continue;
    accepted++;
    const issues = (await callsOf(tool, parsed.data)).flatMap(contractIssues);
    if (issues.length > 0) found.push({ input: sample, issues });
  }
  return { accepted, found };
}

const SEED = Number(Deno.env.get("DRIFT_SEED") ?? 20260301);

for (const tool of TOOLS) {
  test(`MCP drift: every input ${tool.name} accepts passes its route's contract (seed ${SEED})`, async () => {
    const runs = tool.name === "svc_ticket_batch" ? 300 : 400;
    const { accepted, found } = await drift(tool, runs, SEED);
    assert.ok(
      accepted >= Math.min(20, runs / 10),
      `${tool.name}: only ${accepted} generated inputs accepted`,
    );
    assert.deepEqual(
      found.slice(0, 1).map((f) => f.issues),
      [],
      JSON.stringify(found[0]?.input)?.slice(0, 500),
    );
  });
}

test("MCP drift: a tool schema looser than its route is caught (title 300 on svc_ticket_create)", async () => {
  const create = TOOLS.find((t) => t.name === "svc_ticket_create")!;
  const loose = { ...create, input: create.input.extend({ title: z.string().min(1).max(300) }) };
  const { found } = await drift(loose as ToolDefinition, 200, SEED);
  assert.ok(found.some((f) => f.issues.some((i) => i.includes("POST /ticket title"))), "drift not detected");
  const ledger = TOOLS.find((t) => t.name === "svc_ledger_add")!;
  const extra = { ...ledger, input: ledger.input.extend({ mood: z.string().optional() }) };
  const extraDrift = await drift(extra as ToolDefinition, 200, SEED);
  assert.ok(extraDrift.found.length > 0, "an unknown field is drift too");
});

test("MCP drift: every tool's input (and output) converts to JSON Schema for MCP clients", () => {
  for (const tool of TOOLS) {
    const input = clientSchema(tool.input) as { type: string };
    assert.equal(input.type, "object", tool.name);
    if (tool.output) {
      assert.equal((z.toJSONSchema(tool.output, { target: "draft-7" }) as { type: string }).type, "object");
    }
  }
});

// ---- 1. on the schemas ----

/**
 * The MCP differences where a tool parameter is not its route's field of the same name, keyed
 * `<tool> <parameter>` (a parameter the tool translates: `via` names the route field it becomes) or
 * `<tool> <METHOD path> <field>` (a field the route requires that the tool may leave out, and why).
 */
const TRANSLATED: Record<string, { via?: string; why: string }> = {
  "svc_ticket_get includeLedger": { via: "include", why: "MCP-043: becomes include=ledger" },
  "svc_ticket_get includeComments": { via: "include", why: "MCP-043: becomes include=comments" },
  "svc_tickets GET /search q": { why: "MCP-041: without q the tool lists GET /board instead of searching" },
};

/**
 * Rows the document describes in words and the route validates one by one against another operation's
 * schema: POST /ticket/batch's `tickets[]` are POST /ticket bodies (CreateTicketRequest).
 */
const ROWS: Record<string, { field: string; component: string }> = {
  "POST /ticket/batch": { field: "tickets", component: "CreateTicketRequest" },
};

/** The request of one operation as one object schema: body fields, query and path parameters. */
function requestSchema(contract: Contract, op: Operation): Schema {
  const deref = (s: Schema) => contract.deref(s);
  const body = op.body ? inline(op.body, deref) : { properties: {}, required: [] };
  const rows = ROWS[op.id];
  if (rows) {
    const row = inline({ $ref: `#/components/schemas/${rows.component}` }, deref);
    body.properties[rows.field] = { ...body.properties[rows.field], items: row };
  }
  const properties: Record<string, Schema> = { ...(body.properties ?? {}) };
  const required: string[] = [...(body.required ?? [])];
  for (const p of op.params.filter((p) => p.in === "query" || p.in === "path")) {
    properties[p.name] = inline(p.schema, deref);
    if (p.required) required.push(p.name);
  }
  return { ...body, type: "object", properties, required };
}

/** The documented operation a recorded call reaches (a literal path wins over a `{param}` one). */
function operationOf(contract: Contract, call: RestCall): Operation {
  const candidates = contract.operations.filter((op) =>
    op.method === call.method &&
    new RegExp(`^${op.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(call.path)
  );
  candidates.sort((a, b) => (a.path.split("{").length - b.path.split("{").length));
  const op = candidates[0];
  if (!op) throw new Error(`no documented operation for ${call.method} ${call.path}`);
  return op;
}

/** The operations a tool calls, learned by running it on generated inputs with a recording forward. */
async function operationsOf(contract: Contract, tool: ToolDefinition): Promise<Operation[]> {
  const schema = clientSchema(tool.input);
  const found = new Map<string, Operation>();
  for (const sample of fc.sample(arbOf(schema), { numRuns: 200, seed: SEED })) {
    const parsed = tool.input.safeParse(sample);
    if (!parsed.success) continue;
    for (const call of await callsOf(tool, parsed.data)) {
      const op = operationOf(contract, call);
      found.set(op.id, op);
    }
  }
  return [...found.values()];
}

/** Where a tool's input schema is looser than the routes it calls (empty: no drift). */
async function schemaDrift(contract: Contract, tool: ToolDefinition, used: Set<string>): Promise<string[]> {
  const input = clientSchema(tool.input) as Schema;
  const routes = (await operationsOf(contract, tool)).map((op) => ({
    op,
    schema: requestSchema(contract, op),
  }));
  const problems: string[] = [];
  if (routes.length === 0) problems.push(`${tool.name}: made no REST call on any generated input`);
  const toolRequired = new Set<string>(input.required ?? []);
  for (const [name, param] of Object.entries<Schema>(input.properties ?? {})) {
    const targets = routes.filter((r) => name in r.schema.properties);
    const translated = TRANSLATED[`${tool.name} ${name}`];
    if (translated) {
      used.add(`${tool.name} ${name}`);
      if (!routes.some((r) => translated.via! in r.schema.properties)) {
        problems.push(`${tool.name} ${name}: translated to ${translated.via}, which no route it calls takes`);
      }
      continue;
    }
    if (targets.length === 0) problems.push(`${tool.name} ${name}: no route it calls takes this field`);
    for (const { op, schema } of targets) {
      // Each route that takes the field must accept every value the tool admits.
      const one = { type: "object", properties: { [name]: schema.properties[name] } };
      problems.push(
        ...looserThan({ type: "object", properties: { [name]: param } }, one).map((p) =>
          `${tool.name} ${op.id} ${p}`
        ),
      );
    }
  }
  for (const { op, schema } of routes) {
    for (const name of schema.required as string[]) {
      const key = `${tool.name} ${op.id} ${name}`;
      if (TRANSLATED[key]) {
        used.add(key);
        continue;
      }
      if (!toolRequired.has(name) && input.properties?.[name]?.default === undefined) {
        problems.push(`${key}: required by the route, optional or absent in the tool`);
      }
    }
  }
  return problems;
}

/** Where the tool is stricter than its routes, by top-level parameter (`<tool> <parameter>`). */
async function narrowings(contract: Contract, tool: ToolDefinition): Promise<Map<string, string[]>> {
  const input = clientSchema(tool.input) as Schema;
  const routes = (await operationsOf(contract, tool)).map((op) => requestSchema(contract, op));
  const out = new Map<string, string[]>();
  const note = (name: string, what: string[]) => {
    if (what.length > 0) {
      out.set(`${tool.name} ${name}`, [...(out.get(`${tool.name} ${name}`) ?? []), ...what]);
    }
  };
  const toolRequired = new Set<string>(input.required ?? []);
  for (const [name, param] of Object.entries<Schema>(input.properties ?? {})) {
    for (const route of routes.filter((r) => name in r.properties)) {
      note(name, looserThan(route.properties[name], param, name));
      if (toolRequired.has(name) && !(route.required as string[]).includes(name)) {
        note(name, [`${name}: required by the tool, optional on the route`]);
      }
    }
  }
  return out;
}

let contractPromise: Promise<Contract> | null = null;
const contract = () => (contractPromise ??= loadContract());

test("MCP drift: every tool's input JSON Schema is no looser than its routes' request schemas (OpenAPI)", async () => {
  const used = new Set<string>();
  const problems: string[] = [];
  for (const tool of TOOLS) problems.push(...await schemaDrift(await contract(), tool, used));
  assert.deepEqual(problems, []);
  // Every listed difference is still real: a stale entry would hide nothing today but something tomorrow.
  assert.deepEqual(Object.keys(TRANSLATED).filter((k) => !used.has(k)), []);
});

test("MCP drift: the schema check catches a looser tool (length, enum, extra field, optional required)", async () => {
  const used = new Set<string>();
  const byName = (name: string) => TOOLS.find((t) => t.name === name)!;
  const variant = (name: string, input: z.ZodObject) => ({ ...byName(name), input }) as ToolDefinition;
  const create = byName("svc_ticket_create").input;
  const ledger = byName("svc_ledger_add").input;
  const begin = byName("svc_ticket_begin").input;
  const handoff = byName("svc_handoff").input;
  const cases: [ToolDefinition, string][] = [
    [
      variant("svc_ticket_create", create.extend({ title: z.string().min(1).max(300) })),
      "title: maxLength 300",
    ],
    [variant("svc_ledger_add", ledger.extend({ type: z.enum(["PROGRESS", "MOOD"]) })), '"MOOD"'],
    [
      variant("svc_ledger_add", ledger.extend({ mood: z.string().optional() })),
      "mood: no route it calls takes this field",
    ],
    [variant("svc_ticket_begin", begin.extend({ files: z.array(z.string()).min(1) })), "files"],
    [variant("svc_handoff", handoff.partial({ summary: true })), "summary: required by the route"],
    [variant("svc_handoff", handoff.extend({ sessionId: z.string() })), "sessionId: format none"],
    [
      variant(
        "svc_ticket_create",
        create.extend({ acceptanceCriteria: z.array(z.object({ title: z.string().max(600) })).min(1) }),
      ),
      "acceptanceCriteria[].title: maxLength 600",
    ],
  ];
  for (const [tool, expected] of cases) {
    const problems = await schemaDrift(await contract(), tool, used);
    assert.ok(
      problems.some((p) => p.includes(expected)),
      `${tool.name}: ${expected} not caught in ${problems}`,
    );
  }
});

/**
 * The spec's MCP differences: every parameter where a tool is stricter than its route, with the rule that
 * makes it so. A narrowing not listed here (or a listed one that is gone) fails the test below, so the
 * differences stay exactly the documented ones.
 */
const NARROWED: Record<string, string> = {
  "svc_board limit": "MCP-037: 1 to 200 (REST 1000)",
  "svc_tickets limit": "MCP-040 (design): 1 to 100, the search's range, on both paths (REST board 1000)",
  "svc_ticket_create title": "MCP-049: at most 100 characters (REST 200)",
  "svc_ticket_create type": "MCP-049 MCP-050: required, one of six types (REST any string up to 50)",
  "svc_ticket_create description": "MCP-049: required, 1 to 2000 (REST optional, nullable)",
  "svc_ticket_create acceptanceCriteria": "MCP-051: { title, description?, evidence } (REST title or text, " +
    "requiresEvidence, source)",
  "svc_ticket_batch tickets": "MCP-053: rows shaped like svc_ticket_create (MCP-049..051)",
  "svc_ticket_begin ticketId": "MCP-054: a UUID, never the key",
  "svc_brief_update goals": "MCP-064: strings only (REST also lists)",
  "svc_brief_update stack": "MCP-064: strings only (REST also lists)",
  "svc_brief_update constraints": "MCP-064: strings only (REST also lists)",
  "svc_ledger_add type": "MCP-066: five types (REST every ledger type)",
  "svc_ledger_add content": "MCP-066: required",
  "svc_ledger_add sessionId": "MCP-066: required, from begin",
  "svc_handoff artifacts": "MCP-071: { type, url, ref?, title? } (REST also metadata)",
};

test("MCP drift: where a tool is stricter than its route, it is one of the spec's MCP differences", async () => {
  const found: Record<string, string> = {};
  for (const tool of TOOLS) {
    for (const [key, what] of await narrowings(await contract(), tool)) found[key] = what.join("; ");
  }
  assert.deepEqual(Object.keys(found).sort(), Object.keys(NARROWED).sort(), JSON.stringify(found, null, 1));
  // The rule each difference names is the one the schema shows.
  assert.match(found["svc_ticket_create title"]!, /maxLength 200 where the route has 100/);
  assert.match(found["svc_board limit"]!, /maximum 1000 where the route has 200/);
  assert.match(found["svc_ledger_add type"]!, /accepts "FOUND", the route refuses it/);
  assert.doesNotMatch(found["svc_ledger_add type"]!, /"(PROGRESS|DECISION|TESTED|BLOCKED|ALERT)"/);
});
