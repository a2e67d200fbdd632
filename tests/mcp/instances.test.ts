// Issue 10, item 1: the tool server works behind several instances without sticky sessions. One SDK
// client's requests alternate between two app instances (each with its own in-process state) over one
// database: initialize on one, everything after it on either.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { env, test } from "../helpers/mod.ts";
import { oauthFixture } from "../oauth/helpers.ts";

function block(result: any): any {
  assert.notEqual(result.isError, true, result.content?.[0]?.text);
  return JSON.parse(result.content[0].text);
}

test("MCP-002 stateless: one client's requests spread over two instances need no sticky session", async () => {
  const e = await env();
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  const instances = [
    createApp({ db: e.db, engine: e.engine, clock: systemClock(), config: e.config }),
    createApp({ db: e.db, engine: e.engine, clock: systemClock(), config: e.config }),
  ];
  const served = [0, 0];
  let next = 0;
  const roundRobin = (input: string | URL | Request, init?: RequestInit) => {
    const i = next++ % instances.length;
    served[i]!++;
    return Promise.resolve(instances[i]!.fetch(new Request(input, init)));
  };
  const client = new Client({ name: "svc-instances-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost:8787/mcp"), {
      fetch: roundRobin,
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  try {
    assert.equal((await client.listTools()).tools.length, 15);
    block(
      await client.callTool({
        name: "svc_brief_update",
        arguments: { scope: "Written through one instance", goals: "Read through the other" },
      }),
    );
    const brief = block(await client.callTool({ name: "svc_brief_get", arguments: {} }));
    assert.equal(brief.brief.scope, "Written through one instance");
    assert.equal(brief.briefVersion, 1);
    await client.ping();
    assert.ok(served[0]! >= 2 && served[1]! >= 2, `both instances served: ${served}`);
  } finally {
    await client.close();
  }
});
