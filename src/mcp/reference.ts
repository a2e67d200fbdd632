import type { ToolDefinition } from "./types.ts";

/** One input field of a tool: its name, whether it is required, its description. */
function fieldsOf(tool: ToolDefinition): string {
  const shape = tool.input.shape as Record<string, { isOptional?: () => boolean; description?: string }>;
  const names = Object.keys(shape);
  if (names.length === 0) return "none";
  return names.map((n) => {
    const f = shape[n]!;
    const optional = typeof f.isOptional === "function" && f.isOptional();
    return `\`${n}\`${optional ? "" : " (required)"}`;
  }).join(", ");
}

/** Markdown cells hold no pipe and no line break. */
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");

/**
 * The MCP server's section of the `/docs` reference (Markdown), derived from the tool definitions: each
 * tool's name, title, scope, read-only or not, input fields and description. Never written by hand, so
 * it cannot drift from what `tools/list` answers.
 */
export function mcpReferenceMarkdown(tools: readonly ToolDefinition[], mcpPath = "/mcp"): string {
  const rows = tools.map((t) =>
    `| \`${t.name}\` | ${cell(t.title)} | ${t.scope} | ${t.annotations.readOnlyHint ? "yes" : "no"} | ${
      cell(fieldsOf(t))
    } |`
  );
  const details = tools.map((t) => `### ${t.name}\n\n${t.description.trim()}\n`);
  return [
    "## MCP server",
    "",
    `The service is also a Model Context Protocol server at \`POST ${mcpPath}\` (Streamable HTTP, ` +
    "stateless), for OAuth clients: each tool calls the REST route it wraps with the caller's bearer, so " +
    "scopes, roles and limits are the REST API's. `read` tools need any valid token; `write` tools need " +
    `the \`write\` scope. ${tools.length} tools:`,
    "",
    "| Tool | Title | Scope | Read-only | Input |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
    ...details,
  ].join("\n");
}
