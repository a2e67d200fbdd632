import { z } from "zod";
import { ClaimBody } from "@/contracts/claims.ts";
import { HandoffBody } from "@/contracts/handoff.ts";
import { LedgerEntryBody } from "@/contracts/ledger.ts";
import { CreateTicketBody } from "@/contracts/tickets.ts";

const WRITE_PAYLOADS = {
  ledger: LedgerEntryBody,
  ticket: CreateTicketBody,
  claim: ClaimBody,
  handoff: HandoffBody,
};

type WritePayloadSchemas = Record<keyof typeof WRITE_PAYLOADS, Record<string, unknown>>;

let cached: WritePayloadSchemas | null = null;

/**
 * JSON Schema (draft 2020-12) of the write payloads, generated from the very Zod schemas that validate
 * those routes, so they cannot drift (CTX-016). Input side: what a client sends.
 */
export function writePayloadSchemas(): WritePayloadSchemas {
  const jsonSchema = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" });
  cached ??= {
    ledger: jsonSchema(WRITE_PAYLOADS.ledger),
    ticket: jsonSchema(WRITE_PAYLOADS.ticket),
    claim: jsonSchema(WRITE_PAYLOADS.claim),
    handoff: jsonSchema(WRITE_PAYLOADS.handoff),
  };
  return cached;
}
