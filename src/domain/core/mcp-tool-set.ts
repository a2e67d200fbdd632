/**
 * The project setting `mcpTools` (extension, issue 24 point 7): which MCP tools a project's agents get.
 * Read by the operator API (shown with its default) and by `/mcp` (the tool list of each request).
 */
import type { DbOrTrx } from "@/db/database.ts";
import { DEFAULT_MCP_TOOL_SET, MCP_TOOL_SETS, type McpToolSet } from "@/contracts/operator.ts";

/** Settings as the operator reads them: the defaults of designed settings shown (`mcpTools`). */
export function withSettingDefaults(settings: unknown): Record<string, unknown> {
  const stored = typeof settings === "object" && settings !== null ? settings as Record<string, unknown> : {};
  return { ...stored, mcpTools: toolSetOf(stored.mcpTools) };
}

function toolSetOf(value: unknown): McpToolSet {
  return (MCP_TOOL_SETS as readonly unknown[]).includes(value) ? value as McpToolSet : DEFAULT_MCP_TOOL_SET;
}

/** The project's MCP tool set (`spec` when unset, or when the project is not found). */
export async function projectMcpToolSet(db: DbOrTrx, projectId: string): Promise<McpToolSet> {
  const row = await db.selectFrom("projects").select("settings").where("id", "=", projectId)
    .executeTakeFirst();
  return toolSetOf(row?.settings?.mcpTools);
}
