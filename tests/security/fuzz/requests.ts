// deno-lint-ignore-file no-explicit-any
import fc from "fast-check";
import type { Operation } from "./spec.ts";
import { POOL, type ValueGen } from "./values.ts";
import type { Role, World } from "./seed.ts";

/**
 * A generated request: valid parts built from the operation's schemas, then zero (valid) or more
 * mutations from the hostile catalogue (wrong types, huge arrays, deep nesting, NUL, lone surrogates,
 * oversize bodies, wrong content types, duplicate and unknown parameters, long strings, numbers out of
 * range, `%00` in path parameters, bad credentials and headers).
 */

export type Credential = Role | "sub" | "apikey" | "headerSub";
const CREDENTIALS: Credential[] = [
  "generator",
  "evaluator",
  "observer",
  "orchestrator",
  "sub",
  "apikey",
  "headerSub",
];

export interface Plan {
  prefix: "/api" | "/svc";
  credential: Credential;
  pathParams: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body: { value: unknown } | null;
  mutations: Mutation[];
}

export type Mutation = { kind: string; pick: number; arg: number; value?: unknown };

/** Mutation kinds by what they need: path parameters, a query, a body, or nothing. */
const PATH_MUTATIONS = [
  "path:nul",
  "path:garbage",
  "path:long",
  "path:traversal",
  "path:badPercent",
  "path:surrogateBytes",
  "path:unknownId",
  "path:ticketKey",
];
const QUERY_MUTATIONS = [
  "query:duplicate",
  "query:wrongType",
  "query:nul",
  "query:long",
  "query:badPercent",
  "query:surrogateBytes",
  "query:unknown",
  "query:arraySyntax",
  "query:dropRequired",
  "query:outOfRange",
];
const BODY_MUTATIONS = [
  "body:wrongType",
  "body:hugeArray",
  "body:deep",
  "body:nul",
  "body:surrogate",
  "body:oversize",
  "body:contentType",
  "body:malformed",
  "body:unknownFields",
  "body:longString",
  "body:number",
  "body:dropRequired",
  "body:invalidUtf8",
  "body:nonObject",
  "body:missing",
  "body:nullField",
];
const HEADER_MUTATIONS = [
  "auth:none",
  "auth:garbage",
  "auth:scheme",
  "auth:long",
  "auth:otherKind",
  "header:subAgent",
  "header:requestId",
  "header:platform",
  "header:legacy",
  "header:forwardedFor",
  "header:accept",
];

export function mutationKinds(op: Operation): string[] {
  const kinds = [...HEADER_MUTATIONS];
  if (op.params.some((p) => p.in === "path")) kinds.push(...PATH_MUTATIONS);
  if (op.params.some((p) => p.in === "query")) kinds.push(...QUERY_MUTATIONS);
  else kinds.push("query:unknown", "query:duplicate");
  if (op.body) kinds.push(...BODY_MUTATIONS);
  return kinds;
}

const WRONG_VALUES: unknown[] = [
  42,
  -1,
  1.5,
  "a string",
  "",
  true,
  false,
  null,
  [],
  [1, 2],
  {},
  { nested: { deeper: [1] } },
  "00000000-0000-0000-0000-000000000000",
];

