import type { FC } from "hono/jsx";
import { type DashboardMember, may } from "@/domain/dashboard/access.ts";
import type { AgentRow } from "@/domain/dashboard/agents.ts";
import type { ClaimRow } from "@/domain/dashboard/claims.ts";
import { type FeedEntry, type LedgerFeedFilters, showsSystemContext } from "@/domain/dashboard/ledger.ts";
import type { SprintDetail, SprintSummary } from "@/domain/dashboard/sprints.ts";
import type { ClaimsMap, HotFile } from "@/domain/dashboard/claims-map.ts";
import type { ActivityTimeline } from "@/domain/dashboard/activity.ts";
import { ActivityTimelinePicture, Burndown, ClaimsMapPicture, HotFiles } from "./pictures.tsx";
import type { ThreadSummary } from "@/domain/dashboard/threads.ts";
import type { ComplianceCheck } from "@/domain/context/assemble.ts";
import { PAIRABLE_ROLES } from "@/domain/dashboard/actions.ts";
import { LEDGER_TYPES } from "@/db/tables/work.ts";
import { BRIEF_FIELD_ORDER } from "@/domain/brief/content.ts";
import { Csrf, StatusBadge, statusLabel, Time } from "./layout.tsx";
import { LedgerList } from "./pages.tsx";

const baseOf = (m: DashboardMember) => `/projects/${m.project.id}`;

