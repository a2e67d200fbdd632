import { type Actor, actorDisplayName } from "@/domain/core/actor.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import type { HandoffArtifact, HandoffInput, HandoffResult } from "./types.ts";
import { handoffTarget, isTrivialChange, type ReviewMode } from "@/domain/core/review-mode.ts";
import type { ArtifactView, WarningResult } from "./warnings.ts";
import type { NextAction } from "./next-action.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";

/** Where the handoff moves its ticket; null for a handoff without a ticket. */
export type HandoffTarget = { status: string; reviewRequired: boolean } | null;

/**
 * The pull requests the warnings judge: those the handoff sends, then those stored on the ticket. A stored
 * PR the handoff sends again is judged by what the handoff sends (it replaces it).
 */
export function pullRequestViews(
  artifacts: HandoffArtifact[],
  stored: { type: string; url: string; status: string; metadata: Record<string, unknown> }[],
): ArtifactView[] {
  return [
    ...artifacts.map((a) => ({ type: a.type, url: a.url, metadata: a.metadata })),
    ...stored.filter((a) => !artifacts.some((b) => b.type === a.type && b.url === a.url))
      .map((a) => ({ type: a.type, url: a.url, status: a.status, metadata: a.metadata })),
  ];
}

/** The files the change touched: the claimed files, else the ticket's expected files. */
export function changedFiles(touched: string[], ticket: Pick<TicketRow, "expected_files">): string[] {
  return touched.length > 0 ? touched : ticket.expected_files;
}

/** HAND-008..016: the one status the ticket moves to, deciding triviality only when `auto` asks. */
export function targetOf(
  project: { review_mode: ReviewMode; settings: ProjectSettings },
  ticket: TicketRow | null,
  touched: string[],
  diffStat: string | undefined,
): HandoffTarget {
  if (!ticket) return null;
  return handoffTarget(project.review_mode, project.settings, ticket.status, () =>
    isTrivialChange({
      riskClass: ticket.risk_class,
      criteria: ticket.acceptance_criteria,
      files: changedFiles(touched, ticket),
      diffStat,
    }));
}

/** The review handoff stored on a ticket that goes to review; null when review is not required. */
export function reviewHandoffOf(
  ticket: TicketRow,
  target: NonNullable<HandoffTarget>,
  input: Pick<HandoffInput, "summary">,
  touched: string[],
  firstPr: HandoffArtifact | undefined,
): Record<string, unknown> | null {
  if (!target.reviewRequired) return null;
  return {
    summary: input.summary,
    changedFiles: changedFiles(touched, ticket),
    branch: ticket.branch,
    ...(firstPr ? { prUrl: firstPr.url } : {}),
  };
}

/** HAND-037: the STATUS entry's text for the files the handoff released. */
export function releaseContent(files: string[]): string {
  return files.length > 0
    ? `Handoff released ${files.length} file(s): ${files.join(", ")}`.slice(0, 2000)
    : "Handoff released no files";
}

/** HAND-038: the DONE entry's content and payload. */
export function doneEntry(
  input: Pick<HandoffInput, "moduleName" | "summary" | "testResults">,
  artifacts: HandoffArtifact[],
  target: HandoffTarget,
): { content: string; payload: Record<string, unknown> } {
  return {
    content: `${input.moduleName}: ${input.summary}`.slice(0, 2000),
    payload: {
      kind: "handoff",
      moduleName: input.moduleName,
      summary: input.summary,
      ...(input.testResults !== undefined ? { testResults: input.testResults } : {}),
      artifacts,
      ticketStatus: target?.status ?? null,
    },
  };
}

/** The AGENT_COMPLETED entry's text: `agent completed module`, or `agent/sub completed module`. */
export function completedContent(
  actor: Pick<Actor, "agentName" | "subAgentName">,
  moduleName: string,
): string {
  const who = actorDisplayName(actor);
  return `${who} completed ${moduleName}`;
}

/** HAND-045: hints that never block, given only when they apply. */
export function handoffSuggestions(
  ticket: Pick<TicketRow, "no_artifact"> | null,
  input: Pick<HandoffInput, "testResults">,
  artifacts: HandoffArtifact[],
): string[] {
  const suggestions: string[] = [];
  if (ticket && artifacts.length === 0 && !ticket.no_artifact) {
    suggestions.push(
      "Attach the pull request, branch or commit as an artifact so reviewers can find the change",
    );
  }
  if (ticket && input.testResults === undefined) {
    suggestions.push("Send testResults with the handoff: a one-line outcome of your verification run");
  }
  return suggestions;
}

export interface Written {
  qa: { id: string; tests: number; criteria: number } | null;
  advanced: boolean;
  modulesDone: number;
  nextAction: NextAction;
}

/** HAND-042, HAND-044, HAND-045: the response of a handoff that wrote. */
export function handoffResponse(p: {
  ticket: TicketRow | null;
  target: HandoffTarget;
  mode: ReviewMode;
  written: Written;
  warnings: WarningResult;
  suggestions: string[];
  firstPr: HandoffArtifact | undefined;
}): HandoffResult {
  const { ticket, target, written, warnings, firstPr } = p;
  return {
    ok: true,
    modulesDone: written.modulesDone,
    ticketAdvanced: written.advanced,
    nextAction: written.nextAction,
    ...(ticket && target?.reviewRequired
      ? {
        review: {
          required: true,
          mode: p.mode,
          qaRunId: written.qa?.id ?? null,
          criteriaCount: ticket.acceptance_criteria.length,
          qaTestCount: written.qa?.tests ?? 0,
          ticketStatus: target.status,
        },
      }
      : {}),
    ...(warnings.warnings.length > 0
      ? { warnings: warnings.warnings, remediations: warnings.remediations }
      : {}),
    ...(p.suggestions.length > 0 ? { suggestions: p.suggestions } : {}),
    ...(firstPr
      ? { pullRequest: { url: firstPr.url, ref: firstPr.ref ?? null, title: firstPr.title ?? null } }
      : {}),
  };
}
