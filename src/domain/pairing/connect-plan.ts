import type { z } from "zod";
import type { ConnectBody } from "@/contracts/pairing.ts";
import type {
  AgentsTable,
  OrganizationsTable,
  PairingCodesTable,
  ProjectsTable,
} from "@/db/tables/foundation.ts";
import type { Selectable } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { CODE_REUSE_WINDOW_MS } from "./codes.ts";
import { inferCompany } from "./company.ts";

type CodeRow = Selectable<PairingCodesTable>;
type AgentRow = Selectable<AgentsTable>;

/**
 * PAIR-006/007/019: how a code that is not invalidated may be used. A used code reconnects the agent
 * that consumed it (the code was issued for that agent, or the same name, case-insensitive) inside the
 * reuse window; anyone else, or later, is a strike. An unused code pairs until it expires.
 */
export function codeUseOf(
  code: Pick<CodeRow, "first_used_at" | "agent_id" | "expires_at">,
  consumer: Pick<AgentRow, "name"> | undefined,
  requestedName: string | null,
  now: Date,
): "pair" | "reconnect" | "strike" | "expired" {
  if (code.first_used_at) {
    const sameAgent = consumer !== undefined &&
      (code.agent_id !== null ||
        (requestedName !== null && requestedName.toLowerCase() === consumer.name.toLowerCase()));
    const inWindow = now.getTime() - code.first_used_at.getTime() <= CODE_REUSE_WINDOW_MS;
    return sameAgent && inWindow ? "reconnect" : "strike";
  }
  return code.expires_at <= now ? "expired" : "pair";
}

/** The refusal of a code whose project or organization cannot take agents, checked in this order. */
export function targetRefusal(
  project: Pick<Selectable<ProjectsTable>, "name" | "status">,
  org: Pick<Selectable<OrganizationsTable>, "status"> | undefined,
): DomainError | null {
  if (!org) return new DomainError("not_found", "ORG_NOT_FOUND", "The code's organization no longer exists");
  if (project.status !== "active") {
    return new DomainError("forbidden", "PROJECT_INACTIVE", `Project "${project.name}" is ${project.status}`);
  }
  if (org.status !== "active") {
    return new DomainError("forbidden", "ORG_SUSPENDED", "The organization is suspended");
  }
  return null;
}

const passwordRecovery = (code: string, message: string) =>
  recovery("RETRY_WITH_PASSWORD", "POST /pair/connect", message, { code, password: "<project password>" });

export function passwordRequired(code: string): DomainError {
  return new DomainError("unauthenticated", "PASSWORD_REQUIRED", "This project needs its pairing password", {
    recovery: passwordRecovery(code, "Send the project's pairing password"),
  });
}

export function wrongPassword(code: string): DomainError {
  return new DomainError(
    "forbidden",
    "INVALID_PASSWORD",
    "Wrong pairing password; the code was not consumed",
    {
      recovery: passwordRecovery(code, "Check the password and retry"),
    },
  );
}

/** The profile fields of POST /pair/connect's body. */
export type ProfileInput = Pick<
  z.output<typeof ConnectBody>,
  "platform" | "model" | "company" | "capabilities" | "partnerManagedSessionId"
>;

/**
 * PAIR-014/015/043: what pairing records on the agent. A code minted for a platform and model
 * (orchestrator or admin) fixes them; otherwise the agent says, and the company is inferred from the platform.
 */
export function agentProfile(
  code: Pick<CodeRow, "platform" | "model">,
  input: ProfileInput,
  agent: Pick<AgentRow, "platform" | "model" | "company">,
) {
  const platform = code.platform ?? input.platform ?? agent.platform;
  return {
    platform,
    model: code.model ?? input.model ?? agent.model,
    company: input.company ?? inferCompany(platform) ?? agent.company,
    ...(input.capabilities ? { capabilities: toJson(input.capabilities) } : {}),
    ...(input.partnerManagedSessionId ? { partner_managed_session_id: input.partnerManagedSessionId } : {}),
  };
}
