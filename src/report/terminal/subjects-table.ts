/**
 * The terminal report's table of subjects — each process (as a tree: root first, children under their parent; at most
 * ten, the ones with something to say first), each process's GPUs, the tree and the cgroup — with the numbers of the metric that decided
 * each and a sparkline. Columns give way on a narrow terminal, the sparkline first.
 */
import { liveHeapColumn } from "../../analysis/signals/live-heap.js";
import type { ChalkInstance } from "chalk";
import type { Column } from "../../series/column.js";
import type { ProcessSeries, SeriesSet } from "../../series/series.js";
import type { Finding, MetricName, VerdictDocument } from "../../analysis/types.js";
import { formatBytes, signedBytes } from "../../base/units.js";
import { memorySpan, sparkline } from "../sparkline.js";
import { safeText } from "../../base/safe-text.js";
import { rateShown } from "../rate-shown.js";
import { processKey } from "../../sampling/process-key.js";
import { clip, displayWidth } from "../text-width.js";
import { gpuLabel, kindColour, subjectLabel } from "../vocabulary.js";
import { gpuSeries } from "../../series/gpu-series.js";

interface Row {
  label: string;
  metric: MetricName;
  start?: number;
  end?: number;
  peak?: number;
  growth?: number;
  perHour?: number;
  values?: readonly number[];
  finding?: Finding;
  /** A process's row: its processKey (its GPUs' rows go under it). */
  key?: string;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const keyOf = (f: Finding) => (f.subject.type === "process" ? processKey(f.subject) : f.subject.type);

/** Numbers of one subject: the finding's own (its analyzed window) when it has them, else the column's after warm-up. */
function rowFor(
  label: string,
  metric: MetricName,
  f: Finding | undefined,
  col: Column | undefined,
  warmup: number,
): Row {
  const row: Row = { label, metric, ...(f && { finding: f }) };
  const e = f?.evidence ?? {};
  if (col && col.length > 0) {
    let i = col.xs.findIndex((x) => x >= warmup);
    if (i < 0) i = 0;
    const ys = col.ys.slice(i);
    // The sparkline draws the window the numbers beside it count: the finding's own (its last windowSeconds, to 0.1 s)
    // when it has one, else after warm-up. With the process's start-up in it, a process judged stable on +136 KiB
    // drew a full-height hill (28 KiB at its first sample, 8.6 MiB a second later).
    const window = num(e.windowSeconds);
    const from = window !== undefined ? col.xs[col.length - 1]! - window - 0.05 : warmup;
    row.values = col.ys.slice(
      Math.max(
        0,
        col.xs.findIndex((x) => x >= from),
      ),
    );
    row.start = ys[0];
    row.end = ys[ys.length - 1];
    row.peak = ys.reduce((m, y) => (y > m ? y : m), -Infinity);
    row.growth = row.end! - row.start!;
  }
  if (num(e.start) !== undefined && num(e.end) !== undefined) {
    row.start = num(e.start);
    row.end = num(e.end);
    row.peak = num(e.peak) ?? row.peak;
    row.growth = num(e.growth) ?? row.end! - row.start!;
  }
  if (f?.rate && rateShown(f.kind)) row.perHour = f.rate.bytesPerSecond * 3600;
  return row;
}

const MAX_PROCESS_ROWS = 10;

/** Root first, then each child under its parent (depth-first), so the labels can draw the tree. */
function treeOrder(set: SeriesSet): { ps: ProcessSeries; depth: number }[] {
  const all = [...set.processes.values()].sort((a, b) => a.firstSeen - b.firstSeen || a.pid - b.pid);
  const pids = new Set(all.map((p) => p.pid));
  const out: { ps: ProcessSeries; depth: number }[] = [];
  const seen = new Set<ProcessSeries>();
  const visit = (ps: ProcessSeries, depth: number) => {
    if (seen.has(ps)) return;
    seen.add(ps);
    out.push({ ps, depth });
    for (const c of all) if (c.ppid === ps.pid && c !== ps) visit(c, depth + 1);
  };
  for (const ps of all) if (ps.pid === set.rootPid || !pids.has(ps.ppid)) visit(ps, ps.pid === set.rootPid ? 0 : 1);
  for (const ps of all) visit(ps, 1);
  return out;
}

function processRows(doc: VerdictDocument, set: SeriesSet): { rows: Row[]; omitted: number } {
  const byKey = new Map(doc.findings.map((f) => [keyOf(f), f]));
  const ordered = treeOrder(set);
  // Too many workers for one screen: keep the root, the verdict's subject, every process with something to say,
  // then the largest; the order on screen stays the tree's.
  const important = (ps: ProcessSeries) => {
    const f = byKey.get(processKey(ps));
    if (ps.pid === set.rootPid || processKey(ps) === keyOf(doc.verdict)) return 0;
    return f && f.kind !== "stable" && f.kind !== "insufficient-data" ? 1 : 2;
  };
  const size = (ps: ProcessSeries) => (ps.metrics.anon ?? ps.metrics.rss)?.max() ?? 0;
  const keep = new Set(
    [...ordered]
      .sort((a, b) => important(a.ps) - important(b.ps) || size(b.ps) - size(a.ps))
      .slice(0, MAX_PROCESS_ROWS)
      .map((o) => o.ps),
  );
  const rows = ordered
    .filter((o) => keep.has(o.ps))
    .map(({ ps, depth }) => {
      const f = byKey.get(processKey(ps));
      const metric = f?.metric ?? (ps.metrics.anon ? "anon" : "rss");
      const label = depth === 0 ? `PID ${ps.pid}` : `${" ".repeat(Math.min(depth - 1, 3))}└ ${ps.pid}`;
      // A leak hidden in retained heap is judged on the live heap, which is no sampled metric of its own.
      const col = metric === "heap-live" ? liveHeapColumn(ps) : ps.metrics[metric];
      return { ...rowFor(label, metric, f, col, doc.window.warmup), key: processKey(ps) };
    });
  return { rows, omitted: ordered.length - rows.length };
}

/**
 * One row per process and device that used a GPU (series/gpu-series.ts): right under its process's row, named by
 * its device ("  cuda:0"); after the processes, with the pid, when its process's row was left out.
 */
function addGpuRows(rows: Row[], doc: VerdictDocument, set: SeriesSet): void {
  for (const g of gpuSeries(set)) {
    const f = doc.findings.find(
      (x) =>
        x.subject.type === "gpu" &&
        x.subject.pid === g.ps.pid &&
        x.subject.starttime === g.ps.starttime &&
        x.subject.device === g.device,
    );
    const key = processKey(g.ps);
    let at = rows.findIndex((r) => r.key === key);
    const label =
      at < 0 ? gpuLabel(g.ps.pid, g.device, g.source) : `  ${g.source === "driver" ? `GPU ${g.device}` : g.device}`;
    const row = { ...rowFor(label, f?.metric ?? g.metric, f, g.col, doc.window.warmup), key: `${key}:gpu` };
    if (at < 0) {
      rows.push(row);
      continue;
    }
    while (rows[at + 1]?.key === `${key}:gpu`) at++;
    rows.splice(at + 1, 0, row);
  }
}

function subjectRows(doc: VerdictDocument, set: SeriesSet | undefined): { rows: Row[]; omitted: number } {
  if (!set) {
    const rows = doc.findings.map((f) => {
      return rowFor(subjectLabel(f), f.metric, f, undefined, doc.window.warmup);
    });
    return { rows, omitted: 0 };
  }
  const { rows, omitted } = processRows(doc, set);
  addGpuRows(rows, doc, set);
  const tree = doc.findings.find((f) => f.subject.type === "tree");
  if (set.processes.size > 1) {
    const metric = tree?.metric ?? (set.tree.pss ? "pss" : "rss");
    rows.push(
      rowFor(`tree (${set.treeCount.max() ?? set.processes.size})`, metric, tree, set.tree[metric], doc.window.warmup),
    );
  }
  const cg = doc.findings.find((f) => f.subject.type === "cgroup");
  if (cg || set.cgroup.cgroup) {
    const metric = cg?.metric ?? "cgroup";
    rows.push(rowFor("cgroup", metric, cg, set.cgroup[metric], doc.window.warmup));
  }
  return { rows, omitted };
}

interface TableColumn {
  head: string;
  width: number;
  right: boolean;
  /** Dropped first when the terminal is narrow (highest first). */
  drop: number;
  cell: (r: Row) => string;
}

/** The metric column's width: its longest name, 6 at least (the heading), 20 at most (cgroup-unreclaimable). */
const metricWidth = (rows: readonly Row[]) => Math.min(20, Math.max(6, ...rows.map((r) => displayWidth(r.metric))));

function table(rows: Row[], c: ChalkInstance, columns: number, ascii: boolean): string[] {
  const cols: TableColumn[] = [
    { head: "subject", width: 11, right: false, drop: 0, cell: (r) => r.label },
    // As wide as the longest metric shown (pss-anon, gpu-allocated, heap-live): a cut name ("pss-a…") names nothing.
    { head: "metric", width: metricWidth(rows), right: false, drop: 3, cell: (r) => r.metric },
    { head: "start", width: 8, right: true, drop: 2, cell: (r) => formatBytes(r.start) },
    { head: "end", width: 8, right: true, drop: 0, cell: (r) => formatBytes(r.end) },
    { head: "peak", width: 8, right: true, drop: 4, cell: (r) => formatBytes(r.peak) },
    { head: "growth", width: 9, right: true, drop: 0, cell: (r) => signedBytes(r.growth) },
    { head: "per hour", width: 9, right: true, drop: 1, cell: (r) => signedBytes(r.perHour) },
  ];
  const used = () => cols.reduce((s, col) => s + col.width + 1, -1);
  const hasSpark = rows.some((r) => r.values && r.values.length > 1);
  // The sparkline takes what is left (up to 32 columns); narrow terminals lose it first, then the least needed numbers.
  let spark = hasSpark ? Math.min(32, columns - used() - 2) : 0;
  while ((spark > 0 && spark < 6) || (spark <= 0 && used() > columns)) {
    if (spark > 0) {
      spark = 0;
      continue;
    }
    const victim = cols.reduce((a, b) => (b.drop > a.drop ? b : a));
    if (victim.drop === 0) break;
    cols.splice(cols.indexOf(victim), 1);
  }
  const cellText = (col: TableColumn, text: string) => {
    const t = clip(text, col.width);
    const pad = " ".repeat(Math.max(0, col.width - displayWidth(t)));
    return col.right ? pad + t : t + pad;
  };
  const head = cols.map((col) => cellText(col, col.head)).join(" ") + (spark > 0 ? "  trend" : "");
  const out = [c.dim(clip(head.trimEnd(), columns))];
  for (const r of rows) {
    const colour = r.finding && r.finding.kind !== "stable" ? kindColour(c, r.finding.kind) : (s: string) => s;
    const cells = cols.map((col, i) =>
      i === 0 ? colour(cellText(col, safeText(col.cell(r)))) : cellText(col, col.cell(r)),
    );
    let line = cells.join(" ");
    if (spark > 0 && r.values && r.values.length > 1) {
      // Scaled to at least the growth floor, so a few KiB of noise on a flat process does not fill the whole height.
      line += "  " + colour(sparkline(r.values, spark, ascii, memorySpan(r.values)));
    }
    out.push(line.trimEnd());
  }
  return out;
}

/** The table's lines (a blank line first), and a line for the stable processes left out; none without subjects. */
export function subjectsTable(
  doc: VerdictDocument,
  set: SeriesSet | undefined,
  c: ChalkInstance,
  columns: number,
  ascii: boolean,
): string[] {
  const { rows, omitted } = subjectRows(doc, set);
  if (rows.length === 0) return [];
  const out = ["", ...table(rows, c, columns, ascii)];
  if (omitted > 0) out.push(c.dim(`… and ${omitted} more process${omitted === 1 ? "" : "es"}, all stable`));
  return out;
}
