/**
 * Every response a test receives through `callOn` is checked against the schema the published OpenAPI
 * document declares for its operation, status and content type, so the document stays true. A JSON
 * response whose status the operation does not document, or whose body breaks the schema, fails the
 * test that received it. Responses of paths the document does not describe (operator API, pages) are
 * not checked here.
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