export function planArb(op: Operation, values: ValueGen, mode: "valid" | "invalid"): fc.Arbitrary<Plan> {
  const pathParams: Record<string, fc.Arbitrary<unknown>> = {};
  const queryParts: fc.Arbitrary<[string, string][]>[] = [];
  const headerParts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.params) {
    const arb = values.valid(p.schema, p.name, p.in, op.id);
    if (p.in === "path") pathParams[p.name] = arb;
    else if (p.in === "query") {
      const one = arb.filter((v) => v !== null).map((v) => [[p.name, String(v)]] as [string, string][]);
      queryParts.push(p.required ? one : fc.oneof(fc.constant([] as [string, string][]), one));
    } else if (p.in === "header") headerParts[p.name] = arb;
  }
  const body = op.body
    ? (op.bodyRequired ? values.valid(op.body, "", "body", op.id).map((value) => ({ value })) : fc.oneof(
      { weight: 5, arbitrary: values.valid(op.body, "", "body", op.id).map((value) => ({ value })) },
      { weight: 1, arbitrary: fc.constant(null) },
    ))
    : fc.constant(null);
  const kinds = mutationKinds(op);
  const mutation = fc.record({
    kind: fc.constantFrom(...kinds),
    pick: fc.nat({ max: 10_000 }),
    arg: fc.nat({ max: 10_000 }),
    value: fc.constantFrom(...WRONG_VALUES),
  });
  const credentialArb = op.roles
    ? fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(...(op.roles as Credential[]).filter((r) => CREDENTIALS.includes(r))),
      },
      { weight: 1, arbitrary: fc.constantFrom(...CREDENTIALS) },
    )
    : fc.oneof(
      { weight: 4, arbitrary: fc.constant<Credential>("generator") },
      { weight: 3, arbitrary: fc.constantFrom(...CREDENTIALS) },
    );
  return fc.record({
    prefix: fc.oneof({ weight: 9, arbitrary: fc.constant("/api" as const) }, {
      weight: 1,
      arbitrary: fc.constant("/svc" as const),
    }),
    credential: credentialArb,
    pathParams: fc.record(pathParams) as fc.Arbitrary<Record<string, string>>,
    query: fc.tuple(...queryParts).map((parts) => parts.flat()),
    headers: fc.record(headerParts, { requiredKeys: [] }).map((h) =>
      Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]))
    ),
    body,
    mutations: mode === "valid" ? fc.constant([]) : fc.array(mutation, { minLength: 1, maxLength: 2 }),
  });
}

export interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
  mutations: string[];
  /** A short description for reports (long values elided). */
  summary(): string;
}

interface Resolver {
  world: World;
  credential: Credential;
}

function poolValue(r: Resolver, name: string, i: number): string {
  const w = r.world;
  const at = <T>(xs: T[], fallback: T): T => xs.length ? xs[i % xs.length]! : fallback;
  const none = "00000000-0000-4000-8000-000000000000";
  switch (name) {
    case "ticketId":
      return at(w.ticketIds, none);
    case "ticketKey":
      return at(w.ticketKeys, `${w.prefix}-1`);
    case "sessionId":
      return at(w.sessionIds, none);
    case "ownSession":
      return sessionOf(w, r.credential);
    case "ownAgent":
      return agentOf(w, r.credential);
    case "threadId":
      return at(w.threadIds, none);
    case "sprintId":
      return at(w.sprintIds, none);
    case "artifactId":
      return at(w.artifacts, { ticketId: none, id: none }).id;
    case "artifactTicket":
      return at(w.artifacts, { ticketId: none, id: none }).ticketId;
    case "qaRunId":
      return at(w.qaRunIds, none);
    case "agentId":
      return at(w.agentIds, none);
    case "subName":
      return at([w.subName, w.headerSubName], "nobody");
    case "code":
      return at(w.pairingCodes, "NOCODE");
    case "spareToken":
      return at(w.spareTokens, "svc_sess_none");
    case "cursor":
      return at(w.cursors, "bm90LWEtY3Vyc29y");
    default:
      throw new Error(`unknown pool ${name}`);
  }
}

export function sessionOf(w: World, credential: Credential): string {
  if (credential === "sub") return w.subSessionId;
  if (credential === "apikey" || credential === "headerSub") return w.agents.generator.sessionId;
  return w.agents[credential].sessionId;
}

function agentOf(w: World, credential: Credential): string {
  if (credential === "sub" || credential === "orchestrator") return w.agents.orchestrator.agentId;
  if (credential === "apikey" || credential === "headerSub") return w.agents.generator.agentId;
  return w.agents[credential].agentId;
}

function resolveString(r: Resolver, s: string): string {
  return s.replace(POOL, (_, name: string, i: string) => poolValue(r, name, Number(i)));
}

