/**
 * (design) The known ledger labels. Lower-case, matched exactly; anything else answers 422 INVALID
 * with the list in `details.validLabels`.
 */
export const LEDGER_LABELS = [
  "api",
  "breaking-change",
  "bug",
  "build",
  "ci",
  "config",
  "database",
  "dependency",
  "docs",
  "flaky",
  "infra",
  "migration",
  "needs-review",
  "performance",
  "question",
  "refactor",
  "regression",
  "security",
  "tech-debt",
  "test",
  "ui",
] as const;

const KNOWN: ReadonlySet<string> = new Set(LEDGER_LABELS);

export function unknownLabels(labels: string[]): string[] {
  return labels.filter((l) => !KNOWN.has(l));
}
