/** The 15 tools of the spec's "Tool server (MCP)" table, in its order (MCP-001). */
import type { ToolDefinition } from "../types.ts";
import { svcBoard } from "./board.ts";
import { svcBriefGet, svcBriefUpdate } from "./brief.ts";
import { svcHandoff } from "./handoff.ts";
import { svcLedgerAdd } from "./ledger.ts";
import { svcSprintAssign, svcSprintCreate } from "./sprints.ts";
import { svcStatus } from "./status.ts";
import { svcTicketGet, svcTickets } from "./tickets-read.ts";
import {
  svcTicketAcknowledge,
  svcTicketBatch,
  svcTicketBegin,
  svcTicketCreate,
  svcTicketUpdate,
} from "./tickets-write.ts";

export const TOOLS: readonly ToolDefinition[] = [
  svcStatus,
  svcBoard,
  svcTickets,
  svcTicketGet,
  svcBriefGet,
  svcTicketCreate,
  svcTicketBatch,
  svcTicketBegin,
  svcTicketUpdate,
  svcTicketAcknowledge,
  svcSprintCreate,
  svcSprintAssign,
  svcBriefUpdate,
  svcLedgerAdd,
  svcHandoff,
] as unknown as readonly ToolDefinition[];

/** A tool by name. */
export function toolNamed(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.name === name);
}
