import { CompiledQuery, type RawBuilder } from "kysely";
import type { DbOrTrx } from "./database.ts";

/**
 * Hot statements compiled once (issue 27.1): building and compiling a large `sql` template costs more
 * CPU than the driver's round trip. A statement is compiled once per shape with `Slot` markers where a
 * per-call value goes; every later call only fills in the parameters. A Date parameter that is not a
 * slot was derived from the `now` the template was compiled at (a window edge, `now + 5 min`): it keeps
 * its distance to the call's `now`. The SQL text and the parameters are exactly what compiling the
 * template again would give (tests/perf/compiled.test.ts checks that).
 */
export class Slot {
  constructor(readonly name: string) {}
}

type Param = { slot: string } | { offsetMs: number } | { value: unknown };

export interface Template {
  sql: string;
  params: readonly Param[];
}

/** Compiles `query` (built with `Slot`s and dates derived from `now`) into a reusable template. */
export function compileTemplate(db: DbOrTrx, query: RawBuilder<unknown>, now: Date): Template {
  const compiled = query.compile(db);
  return {
    sql: compiled.sql,
    params: compiled.parameters.map((p): Param =>
      p instanceof Slot
        ? { slot: p.name }
        : p instanceof Date
        ? { offsetMs: p.getTime() - now.getTime() }
        : { value: p }
    ),
  };
}

/** The parameters of one call: slots from `values`, dates moved to `now`, constants as compiled. */
export function templateParams(t: Template, now: Date, values: Record<string, unknown>): unknown[] {
  return t.params.map((p) => {
    if ("slot" in p) {
      if (!(p.slot in values)) {
        throw new Error(`Cannot run a compiled statement: no value for slot "${p.slot}"`);
      }
      return values[p.slot];
    }
    return "offsetMs" in p ? new Date(now.getTime() + p.offsetMs) : p.value;
  });
}

/** Runs a compiled template with this call's values. */
export async function runTemplate<R>(
  db: DbOrTrx,
  t: Template,
  now: Date,
  values: Record<string, unknown>,
): Promise<R[]> {
  const result = await db.executeQuery<R>(CompiledQuery.raw(t.sql, templateParams(t, now, values)));
  return result.rows;
}
