import { z } from "zod";
import { ClaimBody } from "@/contracts/claims.ts";
import { HandoffBody } from "@/contracts/handoff.ts";
import { LedgerEntryBody } from "@/contracts/ledger.ts";
import { CreateTicketBody } from "@/contracts/tickets.ts";

let cached: Record<string, unknown> | null = null;

/**
 * JSON Schema (draft 2020-12) of the write payloads, generated from the very Zod schemas that validate
 * those routes, so they cannot drift (CTX-016). Input side: what a client sends.
 */
export function writePayloadSchemas(): Record<string, unknown> {
  cached ??= Object.fromEntries(
    Object.entries({
      ledger: LedgerEntryBody,
      ticket: CreateTicketBody,
      claim: ClaimBody,
      handoff: HandoffBody,
    }).map(([name, schema]) => [
      name,
      z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }),
    ]),
  );
  return cached;
}
