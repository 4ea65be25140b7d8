/**
 * SeriesSet → the charts the HTML report draws, as plain JSON-able data (the page reads it with JSON.parse). Labels
 * that come from the target (process names, command lines) travel here as data and are put on the page with
 * textContent only.
 */
import type { ProcessSeries, SeriesSet } from "../../series/series.js";
import type { Column } from "../../series/column.js";
import type { Finding, MetricName, VerdictDocument } from "../../analysis/types.js";
import { alignForDrawing, MAX_POINTS, unionXs, type Line } from "./downsample.js";
import { processKey } from "../../sampling/process-key.js";
import { chartTests, type ChartTest } from "./pytest-section.js";
import { gpuCharts } from "./gpu-charts.js";
import { cgroupCountdown, withLimitProjection } from "./limit-projection.js";

export interface ChartSeries {
  label: string;
  color: string;
  /** One value per x of the chart, null where there is none; absent when `constant` is set. */
  values?: (number | null)[];
  /** A horizontal line (the cgroup's limit), drawn the whole width. */
  constant?: number;
  /** Stacked band: fill down to the series at this index (0-based among this chart's series), or to 0 when -1. */
  fillTo?: number;
  dash?: number[];
  width?: number;
  /** Start hidden (the limit when it is far above the data and would squash the chart); a legend click shows it. */
  hidden?: boolean;
  /** Stacked series hold running totals: the legend shows the difference to this series (index) instead. */
  legendMinus?: number;
}

export interface ChartSpec {
  id: string;
  group: "process" | "tree" | "cgroup" | "gpu";
  title: string;
  /** Shown under the title; from the target (full command line). */
  detail?: string;
  /** The finding for this subject, if there is one: kind and the metric that decided it. */
  finding?: { kind: Finding["kind"]; metric: MetricName; isVerdict: boolean };
  xs: number[];
  series: ChartSeries[];
  /** Where this chart's time axis ends when it runs past the run (the projection to the limit); the run's end if unset. */
  xMax?: number;
}

export interface ChartPayload {
  duration: number;
  /** The warm-up left out of the trend fit: `warmup` seconds from `warmupFrom` (the analyzed window's start). */
  warmupFrom: number;
  warmup: number;
  settledAt?: number;
  charts: ChartSpec[];
  /** Processes left out of the per-process charts (too many to draw one chart each). */
  omittedProcesses: number;
  /** The pytest plugin's tests: their boundaries on every chart's timeline. */
  tests?: ChartTest[];
}

export const MAX_PROCESS_CHARTS = 12;

const PROCESS_LINES: { metric: MetricName; color: string }[] = [
  { metric: "rss", color: "#4e79a7" },
  { metric: "pss", color: "#59a14f" },
  { metric: "uss", color: "#f28e2b" },
  { metric: "anon", color: "#e15759" },
  { metric: "swap", color: "#9c755f" },
];

/** Bottom to top: what cannot be reclaimed first, the inactive page cache (first to go) on top. */
const CGROUP_STACK: { metric: MetricName; label: string; color: string }[] = [
  { metric: "cgroup-anon", label: "anon", color: "#e15759" },
  { metric: "cgroup-shmem", label: "shmem", color: "#b07aa1" },
  { metric: "cgroup-kernel", label: "kernel", color: "#9c755f" },
  { metric: "cgroup-active-file", label: "active file", color: "#4e79a7" },
  { metric: "cgroup-inactive-file", label: "inactive file", color: "#a0cbe8" },
];

const round = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(v));
const roundX = (x: number) => Math.round(x * 1000) / 1000;

function lineSeries(lines: { label: string; color: string; col: Column | undefined; width?: number }[]): {
  xs: number[];
  series: ChartSeries[];
} {
  // A metric that is 0 throughout (swap, mostly) would only add a flat line and a legend entry.
  const present = lines.filter((l) => l.col && l.col.length > 0 && (l.col.max() !== 0 || l.width));
  const a = alignForDrawing(present.map((l) => l.col));
  return {
    xs: a.xs.map(roundX),
    series: present.map((l, i) => ({
      label: l.label,
      color: l.color,
      values: a.ys[i]!.map(round),
      ...(l.width && { width: l.width }),
    })),
  };
}

