/**
 * The framework floor of `deno task bench`: a bare Hono route on the same Deno, answering the JSON body
 * given in the file named by the first argument (the service's `GET /api/me` answer, so the size is the
 * same). Listens on 127.0.0.1 at PORT and prints `listening on` once ready.
 */
import { Hono } from "hono";

const body = await Deno.readTextFile(Deno.args[0]!);
const app = new Hono();
app.get("/api/me", (c) => c.body(body, 200, { "Content-Type": "application/json" }));
Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("PORT")),
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
}, app.fetch);
