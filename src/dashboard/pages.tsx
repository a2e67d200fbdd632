import type { FC } from "hono/jsx";
import type { DashboardMember } from "@/domain/dashboard/access.ts";
import { may } from "@/domain/dashboard/access.ts";
import type { ProjectSummary } from "@/domain/dashboard/projects.ts";
import type { BoardFilters, BoardView } from "@/domain/dashboard/board.ts";
import type { FeedEntry } from "@/domain/dashboard/ledger.ts";
import type { TicketPage } from "@/domain/dashboard/ticket.ts";
import { Csrf, StatusBadge, statusLabel, Time } from "./layout.tsx";

export const SignIn: FC<
  { csrf: string; error?: string | undefined; email?: string | undefined; next?: string }
> = (
  p,
) => (
  <section class="signin" aria-labelledby="signin-title">
    <h1 id="signin-title">Sign in</h1>
    <p>Sign in to see your projects.</p>
    {p.error && <p class="error" role="alert">{p.error}</p>}
    <form method="post" action="/signin">
      <Csrf token={p.csrf} />
      {p.next && <input type="hidden" name="next" value={p.next} />}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value={p.email ?? ""} />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </form>
  </section>
);

export const Message: FC<{ heading: string; text: string; back?: string | undefined }> = (p) => (
  <section>
    <h1>{p.heading}</h1>
    <p role="alert">{p.text}</p>
    {p.back && (
      <p>
        <a href={p.back}>Back</a>
      </p>
    )}
  </section>
);

