import { type RawBuilder, sql } from "kysely";

/**
 * `column` matches the identity's sub-agent name: `IS NULL` for the agent itself, `= name` for a
 * sub-agent. Spelled out rather than `IS NOT DISTINCT FROM $n`, which a prepared statement's generic
 * plan cannot serve from an index (it then reads every row of the agent and sorts them).
 */
export function sameSubAgent(column: string, subAgentName: string | null | undefined): RawBuilder<unknown> {
  return subAgentName == null ? sql`${sql.ref(column)} IS NULL` : sql`${sql.ref(column)} = ${subAgentName}`;
}
