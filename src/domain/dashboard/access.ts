import type { Plan, ProjectSettings } from "@/db/tables/foundation.ts";
import type { ReviewMode } from "@/shared/vocabulary.ts";
import { ALL_SCOPES, OAUTH_READ_SCOPES, OAUTH_WRITE_SCOPES } from "@/domain/core/scopes.ts";
import { oauthAgent } from "@/domain/oauth/actor.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ActorCtx, ServiceCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";

export type MemberRole = "admin" | "member" | "viewer";

/** A signed-in user as the dashboard knows them. */
export interface DashboardUser {
  id: string;
  email: string;
  name: string;
}

/** The user's membership in one active project of an active organization. */
export interface DashboardMember {
  user: DashboardUser;
  role: MemberRole;
  project: {
    id: string;
    name: string;
    orgId: string;
    plan: Plan;
    prefix: string;
    settings: ProjectSettings;
    reviewMode: ReviewMode;
    briefVersion: number;
  };
}

/** What a human may do from the dashboard, by membership role. */
export type DashboardAction = "move" | "approve" | "release_claim" | "brief" | "pair" | "revoke";

const ALLOWED: Record<MemberRole, readonly DashboardAction[]> = {
  admin: ["move", "approve", "release_claim", "brief", "pair", "revoke"],
  member: ["move", "approve", "release_claim", "brief"],
  viewer: [],
};

/**
 * Viewers read; members move, approve, release stale claims and write the brief (the verbs still apply
 * every rule of the API to them); admins also mint pairing codes and revoke agents.
 */
export function may(role: MemberRole, action: DashboardAction): boolean {
  return ALLOWED[role].includes(action);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The user's membership of the project, or null (unknown id, not a member, archived or suspended). */
export async function projectMember(
  ctx: ServiceCtx,
  user: DashboardUser,
  projectId: string,
): Promise<DashboardMember | null> {
  if (!UUID.test(projectId)) return null;
  const row = await ctx.db.selectFrom("memberships as m")
    .innerJoin("projects as p", "p.id", "m.project_id")
    .innerJoin("organizations as o", "o.id", "p.org_id")
    .select([
      "m.role",
      "p.id",
      "p.name",
      "p.org_id",
      "o.plan",
      "p.ticket_prefix",
      "p.settings",
      "p.review_mode",
      "p.brief_version",
    ])
    .where("m.user_id", "=", user.id)
    .where("m.project_id", "=", projectId.toLowerCase())
    .where("p.status", "=", "active")
    .where("o.status", "=", "active")
    .executeTakeFirst();
  if (!row) return null;
  return {
    user,
    role: row.role,
    project: {
      id: row.id,
      name: row.name,
      orgId: row.org_id,
      plan: row.plan,
      prefix: row.ticket_prefix,
      settings: row.settings ?? {},
      reviewMode: row.review_mode,
      briefVersion: row.brief_version,
    },
  };
}

/**
 * The actor a human acts as: the user's own agent in the project (the one OAuth sign-in uses, created on
 * first need), so every action is attributed to them and runs through the API's verbs and rules. Admins
 * act with the orchestrator's rights and every scope; members with their agent's role and the write
 * scopes of an OAuth token; viewers are refused before any verb runs.
 */
export async function actingCtx(
  ctx: ServiceCtx,
  member: DashboardMember,
  action: DashboardAction,
): Promise<ActorCtx> {
  if (!may(member.role, action)) {
    throw fail.forbidden(`Cannot ${action.replace("_", " ")}: your role in this project is ${member.role}`, {
      role: member.role,
    });
  }
  const agent = await oauthAgent(ctx, member.project.id, member.user.id, member.user.name);
  if (agent.status === "revoked") {
    throw fail.forbidden("Your agent in this project was revoked", { agentId: agent.id });
  }
  const admin = member.role === "admin";
  const scopes = admin
    ? [...ALL_SCOPES]
    : member.role === "member"
    ? [...OAUTH_WRITE_SCOPES]
    : [...OAUTH_READ_SCOPES];
  const now = ctx.clock.now();
  const actor: Actor = {
    kind: "oauth",
    tokenKind: "oauth_access",
    tokenId: `dashboard:${member.user.id}`,
    agentId: agent.id,
    agentName: agent.name,
    platform: agent.platform,
    role: admin ? "orchestrator" : agent.role,
    projectId: member.project.id,
    orgId: member.project.orgId,
    plan: member.project.plan,
    scopes,
    sessionId: null,
    subAgentName: null,
    tokenCreatedAt: now,
    tokenExpiresAt: null,
  };
  return { ...ctx, actor };
}
