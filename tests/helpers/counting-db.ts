import type { Db } from "@/db/database.ts";

/** What a counting database has sent since `reset()`. */
export interface StatementCounts {
  statements: number;
  transactions: number;
  reset(): void;
}

/**
 * `db` with counters: every statement sent (counted once, on its result: `transformQuery` also sees each
 * query builder embedded in another) and every transaction opened through `transaction()` (each one adds
 * BEGIN and COMMIT round trips). Tests pin the counts of hot calls; `scripts/bench/per-call.ts` reports them.
 */
export function countingDb(db: Db): { db: Db; counts: StatementCounts } {
  const counts: StatementCounts = {
    statements: 0,
    transactions: 0,
    reset() {
      counts.statements = 0;
      counts.transactions = 0;
    },
  };
  const counted = db.withPlugin({
    transformQuery: (args) => args.node,
    transformResult: (args) => {
      counts.statements++;
      return Promise.resolve(args.result);
    },
  });
  const proxied = new Proxy(counted, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "transaction") {
        return () => {
          counts.transactions++;
          return target.transaction();
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Db;
  return { db: proxied, counts };
}
