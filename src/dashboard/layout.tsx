import type { Child, FC } from "hono/jsx";
import type { DashboardMember } from "@/domain/dashboard/access.ts";
import { DEFAULT_COLUMNS } from "@/domain/core/workflow.ts";
import { APP_CSS_PATH } from "./style.ts";

export type Section = "board" | "claims" | "agents" | "threads" | "sprints" | "ledger" | "brief" | "pair";

const SECTIONS: { id: Section; label: string; path: string }[] = [
  { id: "board", label: "Board", path: "" },
  { id: "claims", label: "Claims", path: "/claims" },
  { id: "agents", label: "Agents", path: "/agents" },
  { id: "threads", label: "Threads", path: "/threads" },
  { id: "sprints", label: "Sprints", path: "/sprints" },
  { id: "ledger", label: "Ledger", path: "/ledger" },
  { id: "brief", label: "Brief", path: "/brief" },
];

export interface PageFrame {
  title: string;
  user?: { email: string } | undefined;
  csrf?: string | undefined;
  member?: DashboardMember | undefined;
  section?: Section | undefined;
  /** Events stream URL: the page refreshes its live region when an event arrives. */
  events?: string | undefined;
}

/** The whole document: header with sign-out, project navigation, main content. */
export const Layout: FC<{ frame: PageFrame; children?: Child }> = ({ frame, children }) => {
  const base = frame.member ? `/projects/${frame.member.project.id}` : "";
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{frame.member ? `${frame.title} · ${frame.member.project.name}` : frame.title}</title>
        <link rel="stylesheet" href={APP_CSS_PATH} />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="icon" href="/favicon.ico" sizes="16x16" />
        <script src="/dashboard.js" defer></script>
      </head>
      <body data-events={frame.events}>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/">
            <img src="/favicon.svg" alt="" width="20" height="20" />
            Coordination dashboard
          </a>
          {frame.member && (
            <span>
              {frame.member.project.name} <span class="meta">({frame.member.role})</span>
            </span>
          )}
          {frame.user && (
            <form method="post" action="/signout">
              <span class="meta">{frame.user.email}</span>{" "}
              <input type="hidden" name="csrf_token" value={frame.csrf} />
              <button type="submit">Sign out</button>
            </form>
          )}
        </header>
        {frame.member && (
          <nav class="project" aria-label="Project">
            <ul>
              {SECTIONS.map((s) => (
                <li>
                  <a href={base + s.path} aria-current={frame.section === s.id ? "page" : undefined}>
                    {s.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <main id="main">{children}</main>
      </body>
    </html>
  );
};

/** Hidden CSRF field of every form. */
export const Csrf: FC<{ token: string }> = ({ token }) => (
  <input type="hidden" name="csrf_token" value={token} />
);

export function ago(at: Date | null, now: Date): string {
  if (!at) return "never";
  const s = Math.round((now.getTime() - at.getTime()) / 1000);
  if (s < 0) return `in ${fmtSpan(-s)}`;
  return `${fmtSpan(s)} ago`;
}

function fmtSpan(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** A relative time ("5m ago") with the exact time on hover and in `datetime`. */
export const Time: FC<{ at: Date | null; now: Date }> = ({ at, now }) =>
  at ? <time datetime={at.toISOString()} title={exact(at)}>{ago(at, now)}</time> : <span>never</span>;

/** "2026-11-28 01:02:03 UTC": the exact time shown on hover. */
export function exact(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Labels in words of the board's statuses, derived from the status list ("in_progress" -> "In progress"). */
export const STATUS_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  DEFAULT_COLUMNS.map((s) => [s, humanize(s)]),
);

function humanize(s: string): string {
  const words = s.replace(/[_-]+/g, " ").trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : s;
}

/** The label of any status, the default board's or a custom column's. */
export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? humanize(status);
}

/** A status as a coloured badge with its label in words (the raw value stays in `data-status`). */
export const StatusBadge: FC<{ status: string }> = ({ status }) => (
  <span class={`badge status st-${status}`} data-status={status}>{statusLabel(status)}</span>
);
