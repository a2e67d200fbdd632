// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { type AgentFixture, call, newProject, pairAgent, type ProjectFixture } from "../helpers/mod.ts";
import { setBrief } from "../helpers/fixtures.ts";

/** A valid POST /ticket body with every agent-first field. */
export function ticketBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: `Ticket ${crypto.randomUUID().slice(0, 8)}`,
    expectedFiles: ["src/app.ts"],
    doneDefinition: "The feature works and its tests pass",
    verificationCommand: "deno test -A",
    riskClass: "local",
    ...overrides,
  };
}

export interface Setup extends ProjectFixture {
  agent: AgentFixture;
}

/** A project with a brief and one paired agent. */
export async function setup(
  options: Parameters<typeof newProject>[0] & { role?: string } = {},
): Promise<Setup> {
  const project = await newProject(options);
  await setBrief(project.projectId);
  const agent = await pairAgent(project.projectId, { role: options.role ?? "generator" });
  return { ...project, agent };
}

/** Creates a ticket and asserts 201; returns the response data. */
export async function create(token: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await call("POST", "/ticket", { token, body: ticketBody(overrides) });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

/** GET /ticket?id=... data. */
export async function getTicket(token: string, id: string, query = ""): Promise<any> {
  const res = await call("GET", `/ticket?id=${id}${query}`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}
