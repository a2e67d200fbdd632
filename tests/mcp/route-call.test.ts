import assert from "node:assert/strict";
import { callOf } from "@/mcp/tools/shared.ts";
import { acknowledgeRoute, boardRoute } from "@/routes/tickets.ts";
import { test } from "../helpers/mod.ts";

test("callOf builds a REST call from a route object: its method, its template filled and encoded", () => {
  assert.deepEqual(callOf(acknowledgeRoute, { params: { ticketId: "AB-1/x y" }, body: { note: 1 } }), {
    method: "POST",
    path: "/ticket/AB-1%2Fx%20y/acknowledge",
    body: { note: 1 },
  });
  assert.deepEqual(callOf(boardRoute, { query: { limit: 5 } }), {
    method: "GET",
    path: "/board",
    query: { limit: 5 },
  });
  assert.throws(() => callOf(acknowledgeRoute), /needs the parameter "ticketId"/);
});

test("MCP tools refer to route objects, never to REST path strings", async () => {
  const dir = new URL("../../src/mcp/tools/", import.meta.url);
  for await (const entry of Deno.readDir(dir)) {
    const source = await Deno.readTextFile(new URL(entry.name, dir));
    assert.doesNotMatch(source, /\bpath:\s*["'`]\//, `${entry.name} names a REST path as a string`);
    assert.doesNotMatch(source, /\bmethod:\s*["'](GET|POST|PATCH|PUT|DELETE)["']/, entry.name);
  }
});
