/**
 * The types of a handoff shared by its verb (handoff.ts), its plan (plan.ts) and its writes (write.ts),
 * in a file of their own so that those three import each other one way only (issue 23 point 1).
 */
import type { ArtifactType } from "@/shared/vocabulary.ts";
import type { ReviewMode } from "@/domain/core/review-mode.ts";
import type { NextAction } from "./next-action.ts";
import type { Remediation } from "./warnings.ts";

export interface HandoffArtifact {
  type: ArtifactType;
  url: string;
  ref?: string | undefined;
  title?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

export interface HandoffInput {
  moduleName: string;
  summary: string;
  sessionId: string;
  ticketId?: string | undefined;
  testResults?: string | undefined;
  artifacts?: HandoffArtifact[] | undefined;
  diffStat?: string | undefined;
  toolResults?: unknown[] | undefined;
}

export interface HandoffResult {
  ok: true;
  modulesDone: number;
  duplicate?: true;
  ticketAdvanced?: boolean;
  nextAction?: NextAction;
  review?: {
    required: boolean;
    mode: ReviewMode;
    qaRunId: string | null;
    criteriaCount: number;
    qaTestCount: number;
    ticketStatus: string;
  };
  warnings?: string[];
  remediations?: Remediation[];
  suggestions?: string[];
  pullRequest?: { url: string; ref: string | null; title: string | null };
}
