/** Calls an app in-process (per-call.ts, per-call-ab.ts): the answer's `data`, or an error for a status >= 300. */
export async function callApp(
  app: { fetch(r: Request): Response | Promise<Response> },
  token: string,
  method: string,
  path: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await app.fetch(
    new Request(`http://localhost:8787${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}
