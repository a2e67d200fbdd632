import type { z } from "zod";
import type { Remediation as RemediationSchema } from "@/contracts/handoff.ts";
import { entriesOverlap, mentionsFile, parseEntry } from "@/shared/file-path.ts";

export interface EntryView {
  type: string;
  content: string;
  fileRef: string | null;
}

export interface ArtifactView {
  type: string;
  url: string;
  status?: string;
  metadata?: Record<string, unknown> | undefined;
}

/** A fix for a handoff warning, as POST /handoff shows it. */
export type Remediation = z.output<typeof RemediationSchema>;

export interface WarningInput {
  /** Null for a handoff without a ticket. */
  ticket: { verificationCommand: string | null } | null;
  /** Ledger entries of the session and of the ticket. */
  entries: EntryView[];
  /** Files released by this handoff. */
  releasedFiles: string[];
  /** Pull-request artifacts: supplied now, and stored on the ticket. */
  artifacts: ArtifactView[];
}

export interface WarningResult {
  warnings: string[];
  remediations: Remediation[];
}

/** True when the PR artifact carries an unresolved "changes requested" review (design: HAND-049). */
export function isReviewBlocked(artifact: ArtifactView): boolean {
  if (artifact.type !== "pull_request") return false;
  if (artifact.status === "changes_requested") return true;
  const decision = artifact.metadata?.reviewDecision ?? artifact.metadata?.reviewState;
  return typeof decision === "string" && decision.toLowerCase() === "changes_requested";
}

/**
 * Non-blocking findings of a handoff (spec: warnings never block).
 * - no TESTED (or VERIFIED) entry on the ticket or in the session;
 * - TESTED entries none of which mentions the ticket's verificationCommand (unless it is `n/a`);
 * - a pull request whose review requested changes (unresolved PR review block);
 * - unlogged work: a released file that no ledger entry of the session or ticket mentions
 *   (by fileRef or in its content, in any letter case: paths that differ only in case are one file).
 */
export function handoffWarnings(input: WarningInput): WarningResult {
  const warnings: string[] = [];
  const remediations: Remediation[] = [];
  if (input.ticket) {
    const tested = input.entries.filter((e) => e.type === "TESTED" || e.type === "VERIFIED");
    if (tested.length === 0) {
      warnings.push("No TESTED entry was logged for this ticket: reviewers have no test evidence");
      remediations.push({
        action: "LOG_TESTED_ENTRY",
        endpoint: "POST /ledger",
        message: "Log a TESTED entry with the command you ran and its outcome",
      });
    } else {
      const command = input.ticket.verificationCommand?.trim() ?? "";
      if (command !== "" && command.toLowerCase() !== "n/a") {
        const needle = command.toLowerCase();
        const mentioned = input.entries.some((e) =>
          e.type === "TESTED" && e.content.toLowerCase().includes(needle)
        );
        if (!mentioned) {
          warnings.push(`No TESTED entry mentions the ticket's verificationCommand "${command}"`);
          remediations.push({
            action: "LOG_TESTED_ENTRY",
            endpoint: "POST /ledger",
            message: `Run "${command}" and log a TESTED entry quoting it with the result`,
          });
        }
      }
    }
  }
  const blocked = input.artifacts.filter(isReviewBlocked);
  if (blocked.length > 0) {
    warnings.push(
      `Unresolved PR review block: changes were requested on ${blocked.map((a) => a.url).join(", ")}`,
    );
    remediations.push({
      action: "RESOLVE_PR_REVIEW",
      endpoint: "POST /ledger",
      message: "Address the requested changes, then log a CHANGED entry describing the fix",
    });
  }
  const unlogged = input.releasedFiles.filter((file) => !input.entries.some((e) => logs(e, file)));
  if (unlogged.length > 0) {
    warnings.push(`Unlogged work: no ledger entry mentions ${unlogged.join(", ")}`);
    remediations.push({
      action: "LOG_CHANGED_ENTRY",
      endpoint: "POST /ledger",
      message: "Log a CHANGED entry with fileRef for each file you changed",
    });
  }
  return { warnings, remediations };
}

/**
 * True when a ledger entry logs work on a released claim entry: its fileRef overlaps the entry (the file,
 * a file under a released directory, the file of a released symbol; any letter case), or its text names
 * the entry's path (a directory `src/auth/**` is named as `src/auth`, a symbol by its file).
 */
function logs(e: EntryView, released: string): boolean {
  if (e.fileRef !== null && entriesOverlap(e.fileRef, released)) return true;
  return mentionsFile(e.content, parseEntry(released).path);
}
