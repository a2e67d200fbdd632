import { admin, env, newProject } from "../helpers/mod.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { issueAccessToken, type OAuthScope } from "@/domain/oauth/access-token.ts";

/** The test service's context, for minting tokens with the domain verbs directly. */
export async function serviceCtx(): Promise<ServiceCtx> {
  const e = await env();
  return { db: e.db, clock: e.clock, publicUrl: e.config.publicUrl };
}

export interface OAuthFixture {
  orgId: string;
  projectId: string;
  userId: string;
  userName: string;
  /** Mints an access token for this user and project (the authorization-code flow's result). */
  mint(scope: OAuthScope, clientId?: string | null): Promise<string>;
}

let users = 0;

/** A project and a user who is a member of it (`role`), through the operator API. */
export async function oauthFixture(options: { memberRole?: string; userName?: string } = {}): Promise<
  OAuthFixture
> {
  const { orgId, projectId } = await newProject();
  const userName = options.userName ?? `User ${++users} ${crypto.randomUUID().slice(0, 6)}`;
  const user = await admin("POST", "/users", {
    email: `u${crypto.randomUUID().slice(0, 12)}@example.com`,
    password: "correct horse battery staple",
    name: userName,
  });
  await admin("POST", `/projects/${projectId}/members`, {
    userId: user.id,
    role: options.memberRole ?? "member",
  });
  const ctx = await serviceCtx();
  return {
    orgId,
    projectId,
    userId: user.id,
    userName,
    mint: async (scope, clientId = "client-test") =>
      (await issueAccessToken(ctx, { userId: user.id, projectId, orgId, scope, clientId })).accessToken,
  };
}