export const Projects: FC<{ projects: ProjectSummary[]; now: Date }> = ({ projects, now }) => (
  <section aria-labelledby="projects-title">
    <h1 id="projects-title">Your projects</h1>
    {projects.length === 0
      ? <p>You are not a member of any project yet.</p>
      : (
        <div class="table-wrap" tabindex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Agents online</th>
                <th scope="col">Tickets by column</th>
                <th scope="col">Open claims</th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              {projects.map((p) => (
                <tr>
                  <td>
                    <a href={`/projects/${p.id}`}>{p.name}</a>
                    <div class="meta">{p.orgName} · {p.role}</div>
                  </td>
                  <td>{p.agentsOnline}</td>
                  <td>
                    {p.columns.filter((c) => c.count > 0).map((c) => (
                      <span class={`badge status st-${c.status}`}>{statusLabel(c.status)}: {c.count}</span>
                    ))}
                    {p.columns.every((c) =>
                      c.count === 0
                    ) && <span class="meta">no tickets</span>}
                  </td>
                  <td>{p.openClaims}</td>
                  <td>
                    <Time at={p.lastActivityAt} now={now} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
  </section>
);

function boardQuery(f: BoardFilters, page: number): string {
  const q = new URLSearchParams();
  if (f.sprintId) q.set("sprint", f.sprintId);
  if (f.assigneeId) q.set("assignee", f.assigneeId);
  if (f.tag) q.set("tag", f.tag);
  if (page > 0) q.set("page", String(page));
  const s = q.toString();
  return s ? `?${s}` : "";
}

export const Board: FC<{ member: DashboardMember; board: BoardView; filters: BoardFilters }> = (
  { member, board, filters },
) => {
  const base = `/projects/${member.project.id}`;
  return (
    <section aria-labelledby="board-title">
      <h1 id="board-title">Board</h1>
      <form class="filters" method="get" action={base} role="search" aria-label="Filter the board">
        <div>
          <label for="f-sprint">Sprint</label>
          <select id="f-sprint" name="sprint">
            <option value="">All sprints</option>
            <option value="none" selected={filters.sprintId === "none"}>No sprint</option>
            {board.sprints.map((s) => (
              <option value={s.id} selected={filters.sprintId === s.id}>
                #{s.number} {s.name} ({s.status})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-assignee">Assignee</label>
          <select id="f-assignee" name="assignee">
            <option value="">Anyone</option>
            <option value="none" selected={filters.assigneeId === "none"}>Unassigned</option>
            {board.agents.map((a) => (
              <option value={a.id} selected={filters.assigneeId === a.id}>{a.name}</option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-tag">Tag</label>
          <input id="f-tag" name="tag" type="text" value={filters.tag ?? ""} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <div data-live>
        <div class="board">
          {board.columns.filter((col) => col.total > 0).map((col) => (
            <section
              class={`column st-${col.status}`}
              aria-label={`${statusLabel(col.status)}, ${col.total} tickets`}
              data-column={col.status}
            >
              <h2>
                {statusLabel(col.status)} <span class="meta">{col.total}</span>
              </h2>
              <ul class="cards">
                {col.cards.map((c) => (
                  <li class="card" data-key={c.key}>
                    <a href={`${base}/tickets/${c.key}`}>
                      <span class="key">{c.key}</span> {c.title}
                    </a>
                    <div class="meta">
                      {c.assigneeName ? `@${c.assigneeName}` : "unassigned"}
                      {c.priority !== "normal" && <>{" · "}{c.priority}</>}
                      {c.type && <>{" · "}{c.type}</>}
                    </div>
                    <div>
                      {c.reviewState && <span class="badge review">{c.reviewState}</span>}{" "}
                      {c.stale && <span class="badge stale">stale</span>}{" "}
                      {c.humanOnly && <span class="badge">human-only</span>}
                    </div>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </div>
        {board.columns.some((col) => col.total === 0) && (
          <p class="empty-columns">
            No tickets in: {board.columns.filter((col) => col.total === 0).map((col, i) => (
              <>
                {i > 0 && ", "}
                <span data-column={col.status} data-empty="">{statusLabel(col.status)}</span>
              </>
            ))}
          </p>
        )}
        <nav class="pager" aria-label="Board pages">
          {board.page > 0 && <a href={base + boardQuery(filters, board.page - 1)}>Previous page</a>}
          {board.hasMore && <a href={base + boardQuery(filters, board.page + 1)}>Next page</a>}
        </nav>
      </div>
    </section>
  );
};

export const LedgerList: FC<{ entries: FeedEntry[]; base: string; now: Date }> = ({ entries, base, now }) => (
  <ol class="ledger" reversed>
    {entries.map((e) => (
      <li class={`t-${e.type}`} data-entry={e.id}>
        <span class="type">{e.type}</span> {e.source === "system" && <span class="badge">system</span>}{" "}
        {e.severity && e.severity !== "info" && <span class="badge stale">{e.severity}</span>}{" "}
        <span class="meta">
          {e.agentName ?? "service"} · <Time at={new Date(e.createdAt)} now={now} />
          {e.ticketKey && (
            <>
              {" · "}
              <a href={`${base}/tickets/${e.ticketKey}`}>{e.ticketKey}</a>
            </>
          )}
          {e.fileRef && (
            <>
              {" · "}
              <code>{e.fileRef}{e.lineRef !== null ? `:${e.lineRef}` : ""}</code>
            </>
          )}
        </span>
        <div>{e.content}</div>
        {e.type === "TESTED" && e.payload && <pre class="evidence">{JSON.stringify(e.payload, null, 2)}</pre>}
      </li>
    ))}
  </ol>
);

/** Issue 25: the coverage receipt of the handoff under review (changed files against the files held). */
export const ClaimCoverage: FC<{ handoff: Record<string, unknown> | null }> = ({ handoff }) => {
  const c = handoff?.coverage as { covered?: string[]; uncovered?: string[]; ratio?: number } | undefined;
  if (!c || !Array.isArray(c.covered) || !Array.isArray(c.uncovered)) return null;
  return (
    <section aria-labelledby="coverage-title" data-coverage>
      <h2 id="coverage-title">Claim coverage</h2>
      <p>
        {`${Math.round((c.ratio ?? 0) * 100)}% of the changed files were claimed (${c.covered.length} of ${
          c.covered.length + c.uncovered.length
        })`}
      </p>
      {c.uncovered.length > 0 && (
        <>
          <h3>Changed without a claim</h3>
          <ul>
            {c.uncovered.map((f) => (
              <li key={f}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {c.covered.length > 0 && (
        <details>
          <summary>Covered by claims</summary>
          <ul>
            {c.covered.map((f) => (
              <li key={f}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
};

export const Ticket: FC<{ member: DashboardMember; t: TicketPage; csrf: string; now: Date }> = (
  { member, t, csrf, now },
) => {
  const base = `/projects/${member.project.id}`;
  const review = ["review", "in_review", "qa", "needs_review"].includes(t.status);
  return (
    <article aria-labelledby="ticket-title">
      <h1 id="ticket-title">
        <span class="key">{t.key}</span> {t.title}
      </h1>
      {(may(member.role, "move") || may(member.role, "approve")) && (
        <div class="actions">
          {may(member.role, "move") && t.moves.length > 0 && (
            <form class="inline" method="post" action={`${base}/tickets/${t.key}/move`}>
              <Csrf token={csrf} />
              <label for="move-to" style="display:inline">Move to</label>{" "}
              <select id="move-to" name="status">
                {t.moves.map((m) => <option key={m} value={m}>{statusLabel(m)}</option>)}
              </select>{" "}
              <button type="submit">Move</button>
            </form>
          )}{" "}
          {may(member.role, "approve") && review && (
            <form class="inline" method="post" action={`${base}/tickets/${t.key}/approve`}>
              <Csrf token={csrf} />
              <button type="submit">Approve</button>
            </form>
          )}
        </div>
      )}
      <div data-live>
        <dl class="fields">
          <dt>Status</dt>
          <dd data-field="status" data-status={t.status}>
            <StatusBadge status={t.status} />
          </dd>
          <dt>Assignee</dt>
          <dd>{t.assigneeName ?? "unassigned"}</dd>
          <dt>Reviewer</dt>
          <dd>{t.reviewerName ?? "none"}</dd>
          <dt>Priority</dt>
          <dd>{t.priority}</dd>
          <dt>Type</dt>
          <dd>{t.type ?? "—"}</dd>
          <dt>Risk class</dt>
          <dd>{t.riskClass ?? "local"}</dd>
          <dt>Sprint</dt>
          <dd>{t.sprintName ?? "—"}</dd>
          <dt>Branch</dt>
          <dd>{t.branch ?? "—"}</dd>
          <dt>Tags</dt>
          <dd>{t.tags.join(", ") || "—"}</dd>
          <dt>Updated</dt>
          <dd>
            <Time at={t.updatedAt} now={now} />
          </dd>
          {t.humanOnly && (
            <>
              <dt>Human-only</dt>
              <dd>yes</dd>
            </>
          )}
        </dl>
        {t.description && (
          <>
            <h2>Description</h2>
            <p class="pre-wrap">{t.description}</p>
          </>
        )}
        {(t.doneDefinition || t.verificationCommand || t.outOfScope) && (
          <dl class="fields">
            {t.doneDefinition && (
              <>
                <dt>Done when</dt>
                <dd>{t.doneDefinition}</dd>
              </>
            )}
            {t.verificationCommand && (
              <>
                <dt>Verify with</dt>
                <dd>
                  <code>{t.verificationCommand}</code>
                </dd>
              </>
            )}
            {t.outOfScope && (
              <>
                <dt>Out of scope</dt>
                <dd>{t.outOfScope}</dd>
              </>
            )}
          </dl>
        )}
        <ClaimCoverage handoff={t.reviewHandoff} />
        <h2>Acceptance criteria</h2>
        {t.acceptanceCriteria.length === 0 ? <p class="meta">None.</p> : (
          <ol>
            {t.acceptanceCriteria.map((c, i) => {
              const test = t.qaTests.find((q) => q.criterionIndex === i);
              return (
                <li>
                  {c.title}
                  {c.requiresEvidence && <span class="badge">evidence required</span>}
                  {test && (
                    <>
                      <span class="badge">{test.status}</span>
                    </>
                  )}
                  {test?.evidence && <pre class="evidence">{test.evidence}</pre>}
                </li>
              );
            })}
          </ol>
        )}
        <h2>Review history</h2>
        {t.reviewHistory.length === 0 ? <p class="meta">No reviews yet.</p> : (
          <ol>
            {t.reviewHistory.map((r) => (
              <li data-review-event={r.event}>
                <strong>{statusLabel(r.event)}</strong>{" "}
                {r.from && r.to && <>{statusLabel(r.from)} → {statusLabel(r.to)}</>} by{" "}
                <span data-by>{r.by}</span> <span class="meta">{r.at && <Time at={r.at} now={now} />}</span>
                {r.comment && <div>{r.comment}</div>}
              </li>
            ))}
          </ol>
        )}
        <h2>Artifacts</h2>
        {t.artifacts.length === 0 ? <p class="meta">None.</p> : (
          <ul>
            {t.artifacts.map((a) => (
              <li>
                {a.type}: {/^https?:\/\//i.test(a.url)
                  ? <a href={a.url} rel="noopener noreferrer">{a.title ?? a.ref ?? a.url}</a>
                  : <code>{a.url}</code>} <span class="badge">{a.status}</span>
              </li>
            ))}
          </ul>
        )}
        <h2>Ledger</h2>
        {t.ledger.length === 0
          ? <p class="meta">No entries yet.</p>
          : <LedgerList entries={t.ledger} base={base} now={now} />}
        {t.ledgerNextBefore && (
          <p>
            <a href={`${base}/ledger?ticket=${t.key}&before=${t.ledgerNextBefore}`}>Older entries</a>
          </p>
        )}
      </div>
    </article>
  );
};
