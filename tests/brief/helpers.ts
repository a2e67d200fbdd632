// deno-lint-ignore-file no-explicit-any
import { SUBAGENT_SCOPES } from "@/domain/core/scopes.ts";
import { hashToken, randomSecret } from "@/domain/core/crypto.ts";
import { admin, env } from "../helpers/mod.ts";
import { insertSubAgent } from "../helpers/fixtures.ts";

/** An API key for a new agent of the project, with the given scopes (`[]` = unrestricted). */
export async function apiKey(projectId: string, scopes: string[], role = "generator") {
  const name = `key-${crypto.randomUUID().slice(0, 8)}`;
  const key: any = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: name, role, scopes });
  return { token: key.key as string, agentId: key.agentId as string, name };
}

/**
 * A sub-agent token (`svc_sub_`) for `parent`, written straight into the tokens table: minting goes
 * through an endpoint another area builds, and these tests only need the token's identity and scopes.
 */
export async function subAgentToken(parent: { agentId: string; projectId: string }, name = "worker") {
  const { db, clock } = await env();
  const token = `svc_sub_${randomSecret(32)}`;
  await insertSubAgent(parent.projectId, parent.agentId, name);
  await db.insertInto("tokens").values({
    id: crypto.randomUUID(),
    kind: "subagent",
    token_hash: hashToken(token),
    project_id: parent.projectId,
    agent_id: parent.agentId,
    session_id: null,
    sub_agent_name: name,
    parent_token_id: null,
    name,
    scopes: JSON.stringify(SUBAGENT_SCOPES),
    created_at: clock.now(),
    expires_at: new Date(clock.now().getTime() + 24 * 3600_000),
  }).execute();
  return token;
}

/** Moves the service clock to just after the start of the next fixed window of `windowMs`. */
export async function alignClock(windowMs: number): Promise<void> {
  const { clock } = await env();
  const now = clock.now().getTime();
  const next = Math.floor(now / windowMs) * windowMs + windowMs;
  await admin("POST", "/clock", { advanceMs: next - now + 1000 });
}
