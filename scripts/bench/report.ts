/** The table of `deno task bench`: one row per workload, with its floor and the ratio to it. */
import type { LoadResult } from "./load.ts";

export interface Row extends LoadResult {
  name: string;
  group: "floor" | "read" | "write" | "context" | "loop" | "dashboard";
  connections: number;
  /** The floor this row is measured against (a row name), and the ratio of requests per second. */
  floor?: string;
  ratio?: number;
  rssBeforeMb?: number | undefined;
  rssAfterMb?: number | undefined;
  /** The soak row: RSS growth after its first third (warm-up). */
  soakGrowthMb?: number;
  note?: string;
}

const fmt = (v: number | null | undefined, digits = 1) =>
  v === undefined || v === null || Number.isNaN(v) ? "" : v.toFixed(digits).replace(/\.0+$/, "");

function errorsOf(r: Row): string {
  const parts = Object.entries(r.errors).map(([k, v]) => `${k} x${v}`);
  if (r.completed !== undefined) parts.unshift(`${r.completed} completed`);
  return parts.join(", ") || "0";
}

/** The service's own time (its `Server-Timing` header), where it reports one: the dashboard pages. */
function server(r: Row): string {
  return r.serverP50 !== undefined ? `${fmt(r.serverP50, 2)} / ${fmt(r.serverP99, 2)}` : "";
}

export function markdown(title: string, rows: Row[], lines: string[] = []): string {
  const out = [`### ${title}`, "", ...lines, ...(lines.length ? [""] : [])];
  out.push(
    "| workload | conns | req/s | CPU ms/req | p50 ms | p95 ms | p99 ms | server p50/p99 ms | errors | RSS MB before/after | ratio to floor |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |",
  );
  for (const r of rows) {
    const rss = r.rssBeforeMb !== undefined ? `${fmt(r.rssBeforeMb, 0)} / ${fmt(r.rssAfterMb, 0)}` : "";
    const ratio = [r.ratio !== undefined ? `${r.ratio.toFixed(2)} of ${r.floor}` : "", r.note ?? ""]
      .filter(Boolean).join("; ");
    out.push(
      `| ${r.name} | ${r.connections} | ${r.rps} | ${fmt(r.cpuMsPerRequest, 3)} | ${fmt(r.p50, 2)} | ${
        fmt(r.p95, 2)
      } | ${fmt(r.p99, 2)} | ${server(r)} | ${errorsOf(r)} | ${rss} | ${ratio} |`,
    );
  }
  return out.join("\n") + "\n";
}
