import assert from "node:assert/strict";
import { call } from "../helpers/mod.ts";

export async function createSprint(token: string, body: Record<string, unknown> = {}) {
  const res = await call("POST", "/sprint", { token, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; number: number; name: string; status: string; createdAt: string };
}

export async function setStatus(token: string, sprintId: string, status: string) {
  return await call("PATCH", `/sprint/${sprintId}`, { token, body: { status } });
}

/** Creates a sprint and walks it to `status` through the legal transitions. */
export async function sprintIn(token: string, status: string, body: Record<string, unknown> = {}) {
  const sprint = await createSprint(token, body);
  const path: Record<string, string[]> = {
    planning: [],
    active: ["active"],
    complete: ["active", "complete"],
    archived: ["active", "complete", "archived"],
    cancelled: ["cancelled"],
  };
  for (const step of path[status]!) {
    const res = await setStatus(token, sprint.id, step);
    assert.equal(res.status, 200, res.text);
  }
  return sprint;
}
