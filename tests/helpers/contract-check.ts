/**
 * Every response a test receives from the service (through `callOn`, a `TestEnv`'s `fetch`, or a
 * `fetch` wrapped in `contractChecked`) is checked against the schema the published OpenAPI document
 * declares for its operation, status and content type, so the document stays true. A JSON response
 * whose status the operation does not document, or whose body breaks the schema, fails the test that
 * received it. Responses of paths the document does not describe (operator API, pages, /mcp) are not
 * checked here.
 */
import { type Contract, loadContract, type Operation } from "../security/fuzz/spec.ts";

let contract:
  | Promise<{ contract: Contract; match: (method: string, path: string) => Operation | null }>
  | null = null;

function templateRegex(path: string): RegExp {
  const segments = path.split("/").map((seg) =>
    seg.startsWith("{") ? "[^/]+" : seg.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&")
  );
  return new RegExp(`^${segments.join("/")}$`);
}

async function load() {
  const c = await loadContract({ withServers: true });
  const table = c.operations.map((op) => ({ op, re: templateRegex(op.path), own: op.ownServer }));
  const match = (method: string, path: string): Operation | null => {
    const rest = path.replace(/^\/(api|svc)(?=\/)/, "");
    for (const { op, re, own } of table) {
      if (op.method !== method) continue;
      if (own ? re.test(path) : re.test(rest) && rest !== path) return op;
    }
    return null;
  };
  return { contract: c, match };
}

/** Problems of one response against the document (empty when it conforms or is not described). */
export async function contractProblems(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  body: unknown,
): Promise<string[]> {
  contract ??= load();
  const { contract: c, match } = await contract;
  const path = new URL(url, "http://x").pathname;
  const op = match(method.toUpperCase(), path);
  if (!op) return [];
  const type = (contentType ?? "").split(";")[0]!.trim();
  if (type !== "application/json") return [];
  const problems = c.validate(op, status, type, body);
  return problems ? problems.map((p) => `${op.id} ${status}: ${p}`) : [];
}

/**
 * `contractProblems` of a response. Its body is read from a clone, and only for a described
 * operation's JSON answer: the caller still reads the response, and streams stay unread.
 */
async function responseProblems(method: string, url: string, res: Response): Promise<string[]> {
  contract ??= load();
  const { match } = await contract;
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (type !== "application/json" || !match(method.toUpperCase(), new URL(url, "http://x").pathname)) {
    return [];
  }
  const text = await res.clone().text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return await contractProblems(method, url, res.status, type, body);
}

/**
 * Fails the calling test when the response breaks the schema the OpenAPI document declares for it.
 * With `CONTRACT_LOG=<file>`, problems are appended there instead.
 */
export async function assertContract(method: string, url: string, res: Response): Promise<void> {
  const problems = await responseProblems(method, url, res);
  if (problems.length === 0) return;
  const log = Deno.env.get("CONTRACT_LOG");
  if (log) {
    await Deno.writeTextFile(log, problems.map((p) => p + "\n").join(""), { append: true });
    return;
  }
  throw new Error(`response does not match the OpenAPI document:\n${problems.join("\n")}`);
}

/**
 * `fetchFn` whose every answer is checked with `assertContract` before the caller reads it: for tests
 * that call the service over a socket or through `app.fetch` rather than through `callOn`.
 */
export function contractChecked<I extends string | URL | Request>(
  fetchFn: (input: I, init?: RequestInit) => Promise<Response>,
): (input: I, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const res = await fetchFn(input, init);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const url = input instanceof Request ? input.url : String(input);
    await assertContract(method, url, res);
    return res;
  };
}
