import { z } from "@hono/zod-openapi";
import { GetTicketQuery, GetTicketResponse, SearchQuery } from "@/contracts/tickets.ts";
import { fieldErrors } from "@/http/errors.ts";
import type { ToolDefinition } from "../types.ts";
import { callOf, fieldsOf, READ_ONLY, relay } from "./shared.ts";
import { boardRoute, getTicketRoute, searchRoute } from "@/routes/tickets.ts";

const TicketsInput = z.object({
  // MCP-040: q at least 2 characters (REST's own rule), status and type as on REST; limit 1 to 100,
  // default 20, the search's range (the board takes the same values).
  ...fieldsOf(SearchQuery, "status", "type", "sprintId"),
  q: SearchQuery.shape.q.optional().describe(
    "Search text, at least 2 characters; when set, sprintId is unused",
  ),
  limit: SearchQuery.shape.limit.unwrap().default(20).describe("1 to 100, default 20"),
});

export const svcTickets: ToolDefinition<typeof TicketsInput> = {
  name: "svc_tickets",
  title: "Find tickets",
  description: "Lists tickets as an array. With `q` (at least 2 characters) it searches (GET /search: " +
    'words, "quoted phrases", OR, -excluded; a ticket key finds that ticket first) and ignores `sprintId`; ' +
    "without `q` it lists the board (GET /board) in number order. Filters `status`, `type`, `sprintId` " +
    "(UUID or `none`, board listing only); `limit` 1 to 100, default 20.",
  input: TicketsInput,
  annotations: READ_ONLY,
  scope: "read",
  async run(args, forward) {
    if (args.q !== undefined) {
      const reply = await forward(callOf(searchRoute, {
        query: { q: args.q, status: args.status, type: args.type, limit: args.limit },
      }));
      return relay(reply, (data) => (data as { results: unknown[] }).results);
    }
    const reply = await forward(callOf(boardRoute, {
      query: { sprintId: args.sprintId, status: args.status, type: args.type, limit: args.limit },
    }));
    return relay(reply, (data) => (data as { tickets: unknown[] }).tickets);
  },
};

const TicketGetInput = z.object({
  ...fieldsOf(GetTicketQuery, "key", "id"),
  includeLedger: z.boolean().default(true).describe("Add the ticket's ledger entries (default true)"),
  includeComments: z.boolean().default(false).describe("Add the ticket's comments (default false)"),
});

/** Neither key nor id (MCP-045): REST's own refusal, from the route's own query schema, without a call. */
function missingRef() {
  const parsed = GetTicketQuery.safeParse({});
  const fields = parsed.success ? [] : fieldErrors(parsed.error);
  return {
    ok: false as const,
    status: 400,
    error: {
      code: "VALIDATION_ERROR",
      message: "Give key or id: svc_ticket_get needs one of them",
      details: { target: "query", fields },
    },
  };
}

export const svcTicketGet: ToolDefinition<typeof TicketGetInput> = {
  name: "svc_ticket_get",
  title: "Read a ticket",
  description: "One ticket (GET /ticket) by `key` (<PREFIX>-<number>, used when both are given) or `id` " +
    "(UUID); neither is 400 VALIDATION_ERROR. `includeLedger` (default true) adds its ledger entries, " +
    "`includeComments` (default false) its comments, newest first, 20 of each.",
  input: TicketGetInput,
  output: GetTicketResponse.shape.data,
  annotations: READ_ONLY,
  scope: "read",
  async run(args, forward) {
    if (args.key === undefined && args.id === undefined) return missingRef();
    const include = [args.includeLedger ? "ledger" : null, args.includeComments ? "comments" : null]
      .filter((x) => x !== null).join(",");
    const ref = args.key !== undefined ? { key: args.key } : { id: args.id };
    const reply = await forward(callOf(getTicketRoute, {
      query: { ...ref, ...(include ? { include } : {}) },
    }));
    return relay(reply);
  },
};