const findingKey = (f: Finding) => (f.subject.type === "process" ? processKey(f.subject) : f.subject.type);

function sameFinding(a: Finding, b: Finding): boolean {
  return findingKey(a) === findingKey(b) && a.kind === b.kind && a.summary === b.summary;
}

function findingOf(doc: VerdictDocument, key: string): ChartSpec["finding"] | undefined {
  const f =
    doc.findings.find((x) => findingKey(x) === key) ?? (findingKey(doc.verdict) === key ? doc.verdict : undefined);
  return f && { kind: f.kind, metric: f.metric, isVerdict: sameFinding(f, doc.verdict) };
}

function commandOf(ps: ProcessSeries, commands: Map<number, string[]> | undefined): string {
  const argv = commands?.get(ps.pid);
  return argv && argv.length ? argv.join(" ") : ps.comm;
}

/** The verdict's subject first, then the root, then other processes with a finding that is not "stable", then by size. */
function processOrder(set: SeriesSet, doc: VerdictDocument): ProcessSeries[] {
  const verdictKey = findingKey(doc.verdict);
  const rank = (ps: ProcessSeries) => {
    const key = processKey(ps);
    if (key === verdictKey) return 0;
    if (ps.pid === set.rootPid) return 1;
    const f = findingOf(doc, key);
    return f && f.kind !== "stable" && f.kind !== "insufficient-data" ? 2 : 3;
  };
  const size = (ps: ProcessSeries) => (ps.metrics.rss ?? ps.metrics.anon)?.max() ?? 0;
  return [...set.processes.values()].sort((a, b) => rank(a) - rank(b) || size(b) - size(a));
}

function processChart(
  ps: ProcessSeries,
  set: SeriesSet,
  doc: VerdictDocument,
  commands: Map<number, string[]> | undefined,
): ChartSpec {
  const key = processKey(ps);
  const finding = findingOf(doc, key);
  const { xs, series } = lineSeries(
    PROCESS_LINES.map((l) => ({
      label: l.metric,
      color: l.color,
      col: ps.metrics[l.metric],
      ...(finding?.metric === l.metric && { width: 3 }),
    })),
  );
  const command = commandOf(ps, commands);
  const parent = ps.pid === set.rootPid ? "root" : `child of ${ps.ppid}`;
  // comm is the name at first sight (a wrapper such as pyenv before its exec); the command line is the later one.
  const program = commands?.get(ps.pid)?.[0]?.split("/").pop() || ps.comm;
  return {
    id: `process-${ps.pid}-${ps.starttime}`,
    group: "process",
    title: `PID ${ps.pid} (${parent}) ${program}`,
    detail: command,
    ...(finding && { finding }),
    xs,
    series,
  };
}

function treeChart(set: SeriesSet, doc: VerdictDocument): ChartSpec | undefined {
  const finding = findingOf(doc, "tree");
  const { xs, series } = lineSeries(
    PROCESS_LINES.map((l) => ({
      label: `Σ ${l.metric}`,
      color: l.color,
      col: set.tree[l.metric],
      ...(finding?.metric === l.metric && { width: 3 }),
    })),
  );
  if (xs.length === 0) return undefined;
  const most = set.treeCount.max() ?? 0;
  return {
    id: "tree",
    group: "tree",
    title: `Process tree total (up to ${most} process${most === 1 ? "" : "es"})`,
    ...(finding && { finding }),
    xs,
    series,
  };
}

/** Running totals of the stack components at every sample, so bands can be drawn between consecutive totals. */
function stackedLines(set: SeriesSet): { label: string; color: string; line: Line }[] {
  const parts = CGROUP_STACK.map((p) => ({ ...p, col: set.cgroup[p.metric] })).filter((p) => p.col && p.col.length > 0);
  if (parts.length === 0) return [];
  const xsAll = unionXs(parts.map((p) => p.col));
  const totals = parts.map(() => [] as number[]);
  const cursor = parts.map(() => 0);
  const last = parts.map(() => 0);
  for (const x of xsAll) {
    let sum = 0;
    parts.forEach((p, i) => {
      // A component missing at this tick keeps its last value: drawing only, so a hole does not dent the stack.
      while (cursor[i]! < p.col!.length && p.col!.xs[cursor[i]!]! <= x) last[i] = p.col!.ys[cursor[i]!++]!;
      sum += last[i]!;
      totals[i]!.push(sum);
    });
  }
  return parts.map((p, i) => ({ label: p.label, color: p.color, line: { xs: xsAll, ys: totals[i]! } }));
}