function resolveDeep(r: Resolver, v: unknown): unknown {
  if (typeof v === "string") return resolveString(r, v);
  if (Array.isArray(v)) return v.map((x) => resolveDeep(r, x));
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveDeep(r, x)]));
  }
  return v;
}

type PathKey = (string | number)[];

/** Every location in a JSON value (object properties and array items), parents first. */
function locations(v: unknown, at: PathKey = [], out: PathKey[] = []): PathKey[] {
  if (Array.isArray(v)) v.forEach((x, i) => (out.push([...at, i]), locations(x, [...at, i], out)));
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) (out.push([...at, k]), locations(x, [...at, k], out));
  }
  return out;
}

function getAt(v: any, path: PathKey): unknown {
  return path.reduce((acc, k) => (acc == null ? undefined : acc[k]), v);
}

function setAt(v: any, path: PathKey, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(v) ? [...v] : { ...(v ?? {}) };
  copy[head as any] = setAt(copy[head as any], rest, value);
  return copy;
}

function deleteAt(v: any, path: PathKey): unknown {
  if (path.length === 1) {
    if (Array.isArray(v)) return v.filter((_, i) => i !== path[0]);
    const copy = { ...v };
    delete copy[path[0] as string];
    return copy;
  }
  const [head, ...rest] = path;
  const copy: any = Array.isArray(v) ? [...v] : { ...v };
  copy[head as any] = deleteAt(copy[head as any], rest);
  return copy;
}

/** A target location: an existing one, or a documented top-level property that was left out. */
function target(op: Operation, body: unknown, m: Mutation, only?: (x: unknown) => boolean): PathKey {
  const existing = locations(body).filter((p) => !only || only(getAt(body, p)));
  const present = new Set(existing.map((p) => String(p[0])));
  const documented = Object.keys((op.body && (op.body as any).properties) ?? {})
    .filter((k) => !present.has(k)).map((k) => [k]);
  const all = [...existing, ...documented];
  return all.length ? all[m.pick % all.length]! : ["field"];
}

const DEEP = "\u0001DEEP\u0001";
const HUGE = "\u0001HUGE\u0001";
const BAD_BYTES = "\u0001BYTES\u0001";

