import { z } from "@hono/zod-openapi";
import { LedgerEntryBody, LedgerTypeSchema, LedgerWriteData } from "@/contracts/ledger.ts";
import { DEFAULT_LEDGER_STALE_MINUTES } from "@/domain/core/silence.ts";
import type { ToolDefinition } from "../types.ts";
import { ADDITIVE, callOf, fieldsOf, relay } from "./shared.ts";
import { ledgerWriteRoute } from "@/routes/ledger.ts";

/** MCP-066: the five types the tool writes. */
export const TOOL_LEDGER_TYPES = ["PROGRESS", "DECISION", "TESTED", "BLOCKED", "ALERT"] as const;

const LedgerInput = z.object({
  ...fieldsOf(LedgerEntryBody, "ticketId", "fileRef"),
  type: LedgerTypeSchema.extract(TOOL_LEDGER_TYPES),
  content: LedgerEntryBody.shape.content.unwrap().describe("1 to 2000 characters"),
  sessionId: LedgerEntryBody.shape.sessionId.unwrap().describe("Your session id, from svc_ticket_begin"),
});

export const svcLedgerAdd: ToolDefinition<typeof LedgerInput> = {
  name: "svc_ledger_add",
  title: "Write a ledger entry",
  description:
    `Appends to the project ledger (POST /ledger): \`type\` ${
      TOOL_LEDGER_TYPES.slice(0, -1).join(", ")
    } or ` +
    `${TOOL_LEDGER_TYPES.at(-1)}, \`content\` (1 to 2000), ` +
    "`sessionId` (from svc_ticket_begin, required), optional `ticketId` (UUID " +
    `or key) and \`fileRef\`. Write one at least every ${DEFAULT_LEDGER_STALE_MINUTES} minutes while you hold work, or other writes are ` +
    "refused with 429 LEDGER_STALE. This tool sends no payload or severity: DECISION needs a rationale " +
    "payload and is refused with 422 (record decisions over REST), and alerts are never critical. A " +
    "BLOCKED entry moves the ticket to blocked.",
  input: LedgerInput,
  output: LedgerWriteData,
  annotations: ADDITIVE,
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(ledgerWriteRoute, { body: args })));
  },
};
