import assert from "node:assert/strict";
import { admin, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { parseMentions } from "@/domain/threads/mentions.ts";

async function notificationsFor(where: { agentId?: string; userId?: string }) {
  const { db } = await env();
  let q = db.selectFrom("notifications").selectAll();
  if (where.agentId) q = q.where("recipient_agent_id", "=", where.agentId);
  if (where.userId) q = q.where("recipient_user_id", "=", where.userId);
  return await q.execute();
}

async function thread(token: string) {
  return (await call("POST", "/thread", { token, body: { intent: "Mentions" } })).body.data.id as string;
}

test("THREAD-024 THREAD-025 a reply mentioning an agent notifies that agent (notifications row)", async () => {
  const { projectId } = await newProject();
  const author = await pairAgent(projectId);
  const target = await pairAgent(projectId, { name: `Reviewer-${crypto.randomUUID().slice(0, 4)}` });
  const id = await thread(author.token);
  const res = await call("POST", `/thread/${id}/reply`, {
    token: author.token,
    body: { content: `@${target.name.toLowerCase()}, can you check this? Thanks @${target.name}.` },
  });
  assert.equal(res.status, 201);
  const rows = await notificationsFor({ agentId: target.agentId });
  assert.equal(rows.length, 1, "one notification per message, however often the name appears");
  assert.equal(rows[0]!.kind, "mention");
  assert.equal(rows[0]!.thread_id, id);
  assert.equal(rows[0]!.message_id, res.body.data.id);
  assert.equal(rows[0]!.project_id, projectId);
  assert.equal(rows[0]!.read_at, null);
  assert.match(rows[0]!.content, new RegExp(author.name));
});

test("THREAD-024 a mention of a project member's user name notifies that member", async () => {
  const { projectId } = await newProject();
  const author = await pairAgent(projectId);
  const user = await admin("POST", "/users", {
    email: `ada-${crypto.randomUUID().slice(0, 6)}@example.com`,
    password: "correct horse",
    name: "Ada Lovelace",
  });
  await admin("POST", `/projects/${projectId}/members`, { userId: user.id, role: "member" });
  const outsider = await admin("POST", "/users", {
    email: `bob-${crypto.randomUUID().slice(0, 6)}@example.com`,
    password: "correct horse",
    name: "Bob",
  });
  const id = await thread(author.token);
  await call("POST", `/thread/${id}/reply`, {
    token: author.token,
    body: { content: 'Over to @"ada lovelace" and @Bob' },
  });
  assert.equal((await notificationsFor({ userId: user.id })).length, 1);
  assert.equal((await notificationsFor({ userId: outsider.id })).length, 0, "not a member of the project");
});

test("THREAD-024 no notification for yourself, e-mail addresses, unknown names or other projects' agents", async () => {
  const { projectId } = await newProject();
  const author = await pairAgent(projectId);
  const elsewhere = await newProject();
  const stranger = await pairAgent(elsewhere.projectId);
  const id = await thread(author.token);
  const res = await call("POST", `/thread/${id}/reply`, {
    token: author.token,
    body: {
      content: `note to self @${author.name}; mail me at x@${stranger.name}; @nobody-here @${stranger.name}`,
    },
  });
  assert.equal(res.status, 201);
  assert.equal((await notificationsFor({ agentId: author.agentId })).length, 0);
  assert.equal((await notificationsFor({ agentId: stranger.agentId })).length, 0);
});

test('THREAD-025 mention syntax: @name, @"quoted name", @agent/sub, trailing punctuation', () => {
  assert.deepEqual(parseMentions("hi @alice."), ["alice"]);
  assert.deepEqual(parseMentions('ping @"Ada Lovelace", please'), ["ada lovelace"]);
  assert.deepEqual(parseMentions("@lead/worker-1 go"), ["lead/worker-1", "lead"]);
  assert.deepEqual(parseMentions("mail a@b.com"), []);
  assert.deepEqual(parseMentions("(@Bob) and @bob"), ["bob"]);
});