export function buildRequest(op: Operation, plan: Plan, world: World): BuiltRequest {
  const r: Resolver = { world, credential: plan.credential };
  const headers: Record<string, string> = {};
  const mutations = plan.mutations.map((m) => m.kind);

  // Credentials.
  const token = (() => {
    switch (plan.credential) {
      case "sub":
        return world.subToken;
      case "apikey":
        return world.apiKey;
      case "headerSub":
        headers["X-Svc-SubAgent"] = world.headerSubName;
        return world.agents.generator.token;
      default:
        return world.agents[plan.credential].token;
    }
  })();
  if (op.bearer) headers.Authorization = `Bearer ${token}`;
  for (const [k, v] of Object.entries(plan.headers)) headers[k] = resolveString(r, v);

  // Path.
  const rawParams: Record<string, string> = {};
  for (const [k, v] of Object.entries(plan.pathParams)) {
    rawParams[k] = encodeURIComponent(resolveString(r, v));
  }
  const names = Object.keys(rawParams);
  for (const m of plan.mutations) {
    if (!m.kind.startsWith("path:") || names.length === 0) continue;
    const name = names[m.pick % names.length]!;
    const current = rawParams[name]!;
    rawParams[name] = ({
      "path:nul": [current + "%00", "%00", current.slice(0, 8) + "%00" + current.slice(8)][m.arg % 3]!,
      "path:garbage": [
        "abc",
        "1",
        "-1",
        "null",
        "undefined",
        "%20",
        "%F0%9F%92%A9",
        "DROP%20TABLE",
      ][m.arg % 8]!,
      "path:long": "a".repeat([300, 5000, 70000][m.arg % 3]!),
      "path:traversal": ["..", "..%2F..%2Fetc%2Fpasswd", "%2E%2E", "a%2Fb", "%5C"][m.arg % 5]!,
      "path:badPercent": ["%ZZ", "%", "%E0%A4%A", "abc%2"][m.arg % 4]!,
      "path:surrogateBytes": ["%ED%A0%80", "%FF%FE", "%C0%AF"][m.arg % 3]!,
      "path:unknownId": crypto.randomUUID(),
      "path:ticketKey": encodeURIComponent(`${world.prefix}-${1 + (m.arg % 5)}`),
    } as Record<string, string>)[m.kind]!;
  }
  let path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => rawParams[n] ?? "x");

  // Query.
  let query: string[] = plan.query.map(([k, v]) =>
    `${encodeURIComponent(k)}=${encodeURIComponent(resolveString(r, v))}`
  );
  const qparams = op.params.filter((p) => p.in === "query");
  for (const m of plan.mutations) {
    if (!m.kind.startsWith("query:")) continue;
    const p = qparams.length ? qparams[m.pick % qparams.length]! : { name: "x", required: false };
    const key = encodeURIComponent(p.name);
    switch (m.kind) {
      case "query:duplicate":
        query.push(`${key}=${encodeURIComponent(String(m.value ?? ""))}`, `${key}=1`);
        break;
      case "query:wrongType":
        query = query.filter((q) => !q.startsWith(`${key}=`));
        query.push(
          `${key}=${
            encodeURIComponent(["abc", "1.5", "-1", "1e999", "0x10", " 5", "true", "[]", "{}"][m.arg % 9]!)
          }`,
        );
        break;
      case "query:outOfRange":
        query = query.filter((q) => !q.startsWith(`${key}=`));
        query.push(
          `${key}=${
            [
              "-1",
              "0",
              "999999999999999999999",
              "2147483648",
              "-2147483649",
              "1e308",
              "NaN",
              "Infinity",
            ][m.arg % 8]
          }`,
        );
        break;
      case "query:nul":
        query.push(`${key}=${["%00", "a%00b", "%00%00"][m.arg % 3]}`);
        break;
      case "query:long":
        query = query.filter((q) => !q.startsWith(`${key}=`));
        query.push(`${key}=${"z".repeat([1000, 20_000, 200_000][m.arg % 3]!)}`);
        break;
      case "query:badPercent":
        query.push(`${key}=${["%ZZ", "%", "%E0%A4%A", "100%"][m.arg % 4]}`);
        break;
      case "query:surrogateBytes":
        query.push(`${key}=${["%ED%A0%80", "%ED%BF%BF", "%FF"][m.arg % 3]}`);
        break;
      case "query:unknown":
        query.push(`${["unknown", "__proto__", "constructor", "limit[]", "a.b"][m.arg % 5]}=1`);
        break;
      case "query:arraySyntax":
        query.push(`${key}[]=1`, `${key}[0]=2`);
        break;
      case "query:dropRequired":
        query = query.filter((q) => !q.startsWith(`${key}=`));
        break;
    }
  }
  if (query.length) path += `?${query.join("&")}`;

  // Body.
  let bodyValue: unknown = plan.body ? resolveDeep(r, plan.body.value) : undefined;
  let contentType: string | undefined = plan.body ? "application/json" : undefined;
  let raw: string | undefined;
  const isString = (x: unknown) => typeof x === "string";
  if (op.body) {
    for (const m of plan.mutations) {
      if (!m.kind.startsWith("body:")) continue;
      bodyValue ??= {};
      contentType ??= "application/json";
      switch (m.kind) {
        case "body:wrongType":
          bodyValue = setAt(bodyValue, target(op, bodyValue, m), m.value);
          break;
        case "body:nullField":
          bodyValue = setAt(bodyValue, target(op, bodyValue, m), null);
          break;
        case "body:hugeArray":
          bodyValue = setAt(bodyValue, target(op, bodyValue, m), HUGE);
          break;
        case "body:deep":
          bodyValue = setAt(bodyValue, target(op, bodyValue, m), DEEP);
          break;
        case "body:nul": {
          const at = target(op, bodyValue, m, isString);
          const s = String(getAt(bodyValue, at) ?? "x");
          bodyValue = setAt(
            bodyValue,
            at,
            [s + "\u0000", "\u0000", s.slice(0, 1) + "\u0000" + s.slice(1)][m.arg % 3],
          );
          break;
        }
        case "body:surrogate": {
          const at = target(op, bodyValue, m, isString);
          const s = String(getAt(bodyValue, at) ?? "x");
          bodyValue = setAt(bodyValue, at, s + ["\ud800", "\udfff", "\udc00x\ud83d"][m.arg % 3]);
          break;
        }
        case "body:longString": {
          const at = target(op, bodyValue, m, isString);
          bodyValue = setAt(bodyValue, at, "L".repeat([5_000, 100_000, 600_000][m.arg % 3]!));
          break;
        }
        case "body:number": {
          const at = target(op, bodyValue, m, (x) => typeof x === "number");
          bodyValue = setAt(
            bodyValue,
            at,
            [-1, 0, 1e308, -1e308, 2 ** 53 + 2, 1.5, -0, 1e-300, 2147483648, -2147483649][m.arg % 10],
          );
          break;
        }
        case "body:unknownFields": {
          const extra = [
            "unknownField",
            "__proto__",
            "constructor",
            "prototype",
            "id",
            "projectId",
          ][m.arg % 6]!;
          raw = undefined;
          bodyValue = bodyValue && typeof bodyValue === "object" && !Array.isArray(bodyValue)
            ? { ...bodyValue }
            : {};
          Object.defineProperty(bodyValue, extra, { value: m.value ?? 1, enumerable: true, writable: true });
          break;
        }
        case "body:dropRequired": {
          const req: string[] = (op.body as any)?.required ?? [];
          const keys = req.length ? req : Object.keys((bodyValue as any) ?? {});
          if (keys.length && bodyValue && typeof bodyValue === "object") {
            bodyValue = deleteAt(bodyValue, [keys[m.pick % keys.length]!]);
          }
          break;
        }
        case "body:invalidUtf8": {
          const at = target(op, bodyValue, m, isString);
          bodyValue = setAt(bodyValue, at, BAD_BYTES);
          break;
        }
        case "body:nonObject":
          bodyValue = [[1, 2], 42, "text", true, null, []][m.arg % 6];
          break;
        case "body:missing":
          bodyValue = undefined;
          contentType = [undefined, "application/json"][m.arg % 2];
          break;
        case "body:contentType":
          contentType = [
            undefined,
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=xyz",
            "application/xml",
            "application/jsonx",
            "text/json",
            "application/json; charset=utf-16",
            "APPLICATION/JSON",
            "application/vnd.api+json",
            "",
          ][m.arg % 11];
          break;
        case "body:malformed":
          raw = [
            "{",
            '{"a":',
            "[",
            "{} trailing",
            "\uFEFF{}",
            "{'a':1}",
            '{"a":1,}',
            "",
            " ",
            "undefined",
            "NaN",
            '{"a":1e999}',
            '{"a":123456789012345678901234567890}',
            '{"a":"\\u0000"}',
            '{"a":"\\ud800"}',
            '{"__proto__":{"polluted":1}}',
          ][m.arg % 16];
          break;
        case "body:oversize": {
          const size = 1024 * 1024 + [1, 1000, 5_000_000][m.arg % 3]!;
          bodyValue = bodyValue && typeof bodyValue === "object" && !Array.isArray(bodyValue)
            ? { ...bodyValue, padding: "p".repeat(size) }
            : { padding: "p".repeat(size) };
          break;
        }
      }
    }
  }
  let body: string | Uint8Array | undefined;
  if (raw !== undefined) body = raw;
  else if (bodyValue !== undefined) {
    let text = JSON.stringify(bodyValue) ?? "null";
    const deep = plan.mutations.find((m) => m.kind === "body:deep");
    if (deep && text.includes(JSON.stringify(DEEP))) {
      const n = [64, 1000, 10_000, 100_000][deep.arg % 4]!;
      const nested = deep.pick % 2 ? "[".repeat(n) + "]".repeat(n) : '{"a":'.repeat(n) + "1" + "}".repeat(n);
      text = text.replace(JSON.stringify(DEEP), nested);
    }
    const huge = plan.mutations.find((m) => m.kind === "body:hugeArray");
    if (huge && text.includes(JSON.stringify(HUGE))) {
      const n = [1000, 20_000, 100_000][huge.arg % 3]!;
      const item = ["1", '"src/a.ts"', "{}", "null", "[]"][huge.pick % 5]!;
      text = text.replace(JSON.stringify(HUGE), `[${Array(n).fill(item).join(",")}]`);
    }
    if (text.includes(JSON.stringify(BAD_BYTES))) {
      const [before, after] = text.split(JSON.stringify(BAD_BYTES)) as [string, string];
      const enc = new TextEncoder();
      body = new Uint8Array([
        ...enc.encode(before + '"a'),
        0xff,
        0xfe,
        0xc0,
        0xaf,
        ...enc.encode('b"' + after),
      ]);
    } else body = text;
  }
  if (body !== undefined && contentType !== undefined) headers["Content-Type"] = contentType;

  // Headers.
  for (const m of plan.mutations) {
    switch (m.kind) {
      case "auth:none":
        delete headers.Authorization;
        break;
      case "auth:garbage":
        headers.Authorization = [
          "Bearer x",
          "Bearer svc_sess_",
          "Bearer",
          "Bearer  ",
          "bearer svc_sess_zzz",
        ][m.arg % 5]!;
        break;
      case "auth:scheme":
        headers.Authorization = [
          "Basic dXNlcjpwYXNz",
          "Token abc",
          token,
          `Bearer ${token} extra`,
        ][m.arg % 4]!;
        break;
      case "auth:long":
        headers.Authorization = `Bearer svc_sess_${"A".repeat([1000, 20_000][m.arg % 2]!)}`;
        break;
      case "auth:otherKind":
        headers.Authorization = `Bearer ${
          ["svc_sub_", "svc_key_", "svc_sess_", "eyJ"][m.arg % 4]
        }${crypto.randomUUID()}`;
        break;
      case "header:subAgent":
        headers["X-Svc-SubAgent"] = [
          "",
          "unregistered",
          "bad name!",
          "x".repeat(65),
          world.subName,
          "ü",
        ][m.arg % 6]!;
        break;
      case "header:requestId":
        headers["X-Request-Id"] = [
          "r".repeat(65),
          "id with spaces",
          "<script>",
          "a\tb",
          "x".repeat(5000),
        ][m.arg % 5]!;
        break;
      case "header:platform":
        headers["X-Svc-Platform"] = ["cursor", "", "x".repeat(300)][m.arg % 3]!;
        break;
      case "header:legacy":
        headers["X-Svc-Legacy-Create"] = ["1", "true", "yes", "x".repeat(50)][m.arg % 4]!;
        break;
      case "header:forwardedFor":
        headers["X-Forwarded-For"] = [
          "garbage",
          "1.2.3.4, 5.6.7.8",
          "::1",
          "999.999.999.999",
          "",
        ][m.arg % 5]!;
        break;
      case "header:accept":
        headers.Accept = ["text/html", "application/xml", "*/*"][m.arg % 3]!;
        break;
    }
  }

  const url = plan.prefix + path;
  return {
    method: op.method,
    url,
    headers,
    body,
    mutations,
    summary() {
      const cut = (s: string, n = 300) => s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
      const b = body === undefined
        ? ""
        : typeof body === "string"
        ? ` body=${cut(JSON.stringify(body))}`
        : ` body=<${body.length} bytes>`;
      const h = Object.entries(headers).map(([k, v]) => `${k}: ${cut(v, 80)}`).join("; ");
      return `${op.method} ${cut(url, 200)} [${
        mutations.join(", ") || "valid"
      }] as ${plan.credential} {${h}}${b}`;
    },
  };
}
