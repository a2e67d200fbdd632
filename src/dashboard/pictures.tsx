/**
 * The dashboard's pictures, drawn on the server as SVG (no client framework; the live region around each
 * is re-fetched when the project's event stream reports a change): the claims map, the activity timeline
 * and the sprint burndown. Colours that must read in both themes come from the stylesheet's variables.
 */
import type { FC } from "hono/jsx";
import type { ClaimsMap, ClaimTreeNode, HotFile } from "@/domain/dashboard/claims-map.ts";
import type { ActivityKind, ActivityTimeline } from "@/domain/dashboard/activity.ts";
import type { BurndownPoint } from "@/domain/dashboard/sprints.ts";
import { exact } from "./layout.tsx";

/** Holder colours: mid-tone, distinct, readable as swatches on light and dark backgrounds. */
const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2", "#8c564b"];

/** A holder's colour: the same name gets the same colour on every page. */
export function holderColour(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

const ROW = 22;

function flatten(nodes: ClaimTreeNode[], depth = 0): { node: ClaimTreeNode; depth: number }[] {
  return nodes.flatMap((node) => [{ node, depth }, ...flatten(node.children, depth + 1)]);
}

/** Where the claim wait queue of a file will be drawn; nothing while there is no queue data. */
export const QueueMarks: FC<{ queue: string[] | undefined; x: number; y: number }> = ({ queue, x, y }) =>
  !queue || queue.length === 0
    ? null
    : <text x={x} y={y} font-size="12" data-queue={queue.join(",")}>{`waiting: ${queue.join(", ")}`}</text>;

/** Where a file's pending release requests will be drawn; nothing while there is no such data. */
export const ReleaseRequestMarks: FC<
  { requests: { requester: string }[] | undefined; x: number; y: number }
> = ({ requests, x, y }) =>
  !requests || requests.length === 0
    ? null
    : (
      <text x={x} y={y} font-size="12" data-release-requests={String(requests.length)}>
        {`release asked by ${requests.map((r) => r.requester).join(", ")}`}
      </text>
    );

/** The claimed files as a folder tree; each file is a swatch in its holder's colour and names the holder. */
export const ClaimsMapPicture: FC<{ map: ClaimsMap }> = ({ map }) => {
  const rows = flatten(map.tree);
  if (rows.length === 0) return <p class="meta">No file is claimed: the map is empty.</p>;
  const h = rows.length * ROW + 8;
  const files = rows.filter((r) => r.node.holder !== null).length;
  return (
    <figure class="panel" data-picture="claims-map">
      <svg class="picture" viewBox={`0 0 960 ${h}`} role="img" aria-labelledby="cm-title cm-desc">
        <title id="cm-title">Claims map</title>
        <desc id="cm-desc">
          {`${files} claimed files held by ${map.holders.length} holders: ${map.holders.join(", ")}.`}
        </desc>
        {rows.map(({ node, depth }, i) => {
          const y = i * ROW + 4;
          const x = 8 + depth * 18;
          return node.holder === null
            ? (
              <g data-folder={node.path}>
                <text x={x} y={y + 15} font-size="13" font-weight="600">{`${node.name}/`}</text>
              </g>
            )
            : (
              <g data-file={node.path} data-holder={node.holder}>
                <title>{`${node.path} is held by ${node.holder}`}</title>
                <rect x={x} y={y + 3} width="14" height="14" rx="3" fill={holderColour(node.holder)} />
                <text x={x + 20} y={y + 15} font-size="13">{node.name}</text>
                <text x={430} y={y + 15} font-size="12">{node.holder}</text>
                <QueueMarks queue={map.queues?.[node.path]} x={560} y={y + 15} />
                <ReleaseRequestMarks requests={map.releaseRequests?.[node.path]} x={760} y={y + 15} />
              </g>
            );
        })}
      </svg>
      <figcaption>
        <ul class="legend" aria-label="Holders">
          {map.holders.map((name) => (
            <li>
              <span class="swatch" style={`background:${holderColour(name)}`}></span>
              {name}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
};

export const HotFiles: FC<{ hot: { mostClaimed: HotFile[]; mostContended: HotFile[] }; days: number }> = (
  { hot, days },
) => (
  <section aria-labelledby="hot-title" data-picture="hot-files">
    <h2 id="hot-title">Hot files</h2>
    <p class="meta">Over the last {days} days.</p>
    <div class="board">
      <div>
        <h3>Most claimed</h3>
        {hot.mostClaimed.length === 0 ? <p class="meta">No claims yet.</p> : (
          <ol>
            {hot.mostClaimed.map((f) => (
              <li data-hot-file={f.file}>
                <code>{f.file}</code> <span class="meta">{f.claims} claims</span>
              </li>
            ))}
          </ol>
        )}
      </div>
      <div>
        <h3>Most contended</h3>
        {hot.mostContended.length === 0 ? <p class="meta">No file was held by more than one agent.</p> : (
          <ol>
            {hot.mostContended.map((f) => (
              <li data-contended-file={f.file}>
                <code>{f.file}</code> <span class="meta">{f.holders} holders, {f.claims} claims</span>
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  </section>
);

const KIND_COLOUR: Record<ActivityKind, string> = {
  claim: "#9467bd",
  ledger: "#1f77b4",
  handoff: "#2ca02c",
  review: "#ff7f0e",
};
/** Ledger entries are coloured by type where the type says something at a glance. */
const LEDGER_COLOUR: Record<string, string> = {
  TESTED: "#17becf",
  VERIFIED: "#17becf",
  DECISION: "#8c564b",
  BLOCKED: "#d62728",
  ALERT: "#d62728",
  ISSUE: "#d62728",
};
const LEDGER_LEGEND: [string, string][] = [
  ["Ledger: TESTED or VERIFIED", "#17becf"],
  ["Ledger: DECISION", "#8c564b"],
  ["Ledger: BLOCKED, ALERT or ISSUE", "#d62728"],
];
const markColour = (m: { kind: ActivityKind; label: string }) =>
  m.kind === "ledger" ? LEDGER_COLOUR[m.label] ?? KIND_COLOUR.ledger : KIND_COLOUR[m.kind];

const KIND_LABEL: Record<ActivityKind, string> = {
  claim: "Claim",
  ledger: "Ledger entry",
  handoff: "Handoff",
  review: "Review",
};

/** One lane per agent over the last hours; each mark is a claim, ledger entry, handoff or review. */
export const ActivityTimelinePicture: FC<{ timeline: ActivityTimeline }> = ({ timeline }) => {
  const { from, to, lanes } = timeline;
  const w = 900, label = 150, lane = 30, top = 24;
  const h = top + Math.max(1, lanes.length) * lane + 8;
  const span = Math.max(1, to.getTime() - from.getTime());
  const x = (at: Date) => label + ((at.getTime() - from.getTime()) / span) * (w - label - 12);
  const hours = Math.round(span / 3_600_000);
  const count = lanes.reduce((n, l) => n + l.marks.length, 0);
  return (
    <figure class="panel" data-picture="timeline">
      <svg class="picture" viewBox={`0 0 ${w} ${h}`} role="img" aria-labelledby="tl-title tl-desc">
        <title id="tl-title">Activity timeline</title>
        <desc id="tl-desc">
          {`${count} events of ${lanes.length} agents over the last ${hours} hours, ${exact(from)} to ${
            exact(to)
          }.`}
        </desc>
        {Array.from({ length: hours + 1 }, (_, i) => {
          const at = new Date(from.getTime() + i * 3_600_000);
          return (
            <g>
              <line class="axis" x1={x(at)} y1={top - 6} x2={x(at)} y2={h - 4} stroke-dasharray="2 4" />
              <text x={x(at)} y={12} font-size="11" text-anchor="middle">
                {i === hours ? "now" : `-${hours - i}h`}
              </text>
            </g>
          );
        })}
        {lanes.length === 0 && <text x={label} y={top + 18} font-size="13">No activity in these hours.</text>}
        {lanes.map((l, i) => {
          const y = top + i * lane;
          return (
            <g data-lane={l.name}>
              <rect class="lane" x={label} y={y + 3} width={w - label - 12} height={lane - 6} rx="4" />
              <text x={8} y={y + 19} font-size="13">{l.name}</text>
              {l.marks.map((m) => (
                <circle cx={x(m.at)} cy={y + lane / 2} r="6" fill={markColour(m)} data-kind={m.kind}>
                  <title>{`${l.name}: ${KIND_LABEL[m.kind]} ${m.label} at ${exact(m.at)}`}</title>
                </circle>
              ))}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul class="legend" aria-label="Kinds of activity">
          {(Object.keys(KIND_LABEL) as ActivityKind[]).map((k) => (
            <li>
              <span class="swatch" style={`background:${KIND_COLOUR[k]}`}></span>
              {k === "ledger" ? "Ledger entry (other types)" : KIND_LABEL[k]}
            </li>
          ))}
          {LEDGER_LEGEND.map(([name, colour]) => (
            <li>
              <span class="swatch" style={`background:${colour}`}></span>
              {name}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
};

/** The burndown as an SVG drawn on the server: remaining tickets per day against the ideal line; points too. */
export const Burndown: FC<{ points: BurndownPoint[] }> = ({ points }) => {
  const w = 600, h = 240, pad = 36;
  const hasPoints = points.some((p) => p.idealPoints !== undefined);
  const max = Math.max(1, ...points.map((p) => Math.max(p.remaining ?? 0, p.ideal)));
  const maxPts = Math.max(1, ...points.map((p) => Math.max(p.remainingPoints ?? 0, p.idealPoints ?? 0)));
  const x = (i: number) => pad + (points.length <= 1 ? 0 : (i * (w - 2 * pad)) / (points.length - 1));
  const y = (v: number, top = max) => h - pad - (v * (h - 2 * pad)) / top;
  const line = (vals: (number | null | undefined)[], top: number) =>
    vals.flatMap((v, i) =>
      v === null || v === undefined ? [] : [`${x(i).toFixed(1)},${y(v, top).toFixed(1)}`]
    )
      .join(" ");
  const last = [...points].reverse().find((p) => p.remaining !== null);
  return (
    <figure class="panel" data-picture="burndown">
      <svg class="picture burndown" viewBox={`0 0 ${w} ${h}`} role="img" aria-labelledby="bd-title bd-desc">
        <title id="bd-title">Burndown</title>
        <desc id="bd-desc">
          {`${points.length} days from ${points[0]?.day ?? "?"} to ${points.at(-1)?.day ?? "?"}; ${
            last
              ? `${last.remaining} tickets${
                hasPoints ? ` (${last.remainingPoints ?? 0} points)` : ""
              } remaining on ${last.day}`
              : "not started"
          }.`}
        </desc>
        <line class="axis" x1={pad} y1={h - pad} x2={w - pad} y2={h - pad} />
        <line class="axis" x1={pad} y1={pad} x2={pad} y2={h - pad} />
        <text x={pad - 6} y={y(max) + 4} text-anchor="end" font-size="11">{max}</text>
        <text x={pad - 6} y={h - pad + 4} text-anchor="end" font-size="11">0</text>
        <text x={pad} y={h - pad + 18} font-size="11">{points[0]?.day ?? ""}</text>
        <text x={w - pad} y={h - pad + 18} font-size="11" text-anchor="end">{points.at(-1)?.day ?? ""}</text>
        <polyline
          class="ideal"
          points={line(points.map((p) => p.ideal), max)}
          fill="none"
          stroke-dasharray="5 4"
          stroke-width="2"
          data-series="ideal"
        />
        <polyline
          class="actual"
          points={line(points.map((p) => p.remaining), max)}
          fill="none"
          stroke-width="3"
          data-series="remaining"
        />
        {hasPoints && (
          <polyline
            points={line(points.map((p) => p.remainingPoints), maxPts)}
            fill="none"
            stroke="#ff7f0e"
            stroke-width="2"
            data-series="points"
          />
        )}
      </svg>
      <figcaption>
        <ul class="legend" aria-label="Lines">
          <li>
            <span class="swatch" style="background:var(--accent)"></span>Remaining tickets
          </li>
          <li>
            <span class="swatch" style="background:var(--muted)"></span>Ideal line
          </li>
          {hasPoints && (
            <li>
              <span class="swatch" style="background:#ff7f0e"></span>Remaining points (scale {maxPts})
            </li>
          )}
        </ul>
      </figcaption>
    </figure>
  );
};
