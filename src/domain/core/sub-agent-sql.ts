import { type RawBuilder, sql } from "kysely";

/**
 * `column` matches the identity's sub-agent name: `IS NULL` for the agent itself, `= name` for a
 * sub-agent. Spelled out rather than `IS NOT DISTINCT FROM $n`, which a prepared statement's generic
 * plan cannot serve from an index (it then reads every row of the agent and sorts them). A `RawBuilder`
 * is a column reference holding a sub-agent's (non-null) name, for statements over many identities.
 */
export function sameSubAgent(
  column: string,
  subAgentName: string | null | undefined | RawBuilder<unknown>,
): RawBuilder<unknown> {
  if (subAgentName == null) return sql`${sql.ref(column)} IS NULL`;
  return sql`${sql.ref(column)} = ${subAgentName}`;
}
