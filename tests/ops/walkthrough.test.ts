// The README's walkthrough as a newcomer runs it: every command of its `sh` blocks, in order, through bash
// and curl, against the service started as `deno task start` would (src/main.ts, a fresh DATA_DIR, the demo
// project it creates). The placeholders are filled by the rule the README states:
//   - `<admin token>`, `<demo pairing code>`: the value after `admin token:` / `demo pairing code:` in the
//     start log;
//   - any other `<name>`: the first `name` field (depth first) of the most recent JSON answer that has one.
// The service runs on a free port, not 8787: the second terminal has only `PORT` exported, as the README
// says, and `$O` and the CLI follow it (nothing in the commands is rewritten for the port). The only
// rewrites: `npx -y deno` is this deno, and `curl -s` also prints the status code on a last line. A command
// answers 2xx unless its line ends with `# -> NNN ...`, which states the status it must answer.
import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The walkthrough section: its numbered steps and, per step, its shell commands (comments kept). */
function walkthroughOf(
  readme: string,
): { intro: string; steps: { title: string; lines: string[] }[] } {
  const start = readme.indexOf("## Walkthrough");
  assert.ok(start >= 0, "README has no Walkthrough section");
  const end = readme.indexOf("\n## ", start + 3);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const steps: { title: string; lines: string[] }[] = [];
  let inBlock = false;
  for (const raw of section.split("\n")) {
    const line = raw.trim();
    const step = /^(\d+)\. \*\*(.+?)\*\*/.exec(line);
    if (step && !inBlock) steps.push({ title: `${step[1]}. ${step[2]}`, lines: [] });
    else if (line === "```sh") inBlock = true;
    else if (line === "```") inBlock = false;
    else if (inBlock && line !== "" && !line.startsWith("#")) {
      assert.ok(steps.length > 0, `a command before the first numbered step: ${line}`);
      steps.at(-1)!.lines.push(line);
    }
  }
  return { intro: section.slice(0, section.indexOf("\n0. ")), steps };
}

const ASSIGNMENTS = /^(export\s+)?[A-Z_]+=[^\s;]*(;\s*[A-Z_]+=[^\s;]*)*;?$/;

/** The first `name` field, depth first, of a JSON value. */
function fieldOf(value: unknown, name: string): unknown {
  if (Array.isArray(value)) {
    for (const v of value) {
      const hit = fieldOf(v, name);
      if (hit !== undefined) return hit;
    }
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === name && (typeof v === "string" || typeof v === "number")) return v;
      const hit = fieldOf(v, name);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

/** `POST /ticket/$T/approve` (as written) is `POST /ticket/<id>/approve` (as suggested). */
function sameCall(written: string, suggested: string): boolean {
  const a = written.split(/[ /]/);
  const b = suggested.split(/[ /]/);
  return a.length === b.length && a.every((part, i) => part === b[i] || part.startsWith("$"));
}

async function collect(stream: ReadableStream<Uint8Array>, into: string[]): Promise<void> {
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) into.push(chunk);
}

