import type { Child, FC } from "hono/jsx";
import type { DashboardMember } from "@/domain/dashboard/access.ts";

/** The dashboard's one stylesheet: readable from phone width up, no external assets. */
const STYLE = `
:root { color-scheme: light; --fg:#1a1a1a; --muted:#5a5a5a; --line:#d6d6d6; --bg2:#f5f5f7; --accent:#1f4fbf; }
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; color: var(--fg); line-height: 1.4; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus, textarea:focus { outline: 3px solid #ffbf47; outline-offset: 1px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 0.5rem; top: 0.5rem; background: #fff; padding: 0.3rem; }
header.top { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; padding: 0.6rem 1rem; background: var(--bg2); border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
header.top form { margin-left: auto; }
nav.project ul { display: flex; flex-wrap: wrap; gap: 0.2rem 0.9rem; list-style: none; margin: 0; padding: 0.5rem 1rem; border-bottom: 1px solid var(--line); }
nav.project a[aria-current=page] { font-weight: 700; color: var(--fg); }
main { padding: 1rem; max-width: 100rem; margin: 0 auto; }
h1 { font-size: 1.4rem; margin: 0.2rem 0 0.8rem; } h2 { font-size: 1.15rem; margin: 1.2rem 0 0.5rem; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.table-wrap { overflow-x: auto; }
.board { display: grid; grid-auto-flow: column; grid-auto-columns: minmax(15rem, 1fr); gap: 0.8rem; overflow-x: auto; padding-bottom: 0.5rem; }
.column { background: var(--bg2); border-radius: 6px; padding: 0.5rem; min-width: 0; }
.column h2 { font-size: 1rem; margin: 0 0 0.4rem; }
.cards { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.4rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 5px; padding: 0.45rem; }
.card .key { font-family: ui-monospace, monospace; font-size: 0.85rem; }
.meta { color: var(--muted); font-size: 0.85rem; }
.badge { display: inline-block; border-radius: 3px; padding: 0 0.35rem; font-size: 0.8rem; border: 1px solid var(--line); background: #fff; }
.badge.stale, .badge.expired { background: #fde2e1; border-color: #e0a09c; color: #7a1510; }
.badge.soon { background: #fff1cc; border-color: #e0c070; color: #5c4400; }
.badge.review { background: #e3ecff; border-color: #9db4ea; }
.badge.online { background: #dff5e3; border-color: #8cc79a; color: #17511f; }
.ledger { list-style: none; padding: 0; margin: 0; }
.ledger li { border-left: 4px solid var(--line); padding: 0.3rem 0.6rem; margin: 0.35rem 0; background: #fff; }
.type { font-family: ui-monospace, monospace; font-weight: 700; font-size: 0.8rem; padding: 0 0.3rem; border-radius: 3px; background: var(--bg2); }
.t-TESTED { border-left-color: #2e8540 !important; } .t-TESTED .type { background: #dff5e3; color: #17511f; }
.t-BLOCKED, .t-ALERT, .t-ISSUE { border-left-color: #c0392b !important; } .t-BLOCKED .type, .t-ALERT .type, .t-ISSUE .type { background: #fde2e1; color: #7a1510; }
.t-DECISION { border-left-color: #8e44ad !important; } .t-DONE, .t-VERIFIED { border-left-color: #1f4fbf !important; }
.evidence { background: #f0faf2; border: 1px solid #8cc79a; padding: 0.3rem 0.5rem; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 0.85rem; margin: 0.3rem 0 0; }
form.inline { display: inline; }
form.filters { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: end; margin-bottom: 0.8rem; }
label { font-weight: 600; display: block; font-size: 0.9rem; }
input[type=text], input[type=email], input[type=password], select, textarea { padding: 0.35rem; font: inherit; max-width: 100%; }
textarea { width: 100%; min-height: 4rem; }
button { font: inherit; padding: 0.3rem 0.8rem; cursor: pointer; }
.error { color: #a00; font-weight: 600; }
.once { border: 2px solid #2e8540; padding: 0.8rem; background: #f0faf2; }
pre.cmd { white-space: pre-wrap; word-break: break-all; background: var(--bg2); padding: 0.6rem; }
.pager { display: flex; gap: 1rem; margin: 0.8rem 0; }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; } dl.fields dt { font-weight: 600; } dl.fields dd { margin: 0; }
.signin { max-width: 24rem; margin: 3rem auto; }
.signin input { width: 100%; margin-bottom: 0.6rem; }
svg.burndown { max-width: 40rem; width: 100%; height: auto; border: 1px solid var(--line); }
@media (max-width: 40rem) { main { padding: 0.6rem; } dl.fields { grid-template-columns: 1fr; } .board { grid-auto-flow: row; grid-auto-columns: auto; } th, td { padding: 0.3rem; } }
`;

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
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
        <script src="/dashboard.js" defer></script>
      </head>
      <body data-events={frame.events}>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/">Coordination dashboard</a>
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

export const Time: FC<{ at: Date | null; now: Date }> = ({ at, now }) =>
  at ? <time datetime={at.toISOString()} title={at.toISOString()}>{ago(at, now)}</time> : <span>never</span>;
