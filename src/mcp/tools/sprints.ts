import {
  SprintAssignBody,
  SprintAssignResult,
  SprintCreateBody,
  SprintCreatedResponse,
} from "@/contracts/sprints.ts";
import type { ToolDefinition } from "../types.ts";
import { ADDITIVE, callOf, relay, updating } from "./shared.ts";
import { sprintAssignRoute, sprintCreateRoute } from "@/routes/sprints.ts";

export const svcSprintCreate: ToolDefinition<typeof SprintCreateBody> = {
  name: "svc_sprint_create",
  title: "Create a sprint",
  description: "Creates a sprint in planning (POST /sprint): `name` (1 to 200, default `Sprint N`), `goal` " +
    "(up to 2000), `startDate` and `endDate` (ISO 8601 date or date-time with offset; end not before " +
    "start), `capacityPoints` (0 to 9999). Needs write:sprint. Result { id, number, name, status, createdAt }.",
  input: SprintCreateBody,
  output: SprintCreatedResponse.shape.data,
  annotations: ADDITIVE,
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(sprintCreateRoute, { body: args })));
  },
};

export const svcSprintAssign: ToolDefinition<typeof SprintAssignBody> = {
  name: "svc_sprint_assign",
  title: "Assign a ticket to a sprint",
  description: "Puts a ticket in a sprint or takes it out (POST /sprint/assign): `ticketId` (UUID or " +
    "<PREFIX>-<number> key), `sprintId` (sprint UUID, or null to unassign), `idempotencyKey` (up to 120; a " +
    "repeat within 60 seconds returns the earlier result). Idempotent. Needs write:sprint. Result " +
    "{ ticketId, sprintId, action, idempotent?, noop? }.",
  input: SprintAssignBody,
  output: SprintAssignResult,
  annotations: updating(true),
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(sprintAssignRoute, { body: args })));
  },
};
