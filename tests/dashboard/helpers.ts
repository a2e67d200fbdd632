// Shared by the dashboard's HTTP and browser tests: a project with a user of each role.
import type { TestEnv } from "../helpers/env.ts";
import { ADMIN_TOKEN } from "../helpers/env.ts";

export const PASSWORD = "correct horse battery staple";

export async function adminOn(e: TestEnv, method: string, path: string, body: unknown = {}) {
  const res = await e.fetch(`/admin${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`admin ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

export interface DashFixture {
  projectId: string;
  prefix: string;
  users: Record<"admin" | "member" | "viewer" | "outsider", { id: string; email: string }>;
  otherProjectId: string;
}

let n = 0;

/** A project with an admin, a member and a viewer, and an outsider who is admin of another project. */
export async function dashFixture(e: TestEnv): Promise<DashFixture> {
  const tag = `${Date.now().toString(36)}${++n}`;
  const org = await adminOn(e, "POST", "/orgs", { name: "Dash org", plan: "team" });
  const prefix = `D${String.fromCharCode(65 + (n % 26))}${
    String.fromCharCode(65 + Math.floor(Math.random() * 26))
  }`;
  const project = await adminOn(e, "POST", "/projects", {
    orgId: org.id,
    name: `Dash ${prefix}`,
    ticketPrefix: prefix,
  });
  const other = await adminOn(e, "POST", "/projects", {
    orgId: org.id,
    name: "Other",
    ticketPrefix: `O${prefix}`,
  });
  const users = {} as DashFixture["users"];
  for (const role of ["admin", "member", "viewer", "outsider"] as const) {
    const email = `${role}-${tag}@example.com`;
    const user = await adminOn(e, "POST", "/users", { email, password: PASSWORD, name: `${role} ${tag}` });
    users[role] = { id: user.id, email };
    await adminOn(e, "POST", `/projects/${role === "outsider" ? other.id : project.id}/members`, {
      userId: user.id,
      role: role === "outsider" ? "admin" : role,
    });
  }
  return { projectId: project.id, prefix, users, otherProjectId: other.id };
}
