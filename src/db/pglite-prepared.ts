import {
  messages as pgMessages,
  parse,
  type PGlite,
  protocol,
  type QueryOptions,
  type Results,
  type Transaction,
} from "@electric-sql/pglite";

/**
 * Named prepared statements for the embedded engine (issue 27). PGlite's `query()` sends every statement as
 * an unnamed one: parse, describe, bind, describe, execute and sync, six calls into the WebAssembly backend,
 * and PostgreSQL parses, analyses and plans the text again each time. Most of a call's CPU on PGlite went
 * there (about 5 ms per statement of the admission kind, against 0.2 to 0.5 ms on PostgreSQL). Here each
 * distinct text is parsed once as a named statement (its parameter types kept), and every later call sends
 * bind, describe, execute and sync in one buffer: one call into the backend, no parsing, and PostgreSQL's
 * plan cache. Same SQL, same parameters, same results: only the transport changes.
 *
 * Locking is PGlite's own: outside a transaction a statement waits for the transaction lock (as `query()`
 * does), inside one it runs on the transaction's turn. Statements that are not plain DML or a CTE (DDL,
 * BEGIN, SET ...) take PGlite's `query()` unchanged.
 */

/** Distinct texts kept prepared; the least recently used is closed beyond this (each holds a plan). */
export const PREPARED_STATEMENTS_MAX = 400;
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
/** PostgreSQL's answer when a prepared plan no longer fits the table (DDL since): prepare again. */
const PLAN_CHANGED = "0A000";

type Serializer = (value: unknown) => string;
type Parser = (text: string, typeId: number) => unknown;

/** What this module uses of PGlite beyond its typed surface (public fields of the instance). */
interface PGliteInternals {
  serializers: Record<number, Serializer>;
  parsers: Record<number, Parser>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _checkReady(): Promise<void>;
}

interface Prepared {
  name: string;
  types: number[];
}

type QueryFn = <T>(text: string, params?: unknown[], options?: QueryOptions) => Promise<Results<T>>;

/**
 * Sends one buffer of protocol messages, ending with Sync, and throws the first error PostgreSQL answered
 * only after the whole buffer is processed (PGlite's own throw would leave the backend before the Sync).
 */
async function send(pglite: PGlite, parts: Uint8Array[], syncToFs: boolean) {
  const { messages } = await pglite.execProtocol(concat([...parts, protocol.serialize.sync()]), {
    syncToFs,
    throwOnError: false,
  });
  const error = messages.find((m) => m instanceof pgMessages.DatabaseError);
  if (error) throw error;
  return messages;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The statement cache of one PGlite instance: prepare once, execute by name. */
class Statements {
  #byText = new Map<string, Prepared>();
  #next = 0;
  constructor(private readonly pglite: PGlite & PGliteInternals, private readonly max: number) {}

  async #prepare(text: string): Promise<Prepared> {
    const found = this.#byText.get(text);
    if (found) {
      // Most recently used last: Map keeps insertion order.
      this.#byText.delete(text);
      this.#byText.set(text, found);
      return found;
    }
    const name = `svc_${this.#next++}`;
    const s = protocol.serialize;
    const messages = await send(
      this.pglite,
      [s.parse({ name, text }), s.describe({ type: "S", name })],
      false,
    );
    const prepared = { name, types: parse.parseDescribeStatementResults(messages) };
    this.#byText.set(text, prepared);
    if (this.#byText.size > this.max) await this.#evictOldest();
    return prepared;
  }

  async #evictOldest(): Promise<void> {
    const text = this.#byText.keys().next().value!;
    await this.#forget(text);
  }

  /** Closes the statement prepared for `text` and forgets it. */
  async #forget(text: string): Promise<void> {
    const prepared = this.#byText.get(text)!;
    this.#byText.delete(text);
    await send(this.pglite, [protocol.serialize.close({ type: "S", name: prepared.name })], false);
  }

  async #execute<T>(text: string, params: unknown[], syncToFs: boolean): Promise<Results<T>> {
    const { name, types } = await this.#prepare(text);
    const serializers = this.pglite.serializers;
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serialize = serializers[types[i]!];
      return serialize ? serialize(v) : String(v);
    });
    const s = protocol.serialize;
    const messages = await send(
      this.pglite,
      [s.bind({ statement: name, values }), s.describe({ type: "P" }), s.execute({})],
      syncToFs,
    );
    return parse.parseResults(messages, this.pglite.parsers)[0] as Results<T>;
  }

  /** Runs `text` by name; a plan that DDL made stale is prepared again once. */
  async run<T>(text: string, params: unknown[], syncToFs: boolean): Promise<Results<T>> {
    try {
      return await this.#execute<T>(text, params, syncToFs);
    } catch (err) {
      if ((err as { code?: string }).code !== PLAN_CHANGED || !this.#byText.has(text)) throw err;
      await this.#forget(text);
      return await this.#execute<T>(text, params, syncToFs);
    }
  }
}

/**
 * The PGlite instance as Kysely's PGliteDialect sees it, with `query()` (outside and inside transactions)
 * going through named prepared statements. Everything else is the instance itself.
 */
export function withPreparedStatements(pglite: PGlite, max = PREPARED_STATEMENTS_MAX): PGlite {
  const inner = pglite as PGlite & PGliteInternals;
  const statements = new Statements(inner, max);
  const query: QueryFn = async <T>(text: string, params: unknown[] = [], options?: QueryOptions) => {
    if (options !== undefined && !isObjectRows(options)) return await pglite.query<T>(text, params, options);
    if (!PREPARABLE.test(text)) return await pglite.query<T>(text, params);
    await inner._checkReady();
    return await inner._runExclusiveTransaction(() =>
      inner._runExclusiveQuery(() => statements.run<T>(text, params, true))
    );
  };
  const transaction = <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> =>
    pglite.transaction((tx) =>
      fn(
        Object.assign(Object.create(tx), {
          query: <R>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<R>> =>
            (options !== undefined && !isObjectRows(options)) || !PREPARABLE.test(text)
              ? tx.query<R>(text, params, options)
              : inner._runExclusiveQuery(() => statements.run<R>(text, params, false)),
        }) as Transaction,
      )
    );
  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === "query") return query;
      if (prop === "transaction") return transaction;
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Kysely asks for `{ rowMode: "object" }`, which is what the prepared path returns. */
function isObjectRows(options: QueryOptions): boolean {
  return Object.keys(options).every((k) => k === "rowMode") && options.rowMode !== "array";
}
