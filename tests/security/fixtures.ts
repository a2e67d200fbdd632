import { toJson } from "@/db/tables/types.ts";
import { type InsertedTicket, insertTicket, setBrief } from "../helpers/fixtures.ts";
import { admin, advanceClock, call, env, newProject, pairAgent } from "../helpers/mod.ts";
import { issueAccessToken } from "@/domain/oauth/access-token.ts";

/**
 * The credentials and resources of the role matrix (tests/security/roles.test.ts): one project with real
 * resources, and one credential of every type the spec names. Expectations come from the spec, written
 * here by hand, never read from the service's own scope tables.
 */

export type Role = "generator" | "evaluator" | "observer" | "orchestrator";

/** Spec, Authentication, default scopes: session token (OAuth write set without read:ticket). */
export const SESSION_SCOPES = [
  "read:brief",
  "read:ledger",
  "read:board",
  "write:claim",
  "write:ledger",
  "write:handoff",
  "write:threads",
  "write:ticket",
  "write:sprint",
];
/** Spec: an orchestrator's session token also gets write:agents. */
export const ORCHESTRATOR_SCOPES = [...SESSION_SCOPES, "write:agents"];
/** Spec (ROLE-026): an OAuth access token with scope `write`. */
export const OAUTH_WRITE_SCOPES = ["read:ticket", ...SESSION_SCOPES];
/** Spec (ROLE-027): an OAuth access token with scope `read`. */
export const OAUTH_READ_SCOPES = ["read:board", "read:ticket", "read:brief"];
/** Spec: sub-agent token default scopes. */
export const SUBAGENT_SCOPES = [
  "read:brief",
  "read:ledger",
  "read:board",
  "write:claim",
  "write:ledger",
  "write:handoff",
  "write:threads",
  "write:ticket",
];

export interface Credential {
  /** Short id used in names and per-credential inputs. */
  id: string;
  label: string;
  token: string;
  headers: Record<string, string>;
  /** false: the token must be refused (401 UNAUTHORIZED) everywhere a bearer is needed. */
  live: boolean;
  role: Role;
  /** Effective scopes; empty means unrestricted. */
  scopes: string[];
  kind: "session" | "subagent" | "api_key" | "oauth";
  /** Acting as a sub-agent (svc_sub_ token or X-Svc-SubAgent). */
  subAgent: boolean;
  /** The caller's own session, null for API keys. */
  sessionId: string | null;
}

export interface Matrix {
  projectId: string;
  orgId: string;
  prefix: string;
  /** Unassigned backlog ticket with criteria (reads, PATCH, acknowledge, artifacts, sprint assign). */
  backlog: InsertedTicket;
  /** Unassigned backlog tickets that POST /begin may start (one per credential id). */
  beginTickets: Record<string, InsertedTicket>;
  /** In progress: DELETE refuses it with 400, so the matrix deletes nothing. */
  inProgress: InsertedTicket;
  /** In review, with a QA run. */
  review: InsertedTicket;
  qaRunId: string;
  artifactId: string;
  sprintId: string;
  threadId: string;
  /** An unused pairing code, for GET /pair/prompt. */
  promptCode: string;
  orchestrator: { token: string; agentId: string; sessionId: string; name: string };
  /** One credential of every type (sessions of each role, sub-agents, keys, dead and absent tokens). */
  credentials: Credential[];
  /** One API key per scope of the spec's table, holding that scope alone. */
  scopeKeys: Credential[];
}

/** The spec's scope table (Authentication: Scopes). */
export const SPEC_SCOPES = [
  "read:brief",
  "read:ledger",
  "read:board",
  "read:ticket",
  "write:brief",
  "write:claim",
  "write:ledger",
  "write:handoff",
  "write:threads",
  "write:ticket",
  "write:sprint",
  "write:agents",
];

const PROJECT_SETTINGS = { ledgerStaleMinutes: 1440 };

async function mintSub(token: string, name: string, role: string, ttlHours = 24) {
  const res = await call("POST", "/subagent/session", { token, body: { name, role, ttlHours } });
  if (res.status !== 201) throw new Error(`mint failed: ${res.status} ${res.text}`);
  return res.body.data as { subAgentToken: string; sessionId: string };
}

async function apiKey(projectId: string, agentName: string, role: Role, scopes: string[]) {
  return await admin("POST", `/projects/${projectId}/api-keys`, {
    name: agentName,
    agentName,
    role,
    scopes,
  }) as {
    key: string;
    agentId: string;
  };
}

/**
 * Builds the matrix project. Moves the service clock forward by a little over 25 hours (the expired
 * session and sub-agent tokens), before any other credential exists.
 */