async function startService() {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const dataDir = await Deno.makeTempDir();
  const passthrough = Object.fromEntries(
    ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"].flatMap((k) => {
      const v = Deno.env.get(k);
      return v ? [[k, v]] : [];
    }),
  );
  // A clean environment: no DATABASE_URL or SVC_ADMIN_TOKEN of the test run leaks into the "fresh clone".
  // `deno task start`'s own command line, run directly so that SIGTERM reaches the service.
  const deno = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const [, ...args] = (deno.tasks.start as string).split(" ");
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    clearEnv: true,
    env: { ...passthrough, NO_COLOR: "1", PORT: String(port), DATA_DIR: dataDir },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out: string[] = [];
  const done = Promise.all([collect(child.stdout, out), collect(child.stderr, out)]);
  const until = Date.now() + 60_000;
  let log = "";
  while (!/demo pairing code: \S+/.test(log) || !/admin token: \S+/.test(log)) {
    if (Date.now() > until) throw new Error(`the service did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
    log = out.join("");
  }
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, 10_000);
    await child.status;
    clearTimeout(timer);
    await done;
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  return {
    port,
    stop,
    log: {
      "admin token": /admin token: (\S+)/.exec(log)![1]!,
      "demo pairing code": /demo pairing code: (\S+)/.exec(log)![1]!,
    } as Record<string, string>,
  };
}

test(
  "the README walkthrough runs as written against a fresh service and ends with the ticket in done",
  async () => {
    const readme = await Deno.readTextFile(new URL("README.md", `file://${ROOT}`));
    const { intro, steps } = walkthroughOf(readme);
    const commands = steps.flatMap((s) =>
      s.lines.filter((l) => !ASSIGNMENTS.test(l.replace(/\s+#.*$/, "").replace(/<[^>]+>/g, "x")))
    );
    // The counts the README states are the counts it has.
    const counted = `${steps.length - 1} steps, ${commands.length} commands`;
    assert.ok(intro.includes(counted), `the README's walkthrough should say "${counted}"`);
    const service = await startService();
    assert.notEqual(service.port, 8787);
    const answers: unknown[] = [];
    const transcript: string[] = [];
    let prelude = "set -e";
    const fill = (line: string) =>
      line.replace(/<([a-zA-Z][\w ]*)>/g, (_m, name: string) => {
        if (name.includes(" ")) {
          const value = service.log[name];
          assert.ok(value, `no "${name}" in the start log`);
          return value;
        }
        for (let i = answers.length - 1; i >= 0; i--) {
          const value = fieldOf(answers[i], name);
          if (value !== undefined) return String(value);
        }
        throw new Error(`placeholder <${name}>: no earlier answer has a "${name}" field`);
      });
    const calls: { at: number; call: string; status: number }[] = [];
    const suggestions: { at: number; endpoint: string; from: string }[] = [];
    let handoffNext = "";
    let handoff: { warnings?: string[]; review?: { qaRunId?: string | null } } = {};
    let approval: { warnings?: string[]; qa?: { status: string; pendingTests: number } | null } = {};
    let ticketId = "";
    let finalStatus = "";
    try {
      for (const step of steps) {
        for (const written of step.lines) {
          const expected = /#\s*->\s*(\d{3})\b/.exec(written)?.[1];
          const line = fill(written.replace(/\s+#.*$/, "")).replace(/^npx -y deno /, `"${Deno.execPath()}" `);
          if (ASSIGNMENTS.test(line)) {
            prelude += `\n${line}`;
            continue;
          }
          const isCurl = line.startsWith("curl -s ");
          const script = `${prelude}\n${
            isCurl ? line.replace(/^curl -s /, `curl -s -w '\\n%{http_code}' `) : line
          }`;
          const out = await new Deno.Command("bash", {
            args: ["-c", script],
            cwd: ROOT,
            // A second terminal: PATH and the port the service was started on, nothing else.
            clearEnv: true,
            env: {
              PATH: Deno.env.get("PATH") ?? "",
              HOME: Deno.env.get("HOME") ?? "",
              ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
              PORT: String(service.port),
              NO_COLOR: "1",
            },
            stdout: "piped",
            stderr: "piped",
          }).output();
          const stdout = new TextDecoder().decode(out.stdout).trim();
          const stderr = new TextDecoder().decode(out.stderr);
          assert.equal(out.code, 0, `${step.title}: \`${written}\` exited ${out.code}\n${stdout}\n${stderr}`);
          let body = stdout;
          let status = 200;
          if (isCurl) {
            const cut = stdout.lastIndexOf("\n");
            status = Number(stdout.slice(cut + 1));
            body = cut < 0 ? "" : stdout.slice(0, cut);
          }
          transcript.push(`${step.title}: ${written.slice(0, 70)} -> ${status}`);
          const answered = `${step.title}: \`${written}\` answered ${status}\n${body}`;
          if (expected) assert.equal(status, Number(expected), answered);
          else assert.ok(status >= 200 && status < 300, answered);
          const parsed = JSON.parse(body);
          answers.push(parsed);
          if (isCurl) {
            const method = /-X (\w+)/.exec(line)?.[1] ?? "GET";
            calls.push({
              at: transcript.length,
              call: `${method} ${/\$O\/api(\/[^"\s?]*)/.exec(written)?.[1]}`,
              status,
            });
          }
          const next = parsed.data?.nextAction;
          if (next?.endpoint) {
            suggestions.push({ at: transcript.length, endpoint: next.endpoint, from: step.title });
          }
          if (/\/api\/handoff /.test(written)) {
            handoffNext = next?.message ?? "";
            handoff = parsed.data;
          }
          if (/\/approve /.test(written)) approval = parsed.data;
          if (/\/api\/ticket -H/.test(written) && parsed.data?.ticketRef) {
            assert.equal(parsed.data.ticketRef, "DEMO-1", "the README says the first ticket is DEMO-1");
            ticketId = parsed.data.id;
          }
          if (/ticket\?key=DEMO-1/.test(written)) finalStatus = parsed.data.status;
        }
      }
    } finally {
      await service.stop();
    }
    assert.ok(ticketId, transcript.join("\n"));
    assert.equal(finalStatus, "done", transcript.join("\n"));
    assert.equal(transcript.length, commands.length);
    // The service's nextAction suggestions along the way are calls the walkthrough then makes, successfully
    // (a `$VAR` segment of a written path stands for the id the suggestion names).
    assert.ok(suggestions.length >= 2, JSON.stringify(suggestions));
    for (const s of suggestions) {
      const followed = calls.find((c) => c.at > s.at && c.status < 300 && sameCall(c.call, s.endpoint));
      assert.ok(followed, `${s.from}: nextAction ${s.endpoint} is never called successfully afterwards`);
    }
    // The generator's token ends with its handoff: the suggestion says to pair again first.
    assert.match(handoffNext, /POST \/pair\/connect/);
    // Without a warning on the way: the TESTED entry names the ticket's verificationCommand (HAND-048) and
    // the QA run the handoff opened is complete when the ticket is approved.
    assert.deepEqual(handoff.warnings ?? [], [], JSON.stringify(handoff));
    assert.ok(handoff.review?.qaRunId, JSON.stringify(handoff));
    assert.deepEqual(approval.warnings ?? [], [], JSON.stringify(approval));
    assert.equal(approval.qa?.status, "passed", JSON.stringify(approval));
  },
  {
    // It starts its own service on the embedded database, as a fresh clone does: once per CI run is enough.
    ignore: Deno.env.get("TEST_DATABASE_URL") !== undefined,
    reason: "the PostgreSQL run (it starts its own embedded service)",
  },
);
