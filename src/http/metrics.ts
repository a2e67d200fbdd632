/**
 * In-process metrics in the Prometheus text exposition format (version 0.0.4), without a dependency.
 * Each instance counts its own traffic (the workers of one process sum theirs at scrape time, src/cluster.ts);
 * Prometheus scrapes every instance and sums.
 */
type Labels = Record<string, string>;

const NEEDS_ESCAPE = /[\\"\n]/;

function escapeLabel(value: string): string {
  // Label values are route templates, methods and codes: almost never anything to escape.
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length > 0 ? `{${parts.join(",")}}` : "";
}

function num(n: number): string {
  if (n === Infinity) return "+Inf";
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(9)));
}

type CounterState = Array<[string, { labels: Labels; value: number }]>;
type HistogramState = Array<[string, { labels: Labels; counts: number[]; sum: number; count: number }]>;

/** One worker's counters and histograms as plain data (sent between the workers of one process). */
export interface MetricsState {
  counters: Record<string, CounterState>;
  histograms: Record<string, HistogramState>;
}

class Counter {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, readonly help: string) {}
  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    const entry = this.#values.get(key);
    if (entry) entry.value += by;
    else this.#values.set(key, { labels, value: by });
  }
  value(labels: Labels = {}): number {
    return this.#values.get(labelText(labels))?.value ?? 0;
  }
  state(): CounterState {
    return [...this.#values.entries()].map(([key, e]) => [key, { labels: e.labels, value: e.value }]);
  }
  absorb(state: CounterState): void {
    for (const [key, e] of state) {
      const entry = this.#values.get(key);
      if (entry) entry.value += e.value;
      else this.#values.set(key, { labels: e.labels, value: e.value });
    }
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.#values.values()) {
      out.push(`${this.name}${labelText(labels)} ${num(value)}`);
    }
    return out;
  }
}

class Histogram {
  readonly #values = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string, readonly buckets: number[]) {}
  observe(labels: Labels, value: number): void {
    const key = labelText(labels);
    let entry = this.#values.get(key);
    if (!entry) {
      entry = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#values.set(key, entry);
    }
    this.buckets.forEach((b, i) => {
      if (value <= b) entry.counts[i]!++;
    });
    entry.sum += value;
    entry.count++;
  }
  state(): HistogramState {
    return [...this.#values.entries()].map(([key, e]) => [key, { ...e, counts: [...e.counts] }]);
  }
  absorb(state: HistogramState): void {
    for (const [key, e] of state) {
      const entry = this.#values.get(key);
      if (!entry) {
        this.#values.set(key, { ...e, counts: [...e.counts] });
        continue;
      }
      e.counts.forEach((n, i) => entry.counts[i] = (entry.counts[i] ?? 0) + n);
      entry.sum += e.sum;
      entry.count += e.count;
    }
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.#values.values()) {
      this.buckets.forEach((b, i) => {
        out.push(`${this.name}_bucket${labelText({ ...labels, le: num(b) })} ${counts[i]}`);
      });
      out.push(`${this.name}_bucket${labelText({ ...labels, le: "+Inf" })} ${count}`);
      out.push(`${this.name}_sum${labelText(labels)} ${num(sum)}`);
      out.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return out;
  }
}

export interface Gauge {
  name: string;
  help: string;
  samples: Array<{ labels?: Labels; value: number }>;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The process's memory at scrape time: resident set (the figure the soak of `deno task bench` watches)
 * and the V8 heap, so that an operator can tell a heap that grows from one that is merely large.
 */
function memoryGauges(): Gauge[] {
  const m = Deno.memoryUsage();
  return [
    {
      name: "process_resident_memory_bytes",
      help: "Resident memory of this process",
      samples: [{ value: m.rss }],
    },
    {
      name: "svc_heap_bytes",
      help: "V8 heap of this process: total (reserved) and used",
      samples: [
        { labels: { kind: "total" }, value: m.heapTotal },
        { labels: { kind: "used" }, value: m.heapUsed },
      ],
    },
    {
      name: "svc_external_memory_bytes",
      help: "Memory outside the V8 heap held by JS objects (buffers)",
      samples: [{ value: m.external }],
    },
  ];
}

/** The service's metrics. Request labels are route templates, never raw paths (bounded cardinality). */
export class Metrics {
  readonly requests = new Counter(
    "svc_http_requests_total",
    "HTTP requests by method, route template and status",
  );
  readonly duration = new Histogram(
    "svc_http_request_duration_seconds",
    "HTTP request duration by method, route template and status",
    SECONDS,
  );
  readonly refusals = new Counter(
    "svc_limiter_refusals_total",
    "Requests refused with 429 by a limiter, by error code (RATE_LIMITED, LEDGER_STALE, ...) and route",
  );
  readonly jobRounds = new Counter(
    "svc_background_rounds_total",
    "Background work rounds of this instance by outcome (ok, failed, db_unavailable)",
  );
  readonly jobsRun = new Counter("svc_background_jobs_total", "Pending jobs this instance ran");
  readonly jobRoundDuration = new Histogram(
    "svc_background_round_duration_seconds",
    "Duration of background work rounds",
    SECONDS,
  );
  readonly startedAt = Date.now();

  state(): MetricsState {
    return {
      counters: Object.fromEntries(this.#counters().map(([k, c]) => [k, c.state()])),
      histograms: Object.fromEntries(this.#histograms().map(([k, h]) => [k, h.state()])),
    };
  }

  /** These metrics plus other workers' (src/cluster.ts): what the whole process counted. */
  merged(others: MetricsState[]): Metrics {
    const all = new Metrics();
    for (const state of [this.state(), ...others]) {
      for (const [k, c] of all.#counters()) c.absorb(state.counters[k] ?? []);
      for (const [k, h] of all.#histograms()) h.absorb(state.histograms[k] ?? []);
    }
    return all;
  }

  #counters(): Array<[string, Counter]> {
    return [["requests", this.requests], ["refusals", this.refusals], ["jobRounds", this.jobRounds], [
      "jobsRun",
      this.jobsRun,
    ]];
  }

  #histograms(): Array<[string, Histogram]> {
    return [["duration", this.duration], ["jobRoundDuration", this.jobRoundDuration]];
  }

  /** The exposition text: counters, histograms, then the gauges read at scrape time. */
  render(gauges: Gauge[] = []): string {
    const lines = [
      ...this.requests.render(),
      ...this.duration.render(),
      ...this.refusals.render(),
      ...this.jobRounds.render(),
      ...this.jobsRun.render(),
      ...this.jobRoundDuration.render(),
    ];
    const all: Gauge[] = [
      {
        name: "svc_uptime_seconds",
        help: "Seconds since this instance started",
        samples: [{ value: (Date.now() - this.startedAt) / 1000 }],
      },
      ...memoryGauges(),
      ...gauges,
    ];
    for (const g of all) {
      lines.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
      for (const s of g.samples) lines.push(`${g.name}${labelText(s.labels ?? {})} ${num(s.value)}`);
    }
    return lines.join("\n") + "\n";
  }
}