export async function buildMatrix(): Promise<Matrix> {
  const { db, clock } = await env();
  const { projectId, orgId, prefix } = await newProject({ plan: "team", settings: PROJECT_SETTINGS });
  // A session token left idle past its 24-hour window, then a sub-agent token past its ttlHours.
  const idle = await pairAgent(projectId, { role: "generator" });
  await advanceClock(24 * 3600_000 + 1000);
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const expiring = await mintSub(orch.token, "expiring", "generator", 1);
  await advanceClock(3600_000 + 1000);

  await setBrief(projectId, { scope: "Role matrix project" });
  const gen = await pairAgent(projectId, { role: "generator" });
  const evaluator = await pairAgent(projectId, { role: "evaluator" });
  const observer = await pairAgent(projectId, { role: "observer" });
  const sub = await mintSub(orch.token, "worker", "generator");
  const hdrGen = await mintSub(orch.token, "hdr-gen", "generator");
  const hdrEval = await mintSub(orch.token, "hdr-eval", "evaluator");
  const narrow = await apiKey(projectId, "key-narrow", "generator", ["read:board"]);
  const unrestricted = await apiKey(projectId, "key-all", "generator", []);
  const orchKey = await apiKey(projectId, orch.name, "orchestrator", []);

  const revokedAgent = await pairAgent(projectId);
  const refreshed = await call("POST", "/session/refresh", { body: { token: revokedAgent.token } });
  if (refreshed.status !== 200) throw new Error(`refresh failed: ${refreshed.text}`);

  const archived = await newProject({ settings: PROJECT_SETTINGS });
  const archivedAgent = await pairAgent(archived.projectId);
  await admin("PATCH", `/projects/${archived.projectId}`, { status: "archived" });
  const suspended = await newProject({ settings: PROJECT_SETTINGS });
  const suspendedAgent = await pairAgent(suspended.projectId);
  await admin("PATCH", `/orgs/${suspended.orgId}`, { status: "suspended" });

  const criteria = [{ title: "It works", evidence: "ledger", requiresEvidence: true }];
  const agentFirst = {
    expectedFiles: ["src/matrix.ts"],
    doneDefinition: "The role matrix passes for every cell",
    verificationCommand: "deno test tests/security",
    riskClass: "local" as const,
  };
  const backlog = await insertTicket(projectId, { ...agentFirst, criteria, createdBy: orch.agentId });
  const inProgress = await insertTicket(projectId, {
    ...agentFirst,
    status: "in_progress",
    assignee: gen.agentId,
    criteria,
    acknowledged: true,
  });
  const review = await insertTicket(projectId, {
    ...agentFirst,
    status: "review",
    assignee: gen.agentId,
    criteria,
    acknowledged: true,
  });
  const qaRunId = crypto.randomUUID();
  await db.insertInto("qa_runs").values({
    id: qaRunId,
    ticket_id: review.id,
    session_id: gen.sessionId,
    agent_id: gen.agentId,
    status: "pending",
    created_at: clock.now(),
    completed_at: null,
  }).execute();
  const artifactId = crypto.randomUUID();
  await db.insertInto("ticket_artifacts").values({
    id: artifactId,
    ticket_id: backlog.id,
    type: "pull_request",
    url: "https://example.com/pr/1",
    ref: null,
    title: null,
    metadata: toJson({}),
    status: "open",
    agent_id: orch.agentId,
    created_at: clock.now(),
    updated_at: clock.now(),
  }).execute();
  const sprint = await call("POST", "/sprint", { token: orch.token, body: { name: "Matrix sprint" } });
  if (sprint.status !== 201) throw new Error(`sprint failed: ${sprint.text}`);
  const thread = await call("POST", "/thread", { token: orch.token, body: { intent: "Matrix thread" } });
  if (thread.status !== 201) throw new Error(`thread failed: ${thread.text}`);
  const code = await admin("POST", `/projects/${projectId}/pairing-codes`, { role: "generator" });

  const hdr = (name: string) => ({ "X-Svc-SubAgent": name });
  /** An access token as the OAuth token endpoint would issue it, for a member of the matrix project. */
  const oauthToken = async (scope: "read" | "write") => {
    const user = await admin("POST", "/users", {
      email: `matrix-${scope}-${crypto.randomUUID().slice(0, 8)}@example.com`,
      password: "correct horse battery staple",
      name: `Matrix OAuth ${scope}`,
    });
    await admin("POST", `/projects/${projectId}/members`, { userId: user.id, role: "member" });
    const ctx = { db, clock, publicUrl: (await env()).config.publicUrl };
    const issued = await issueAccessToken(ctx, {
      userId: user.id,
      projectId,
      orgId,
      scope,
      clientId: "matrix",
    });
    return issued.accessToken;
  };
  const credentials: Credential[] = [
    cred("orch", "session token (orchestrator)", orch.token, "orchestrator", ORCHESTRATOR_SCOPES, "session", {
      sessionId: orch.sessionId,
    }),
    cred("gen", "session token (generator)", gen.token, "generator", SESSION_SCOPES, "session", {
      sessionId: gen.sessionId,
    }),
    cred("eval", "session token (evaluator)", evaluator.token, "evaluator", SESSION_SCOPES, "session", {
      sessionId: evaluator.sessionId,
    }),
    cred(
      "sub",
      "sub-agent token svc_sub_ (generator)",
      sub.subAgentToken,
      "generator",
      SUBAGENT_SCOPES,
      "subagent",
      {
        sessionId: sub.sessionId,
        subAgent: true,
      },
    ),
    cred("obs", "session token (observer)", observer.token, "observer", SESSION_SCOPES, "session", {
      sessionId: observer.sessionId,
    }),
    cred(
      "hdrGen",
      "orchestrator session + X-Svc-SubAgent (generator)",
      orch.token,
      "generator",
      SUBAGENT_SCOPES,
      "session",
      {
        sessionId: hdrGen.sessionId,
        subAgent: true,
        headers: hdr("hdr-gen"),
      },
    ),
    cred("keyNarrow", "API key, scopes [read:board]", narrow.key, "generator", ["read:board"], "api_key"),
    cred("keyAll", "API key, unrestricted (generator)", unrestricted.key, "generator", [], "api_key"),
    cred("keyOrch", "API key, unrestricted (orchestrator)", orchKey.key, "orchestrator", [], "api_key"),
    cred("revoked", "revoked session token", revokedAgent.token, "generator", SESSION_SCOPES, "session", {
      live: false,
    }),
    cred(
      "expired",
      "expired sub-agent token",
      expiring.subAgentToken,
      "generator",
      SUBAGENT_SCOPES,
      "subagent",
      {
        live: false,
        subAgent: true,
      },
    ),
    cred(
      "hdrEval",
      "orchestrator session + X-Svc-SubAgent (evaluator)",
      orch.token,
      "evaluator",
      SUBAGENT_SCOPES,
      "session",
      {
        sessionId: hdrEval.sessionId,
        subAgent: true,
        headers: hdr("hdr-eval"),
      },
    ),
    cred(
      "archived",
      "session token, archived project",
      archivedAgent.token,
      "generator",
      SESSION_SCOPES,
      "session",
      {
        live: false,
      },
    ),
    cred(
      "suspended",
      "session token, suspended organization",
      suspendedAgent.token,
      "generator",
      SESSION_SCOPES,
      "session",
      {
        live: false,
      },
    ),
    cred(
      "idle",
      "expired session token (idle 24 hours)",
      idle.token,
      "generator",
      SESSION_SCOPES,
      "session",
      {
        live: false,
      },
    ),
    cred("missing", "no Authorization header", "", "generator", [], "session", { live: false }),
    cred("malformed", "malformed token", "svc_sess_not-a-real-token", "generator", [], "session", {
      live: false,
    }),
    // Last: the columns before them move the clock about 18 minutes, inside the tokens' hour.
    cred("oauthWrite", "OAuth access token, scope write", await oauthToken("write"), "generator", [
      ...OAUTH_WRITE_SCOPES,
    ], "oauth"),
    cred("oauthRead", "OAuth access token, scope read", await oauthToken("read"), "generator", [
      ...OAUTH_READ_SCOPES,
    ], "oauth"),
  ];
  const scopeKeys: Credential[] = [];
  for (const scope of SPEC_SCOPES) {
    // The role that every route needing this scope allows (write:agents is for orchestrators only).
    const role: Role = scope === "write:agents" ? "orchestrator" : "generator";
    const id = `key-${scope.replace(":", "-")}`;
    const key = await apiKey(projectId, id, role, [scope]);
    scopeKeys.push(cred(id, `API key, scopes [${scope}] (${role})`, key.key, role, [scope], "api_key"));
  }
  const beginTickets: Record<string, InsertedTicket> = {};
  for (const c of [...credentials, ...scopeKeys]) {
    beginTickets[c.id] = await insertTicket(projectId, { ...agentFirst, criteria, title: `Begin ${c.id}` });
  }
  return {
    projectId,
    orgId,
    prefix,
    backlog,
    beginTickets,
    inProgress,
    review,
    qaRunId,
    artifactId,
    sprintId: sprint.body.data.id,
    threadId: thread.body.data.id,
    promptCode: code.code,
    orchestrator: { token: orch.token, agentId: orch.agentId, sessionId: orch.sessionId, name: orch.name },
    credentials,
    scopeKeys,
  };
}

function cred(
  id: string,
  label: string,
  token: string,
  role: Role,
  scopes: string[],
  kind: Credential["kind"],
  extra: { sessionId?: string; subAgent?: boolean; live?: boolean; headers?: Record<string, string> } = {},
): Credential {
  return {
    id,
    label,
    token,
    role,
    scopes,
    kind,
    headers: extra.headers ?? {},
    live: extra.live ?? true,
    subAgent: extra.subAgent ?? false,
    sessionId: extra.sessionId ?? null,
  };
}
