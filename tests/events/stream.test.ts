import assert from "node:assert/strict";
import { recordEvent } from "@/domain/core/record-event.ts";
import { STREAM_MAX_PER_AGENT } from "@/contracts/event-stream.ts";
import { closeEventStreams, streamTuning } from "@/routes/event-stream.ts";
import { admin, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

streamTuning.pollMs = 20;

async function emit(projectId: string, kind: string, count = 1): Promise<void> {
  const { db, clock } = await env();
  for (let i = 0; i < count; i++) {
    await db.transaction().execute((trx) =>
      recordEvent(trx, {
        projectId,
        kind,
        entityType: "test",
        entityId: null,
        agentId: null,
        data: { i },
        now: clock.now(),
      })
    );
  }
}

interface SseFrame {
  id?: string;
  data?: string;
  comment?: string;
}

/** An open stream: frames parsed as they arrive. */
class Stream {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  readonly frames: SseFrame[] = [];
  constructor(readonly res: Response, private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  static async open(token: string, query = "", headers: Record<string, string> = {}): Promise<Stream> {
    const e = await env();
    const res = await e.fetch(`/api/events/stream${query}`, {
      headers: { Authorization: `Bearer ${token}`, ...headers },
    });
    assert.equal(res.status, 200, await (res.status === 200 ? "" : res.clone().text()));
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    return new Stream(res, res.body!.getReader());
  }

  /** Reads until `pred` holds for the frames so far (or fails after `ms`). */
  async until(pred: (frames: SseFrame[]) => boolean, ms = 5000): Promise<SseFrame[]> {
    const deadline = Date.now() + ms;
    while (!pred(this.frames)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stream: timed out with ${JSON.stringify(this.frames)}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<null>((r) => timer = setTimeout(() => r(null), left)),
      ]);
      clearTimeout(timer);
      if (chunk === null) continue;
      if (chunk.done) throw new Error(`stream ended early with ${JSON.stringify(this.frames)}`);
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = this.buffer.indexOf("\n\n")) >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const frame: SseFrame = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) frame.comment = line.slice(1).trim();
          else if (line.startsWith("id:")) frame.id = line.slice(3).trim();
          else if (line.startsWith("data:")) frame.data = line.slice(5).trim();
        }
        if (frame.id !== undefined || frame.data !== undefined || frame.comment !== undefined) {
          this.frames.push(frame);
        }
      }
    }
    return this.frames;
  }

  events(): { id: string; event: Record<string, unknown> }[] {
    return this.frames.filter((f) => f.data !== undefined).map((f) => ({
      id: f.id!,
      event: JSON.parse(f.data!),
    }));
  }

  /** True when the service ends the stream within `ms`. */
  async ends(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<null>((r) => timer = setTimeout(() => r(null), deadline - Date.now())),
      ]);
      clearTimeout(timer);
      if (chunk?.done) return true;
    }
    return false;
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

const eventCount = (n: number) => (frames: SseFrame[]) => frames.filter((f) => f.data).length >= n;

test("PUSH-4 the stream starts at the end of the feed and sends each new event once, in order, as GET /events shows it", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await emit(projectId, "test.before", 2);
  const stream = await Stream.open(agent.token);
  try {
    await emit(projectId, "test.after", 5);
    await stream.until(eventCount(5));
    await new Promise((r) => setTimeout(r, 100));
    const got = stream.events();
    assert.equal(got.length, 5, "no old event, no duplicate");
    assert.deepEqual(got.map((g) => g.event.kind), Array(5).fill("test.after"));
    const seqs = got.map((g) => g.event.seq as number);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    // The data is the event exactly as GET /events shows it; the id is the cursor after it.
    const before = await call("GET", `/events?since=${got[0]!.id}`, { token: agent.token });
    assert.deepEqual(before.body.data.events, got.slice(1).map((g) => g.event));
    const page = await call("GET", "/events?kinds=test.after", { token: agent.token });
    assert.deepEqual(page.body.data.events, got.map((g) => g.event));
  } finally {
    await stream.close();
  }
});

test("PUSH-4 the stream resumes after Last-Event-ID, and after `since`, with nothing missed or repeated", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const first = await Stream.open(agent.token);
  await emit(projectId, "test.one", 3);
  await first.until(eventCount(3));
  const lastId = first.events()[1]!.id; // as if the client lost the third event
  await first.close();
  await emit(projectId, "test.two", 2);
  const resumed = await Stream.open(agent.token, "", { "Last-Event-ID": lastId });
  try {
    await resumed.until(eventCount(3));
    assert.deepEqual(resumed.events().map((g) => g.event.kind), ["test.one", "test.two", "test.two"]);
    assert.equal(resumed.events()[0]!.event.seq, first.events()[2]!.event.seq);
  } finally {
    await resumed.close();
  }
  const bySince = await Stream.open(agent.token, `?since=${encodeURIComponent(lastId)}`);
  try {
    await bySince.until(eventCount(3));
    assert.deepEqual(bySince.events().map((g) => g.event.kind), ["test.one", "test.two", "test.two"]);
  } finally {
    await bySince.close();
  }
  const bad = await call("GET", "/events/stream?since=nope", { token: agent.token });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "VALIDATION_ERROR");
});

test("PUSH-4 an idle stream sends heartbeat comments", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const saved = streamTuning.heartbeatMs;
  streamTuning.heartbeatMs = 50;
  const stream = await Stream.open(agent.token);
  try {
    await stream.until((frames) => frames.filter((f) => f.comment === "heartbeat").length >= 2);
  } finally {
    streamTuning.heartbeatMs = saved;
    await stream.close();
  }
});

test("PUSH-4 one agent may hold a limited number of open streams; another agent is not affected", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  const open: Stream[] = [];
  try {
    for (let i = 0; i < STREAM_MAX_PER_AGENT; i++) open.push(await Stream.open(agent.token));
    const refused = await call("GET", "/events/stream", { token: agent.token });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, "TOO_MANY_STREAMS");
    assert.equal(refused.body.error.details.limit, STREAM_MAX_PER_AGENT);
    assert.equal(refused.body.error.details.recovery.action, "RETRY");
    assert.ok(refused.headers.get("retry-after"));
    open.push(await Stream.open(other.token));
    // Closing one frees a place.
    await open.shift()!.close();
    await new Promise((r) => setTimeout(r, 150));
    open.push(await Stream.open(agent.token));
  } finally {
    for (const s of open) await s.close();
  }
});

test("PUSH-4 streams end cleanly at shutdown", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const stream = await Stream.open(agent.token);
  closeEventStreams();
  assert.equal(await stream.ends(2000), true, "the stream ends by itself");
});

test("PUSH-4 a stream ends once its agent is revoked (the token is checked again while it is open)", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const saved = streamTuning.recheckMs;
  streamTuning.recheckMs = 50;
  try {
    const stream = await Stream.open(agent.token);
    assert.equal(await stream.ends(300), false, "open while the token is live");
    await admin("POST", `/projects/${projectId}/agents/${agent.agentId}/revoke`, {});
    assert.equal(await stream.ends(3000), true, "ended after the revocation");
  } finally {
    streamTuning.recheckMs = saved;
  }
});
