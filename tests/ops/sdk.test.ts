// The typed client as another project uses it: a scratch directory with no deno.json imports it by file
// URL, with `--no-config`, and runs the whole agent loop (examples/agent-loop.ts) against a real socket.
import assert from "node:assert/strict";
import { createApp } from "@/app.ts";
import { ADMIN_TOKEN, env, newProject, test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url);

test("the client imported from a scratch project runs the whole agent loop to done; importing it starts no server", async () => {
  const e = await env();
  const app = createApp({ db: e.db, engine: e.engine, clock: e.clock, config: e.config });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const scratch = await Deno.makeTempDir();
  try {
    const { projectId } = await newProject({ reviewMode: "medium" });
    const codes: string[] = [];
    for (const role of ["generator", "evaluator"]) {
      const res = await e.fetch(`/admin/projects/${projectId}/pairing-codes`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ role }),
      });
      codes.push((await res.json()).data.code);
    }
    const example = await Deno.readTextFile(new URL("examples/agent-loop.ts", ROOT));
    const client = new URL("generated/client.ts", ROOT).href;
    await Deno.writeTextFile(
      `${scratch}/main.ts`,
      example.replace('"../generated/client.ts"', `"${client}"`),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", "--no-lock", "--allow-net=127.0.0.1", "main.ts", origin, ...codes],
      cwd: scratch,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stdout + stderr);
    assert.match(stdout, /is review; generator token now: 401/);
    assert.match(stdout, /approve: 200\nticket P\w+-1 is done/);
    assert.doesNotMatch(stdout + stderr, /listening on/);
  } finally {
    await server.shutdown();
    await Deno.remove(scratch, { recursive: true });
  }
});