function cgroupChart(set: SeriesSet, doc: VerdictDocument): ChartSpec | undefined {
  const stack = stackedLines(set);
  const lines = [
    ...stack.map((s) => ({ label: s.label, color: s.color, line: s.line as Line | undefined })),
    { label: "usage", color: "#333333", line: set.cgroup.cgroup },
    { label: "working set", color: "#000000", line: set.cgroup["working-set"] },
  ].filter((l) => l.line && l.line.xs.length > 0);
  if (lines.length === 0) return undefined;
  // One point fewer when the projection to the limit adds its end past the run (limit-projection.ts).
  const a = alignForDrawing(
    lines.map((l) => l.line),
    cgroupCountdown(doc) ? MAX_POINTS - 1 : MAX_POINTS,
  );
  const series: ChartSeries[] = lines.map((l, i) => {
    const s: ChartSeries = { label: l.label, color: l.color, values: a.ys[i]!.map(round) };
    if (i < stack.length) {
      s.fillTo = i - 1;
      if (i > 0) s.legendMinus = i - 1;
    } else if (l.label === "usage") {
      s.dash = [4, 4];
      s.width = 1;
    } else {
      s.width = 2;
    }
    return s;
  });
  const limit = set.cgroupLimit;
  if (typeof limit === "number") {
    let peak = 0;
    for (const s of series) for (const v of s.values ?? []) if (v !== null && v > peak) peak = v;
    // A limit far above everything would flatten the chart to a line at the bottom: start it hidden, say so.
    const far = peak > 0 && limit > 4 * peak;
    series.push({
      label: far ? "limit (off the scale; click to show)" : "limit",
      color: "#d62728",
      constant: limit,
      dash: [8, 4],
      width: 2,
      ...(far && { hidden: true }),
    });
  }
  const finding = findingOf(doc, "cgroup");
  const path =
    doc.target.cgroup && "path" in doc.target.cgroup
      ? doc.target.cgroup.path
      : doc.verdict.subject.type === "cgroup"
        ? doc.verdict.subject.path
        : undefined;
  return withLimitProjection<ChartSeries, ChartSpec>(
    {
      id: "cgroup",
      group: "cgroup",
      title: "Memory cgroup (stacked breakdown; usage and working set as lines)",
      ...(path !== undefined && { detail: path }),
      ...(finding && { finding }),
      xs: a.xs.map(roundX),
      series,
    },
    set,
    doc,
  );
}

export function buildCharts(
  doc: VerdictDocument,
  set: SeriesSet,
  commands?: Map<number, string[]>,
  settledAt?: number,
): ChartPayload {
  // A process seen once as it started or exited can have no reading at all (its status gone between listing and
  // reading): no chart for it, rather than an empty frame.
  const ordered = processOrder(set, doc).filter((ps) =>
    Object.values(ps.metrics).some((c) => c !== undefined && c.length > 0),
  );
  const processCharts = ordered.slice(0, MAX_PROCESS_CHARTS).map((ps) => processChart(ps, set, doc, commands));
  const tree = set.processes.size > 1 ? treeChart(set, doc) : undefined;
  const cgroup = cgroupChart(set, doc);
  // The group holding the verdict's subject comes first: that is the chart that explains the verdict.
  const groups: ChartSpec[][] = [
    processCharts,
    tree ? [tree] : [],
    cgroup ? [cgroup] : [],
    gpuCharts(doc, set, lineSeries),
  ];
  const first = { process: 0, tree: 1, cgroup: 2, gpu: 3 }[doc.verdict.subject.type];
  const charts = [groups[first]!, ...groups.filter((_, i) => i !== first)].flat();
  return {
    duration: set.duration,
    warmupFrom: doc.window.start,
    warmup: doc.window.warmup,
    ...(settledAt !== undefined && Number.isFinite(settledAt) && { settledAt }),
    charts,
    omittedProcesses: Math.max(0, ordered.length - MAX_PROCESS_CHARTS),
    ...(doc.tests?.length && { tests: chartTests(doc.tests) }),
  };
}