export const Claims: FC<{
  member: DashboardMember;
  claims: ClaimRow[];
  map: ClaimsMap;
  hot: { mostClaimed: HotFile[]; mostContended: HotFile[] };
  hotDays: number;
  csrf: string;
  now: Date;
}> = (
  { member, claims, map, hot, hotDays, csrf, now },
) => (
  <section aria-labelledby="claims-title">
    <h1 id="claims-title">Live claims</h1>
    <div data-live>
      <h2>Claims map</h2>
      <ClaimsMapPicture map={map} />
      <h2>Claimed files</h2>
      {claims.length === 0 ? <p>No file is claimed.</p> : (
        <div class="table-wrap" tabindex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Files</th>
                <th scope="col">Held by</th>
                <th scope="col">Ticket</th>
                <th scope="col">Since</th>
                <th scope="col">Expires</th>
                <th scope="col">State</th>
                {may(member.role, "release_claim") && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {claims.map((c) => (
                <tr data-claim={c.id}>
                  <td>
                    {c.files.map((f) => (
                      <div>
                        <code>{f}</code>
                      </div>
                    ))}
                  </td>
                  <td>{c.holder}</td>
                  <td>
                    {c.ticketKey
                      ? <a href={`${baseOf(member)}/tickets/${c.ticketKey}`}>{c.ticketKey}</a>
                      : "—"}
                  </td>
                  <td>
                    <Time at={c.claimedAt} now={now} />
                  </td>
                  <td>
                    <Time at={c.expiresAt} now={now} />
                  </td>
                  <td>
                    {c.expired && <span class="badge expired">expired</span>}
                    {!c.expired && c.stale && <span class="badge stale">stale</span>}
                    {c.expiringSoon && <span class="badge soon">expiring soon</span>}
                    {!c.stale && !c.expiringSoon && <span class="badge online">active</span>}
                  </td>
                  {may(member.role, "release_claim") && (
                    <td>
                      {c.stale && (
                        <form method="post" action={`${baseOf(member)}/claims/${c.id}/release`}>
                          <Csrf token={csrf} />
                          <button type="submit" aria-label={`Release stale claim on ${c.files.join(", ")}`}>
                            Release
                          </button>
                        </form>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <HotFiles hot={hot} days={hotDays} />
    </div>
  </section>
);

/**
 * The compliance score (GET /context's `complianceScore`) of an agent or sub-agent, with what it counts:
 * each habit that applies now, kept or not, and how to raise the score.
 */
const Compliance: FC<{ score: number | null; checks: ComplianceCheck[] }> = ({ score, checks }) =>
  score === null ? null : (
    <details class="explain" data-compliance={score}>
      <summary>{`compliance ${score}%`}</summary>
      <p>
        The share of the habits that apply now that this identity keeps ({checks.filter((c) => c.kept).length}
        {" "}
        of {checks.length}), graded as GET /context grades its caller:
      </p>
      <ul>
        {checks.map((c) => (
          <li data-kept={c.kept ? "yes" : "no"}>
            {c.kept ? "Kept: " : "Not kept: "}
            {c.habit}
            {!c.kept && <>{" — to raise the score: "}{c.fix}</>}
          </li>
        ))}
      </ul>
    </details>
  );

export const Agents: FC<{
  member: DashboardMember;
  agents: AgentRow[];
  timeline: ActivityTimeline;
  csrf: string;
  now: Date;
}> = (
  { member, agents, timeline, csrf, now },
) => (
  <section aria-labelledby="agents-title">
    <h1 id="agents-title">Agents and sessions</h1>
    {may(member.role, "pair") && (
      <p>
        <a href={`${baseOf(member)}/pair`}>Pair a new agent</a>
      </p>
    )}
    <div data-live>
      <h2 id="timeline-title">Activity timeline</h2>
      <ActivityTimelinePicture timeline={timeline} />
      <h2>Agents</h2>
      {agents.length === 0 ? <p>No agent has paired yet.</p> : (
        <ul class="cards">
          {agents.map((a) => (
            <li class="card" data-agent={a.name}>
              <strong>{a.name}</strong> <span class="badge">{a.role}</span>{" "}
              {a.mine && <span class="badge">you</span>} {a.online
                ? <span class="badge online">online</span>
                : <span class="badge">{a.status === "active" ? "idle" : a.status}</span>}
              <div class="meta">
                {a.platform ?? "unknown platform"}
                {a.model && <>{" · "}{a.model}</>} · last seen <Time at={a.lastSeenAt} now={now} />
                {a.currentTicket && (
                  <>
                    {" · working on "}
                    <a href={`${baseOf(member)}/tickets/${a.currentTicket}`}>{a.currentTicket}</a>
                  </>
                )}
                <Compliance score={a.complianceScore} checks={a.complianceChecks} />
              </div>
              {a.sessions.length > 0 && (
                <div class="meta">
                  Open sessions: {a.sessions.map((s) => (
                    <span class="badge">
                      {s.subAgentName ? `${s.subAgentName}: ` : ""}
                      {s.status}, since <Time at={s.startedAt} now={now} />
                    </span>
                  ))}
                </div>
              )}
              {a.subAgents.length > 0 && (
                <ul aria-label={`Sub-agents of ${a.name}`}>
                  {a.subAgents.map((s) => (
                    <li>
                      {a.name}/{s.name} <span class="badge">{s.role}</span>{" "}
                      {s.online && <span class="badge online">online</span>}
                      {s.currentTicket && <span class="meta">{` · ${s.currentTicket}`}</span>}
                      <span class="meta">
                        <Compliance score={s.complianceScore} checks={s.complianceChecks} />
                      </span>
                    </li>
                  ))}
                </ul>
              )}
              {may(member.role, "revoke") && a.status !== "revoked" && !a.mine && (
                <form method="post" action={`${baseOf(member)}/agents/${a.id}/revoke`}>
                  <Csrf token={csrf} />
                  <button type="submit" aria-label={`Revoke ${a.name}`}>Revoke</button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  </section>
);

export const Threads: FC<
  { member: DashboardMember; threads: ThreadSummary[]; page: number; hasMore: boolean; now: Date }
> = ({ member, threads, page, hasMore, now }) => (
  <section aria-labelledby="threads-title">
    <h1 id="threads-title">Threads</h1>
    <div data-live>
      {threads.length === 0 ? <p>No threads yet.</p> : (
        <ul>
          {threads.map((t) => (
            <li>
              <a href={`${baseOf(member)}/threads/${t.id}`}>{t.intent}</a>{" "}
              <span class="badge">{statusLabel(t.status)}</span>
              <span class="meta">
                {" "}
                {t.author ?? "service"}
                {t.ticketKey && <>{" · "}{t.ticketKey}</>} · last message{" "}
                <Time at={t.lastMessageAt} now={now} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <nav class="pager" aria-label="Thread pages">
        {page > 0 && <a href={`?page=${page - 1}`}>Previous page</a>}
        {hasMore && <a href={`?page=${page + 1}`}>Next page</a>}
      </nav>
    </div>
  </section>
);

export const Thread: FC<{
  thread: {
    intent: string;
    status: string;
    outcome: string | null;
    messages: { id: string; author: string | null; content: string; createdAt: Date }[];
  };
  now: Date;
}> = ({ thread, now }) => (
  <article aria-labelledby="thread-title">
    <h1 id="thread-title">{thread.intent}</h1>
    <p>
      <span class="badge">{thread.status}</span> {thread.outcome && <>Outcome: {thread.outcome}</>}
    </p>
    <div data-live>
      <ol class="ledger">
        {thread.messages.map((m) => (
          <li>
            <span class="meta">
              {m.author ?? "service"} · <Time at={m.createdAt} now={now} />
            </span>
            <div class="pre-wrap">{m.content}</div>
          </li>
        ))}
      </ol>
    </div>
  </article>
);

export const Sprints: FC<{ member: DashboardMember; sprints: SprintSummary[] }> = ({ member, sprints }) => (
  <section aria-labelledby="sprints-title">
    <h1 id="sprints-title">Sprints</h1>
    {sprints.length === 0 ? <p>No sprints yet.</p> : (
      <div class="table-wrap" tabindex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Sprint</th>
              <th scope="col">Status</th>
              <th scope="col">Dates</th>
              <th scope="col">Done</th>
            </tr>
          </thead>
          <tbody>
            {sprints.map((s) => (
              <tr>
                <td>
                  <a href={`${baseOf(member)}/sprints/${s.id}`}>#{s.number} {s.name}</a>
                </td>
                <td>{statusLabel(s.status)}</td>
                <td>{s.startDate ?? "?"} – {s.endDate ?? "?"}</td>
                <td>{s.done} / {s.total}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </section>
);

export const Sprint: FC<{
  member: DashboardMember;
  sprint: SprintDetail;
}> = ({ member, sprint }) => (
  <article aria-labelledby="sprint-title">
    <h1 id="sprint-title">Sprint #{sprint.number} {sprint.name}</h1>
    <p>
      <span class="badge">{statusLabel(sprint.status)}</span> {sprint.startDate ?? "?"} –{" "}
      {sprint.endDate ?? "?"}
      {sprint.goal && <>{" · "}Goal: {sprint.goal}</>}
    </p>
    <div data-live>
      <h2>Burndown</h2>
      <Burndown points={sprint.burndown} />
      <h2>Tickets</h2>
      <ul>
        {sprint.tickets.map((t) => (
          <li>
            <a href={`${baseOf(member)}/tickets/${t.key}`}>{t.key}</a> {t.title}{" "}
            <StatusBadge status={t.status} />
            {t.assigneeName && <span class="meta">@{t.assigneeName}</span>}
          </li>
        ))}
      </ul>
    </div>
  </article>
);

export const Ledger: FC<{
  member: DashboardMember;
  entries: FeedEntry[];
  filters: LedgerFeedFilters;
  agents: { id: string; name: string }[];
  nextBefore: string | null;
  now: Date;
}> = ({ member, entries, filters, agents, nextBefore, now }) => {
  const base = baseOf(member);
  const q = new URLSearchParams();
  if (filters.type) q.set("type", filters.type);
  if (filters.agentId) q.set("agent", filters.agentId);
  if (filters.ticket) q.set("ticket", filters.ticket);
  if (filters.system === false) q.set("system", "0");
  if (filters.context) q.set("context", "1");
  return (
    <section aria-labelledby="ledger-title">
      <h1 id="ledger-title">Ledger</h1>
      <form
        class="filters"
        method="get"
        action={`${base}/ledger`}
        role="search"
        aria-label="Filter the ledger"
      >
        <div>
          <label for="l-type">Type</label>
          <select id="l-type" name="type">
            <option value="">All types</option>
            {LEDGER_TYPES.map((t) => <option key={t} value={t} selected={filters.type === t}>{t}</option>)}
          </select>
        </div>
        <div>
          <label for="l-agent">Agent</label>
          <select id="l-agent" name="agent">
            <option value="">All agents</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id} selected={filters.agentId === a.id}>{a.name}</option>
            ))}
          </select>
        </div>
        <div>
          <label for="l-ticket">Ticket</label>
          <input
            id="l-ticket"
            name="ticket"
            type="text"
            value={filters.ticket ?? ""}
            placeholder={`${member.project.prefix}-1`}
          />
        </div>
        <div>
          <label for="l-system">Service entries</label>
          <select id="l-system" name="system">
            <option value="1">Shown</option>
            <option value="0" selected={filters.system === false}>Hidden</option>
          </select>
        </div>
        <div>
          <label for="l-context">Service CONTEXT notes</label>
          <select id="l-context" name="context">
            <option value="0">Hidden</option>
            <option value="1" selected={filters.context === true}>Shown</option>
          </select>
        </div>
        <button type="submit">Filter</button>
      </form>
      {!showsSystemContext(filters) && (
        <p class="meta" data-context-hidden>
          The service's CONTEXT notes are hidden.{" "}
          <a href={`${base}/ledger?${q}${q.size ? "&" : ""}context=1`}>Show them</a>
        </p>
      )}
      <div data-live={filters.before ? undefined : ""}>
        {entries.length === 0 ? <p>No entries.</p> : <LedgerList entries={entries} base={base} now={now} />}
      </div>
      <nav class="pager" aria-label="Ledger pages">
        {filters.before && <a href={`${base}/ledger?${q}`}>Newest</a>}
        {nextBefore && (
          <a href={`${base}/ledger?${q}${q.size ? "&" : ""}before=${nextBefore}`}>Older entries</a>
        )}
      </nav>
    </section>
  );
};

export const Brief: FC<
  { member: DashboardMember; content: Record<string, unknown>; version: number; csrf: string }
> = ({ member, content, version, csrf }) => {
  const text = (
    v: unknown,
  ) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));
  const editable = may(member.role, "brief");
  return (
    <section aria-labelledby="brief-title">
      <h1 id="brief-title">Project brief</h1>
      <p class="meta">Version {version}</p>
      <form method="post" action={`${baseOf(member)}/brief`}>
        <Csrf token={csrf} />
        <input type="hidden" name="expectedVersion" value={String(version)} />
        {BRIEF_FIELD_ORDER.filter((f) => f !== "custom").map((f) => (
          <div>
            <label for={`brief-${f}`}>{f[0]!.toUpperCase() + f.slice(1)}</label>
            <textarea id={`brief-${f}`} name={f} readonly={!editable}>{text(content[f])}</textarea>
          </div>
        ))}
        {editable && <button type="submit">Save brief</button>}
      </form>
    </section>
  );
};

export const Pair: FC<{ member: DashboardMember; csrf: string }> = ({ member, csrf }) => (
  <section aria-labelledby="pair-title">
    <h1 id="pair-title">Pair a new agent</h1>
    <p>A pairing code works once, within 5 minutes.</p>
    <form method="post" action={`${baseOf(member)}/pair`}>
      <Csrf token={csrf} />
      <label for="pair-name">Agent name</label>
      <input id="pair-name" name="agentName" type="text" maxlength={100} />
      <label for="pair-role">Role</label>
      <select id="pair-role" name="role">
        {PAIRABLE_ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
      </select>
      <p>
        <button type="submit">Mint pairing code</button>
      </p>
    </form>
  </section>
);

export const PairResult: FC<{ member: DashboardMember; code: string; expiresAt: string; command: string }> = (
  { member, code, expiresAt, command },
) => (
  <section aria-labelledby="code-title" class="once">
    <h1 id="code-title">Pairing code</h1>
    <p>
      This code is shown once. It works once, until <time datetime={expiresAt}>{expiresAt}</time>.
    </p>
    <p>
      Code: <strong id="pairing-code" class="code-big">{code}</strong>
    </p>
    <h2 id="connect-label">Connect command</h2>
    <pre class="cmd" id="connect-command" aria-labelledby="connect-label">{command}</pre>
    <button type="button" data-copy="connect-command">Copy command</button>
    <p>
      <a href={`${baseOf(member)}/agents`}>Back to agents</a>
    </p>
  </section>
);
