/**
 * CI gates: pure checks of a finished analysis against the user's limits. Each gate yields one line naming the gate,
 * the subject, the measured value and the limit.
 *   --max-growth SIZE|N%   level change of --metric after --warmup (median of the last tenth − of the first tenth)
 *   --max-rate SIZE/TIME   robust slope of --metric after --warmup, when the trend test says it is increasing
 *   --fail-on KINDS        any finding of these kinds
 */
import { levels } from "./analysis/assess.js";
import type { Column } from "./analysis/column.js";
import type { SeriesSet } from "./analysis/series.js";
import { sliceByTime } from "./analysis/stats/window.js";
import { trendTest } from "./analysis/stats/trend.js";
import { VERDICT_KINDS, type VerdictDocument, type VerdictKind } from "./analysis/types.js";
import { formatBytes } from "./units.js";
import type { SizeSpec } from "./units.js";

export const GATE_METRICS = ["uss", "pss", "rss", "anon", "cgroup", "working-set"] as const;
export type GateMetric = (typeof GATE_METRICS)[number];

export interface GateOptions {
  maxGrowth?: SizeSpec;
  /** Bytes per second. */
  maxRate?: { bytesPerSecond: number; text: string };
  failOn?: VerdictKind[];
  metric: GateMetric;
  /** Apply growth/rate limits to each process instead of the tree total. */
  perProcess: boolean;
  /** Seconds left out at the start; undefined = the analysis's own warm-up. */
  warmup?: number;
}

export interface GateResult {
  name: string;
  passed: boolean;
  message: string;
}

export function parseKinds(text: string): { ok: true; value: VerdictKind[] } | { ok: false; message: string } {
  const kinds = text.split(",").map((k) => k.trim()).filter(Boolean);
  const bad = kinds.filter((k) => !(VERDICT_KINDS as readonly string[]).includes(k));
  if (kinds.length === 0 || bad.length > 0) {
    return { ok: false, message: `unknown verdict kind${bad.length > 1 ? "s" : ""} ${bad.map((b) => `"${b}"`).join(", ") || '""'}: choose from ${VERDICT_KINDS.join(", ")}` };
  }
  return { ok: true, value: kinds as VerdictKind[] };
}

interface Measured {
  subject: string;
  col: Column;
}

function subjects(set: SeriesSet, o: GateOptions): Measured[] {
  if (o.metric === "cgroup" || o.metric === "working-set") {
    const col = set.cgroup[o.metric];
    return col ? [{ subject: `cgroup ${o.metric === "cgroup" ? "usage" : "working set"}`, col }] : [];
  }
  if (!o.perProcess) {
    const col = set.tree[o.metric];
    return col ? [{ subject: `tree Σ ${o.metric}`, col }] : [];
  }
  return [...set.processes.values()]
    .filter((p) => p.metrics[o.metric])
    .map((p) => ({ subject: `PID ${p.pid} ${o.metric}`, col: p.metrics[o.metric]! }));
}

function growthGate(m: Measured, from: number, spec: SizeSpec, warmupText: string): GateResult | undefined {
  const w = sliceByTime({ xs: m.col.xs, ys: m.col.ys }, from);
  if (w.ys.length < 2) return undefined;
  const { start, end } = levels(w.ys);
  const growth = end - start;
  const limit = spec.kind === "bytes" ? spec.bytes : (spec.percent / 100) * start;
  const limitText = spec.kind === "bytes" ? formatBytes(limit) : `${spec.percent}% = ${formatBytes(limit)}`;
  const passed = growth <= limit;
  return {
    name: "max-growth",
    passed,
    message: `${m.subject} grew ${formatBytes(growth)} (${formatBytes(start)} → ${formatBytes(end)})${warmupText}; limit ${limitText}`,
  };
}

function rateGate(m: Measured, from: number, limit: { bytesPerSecond: number; text: string }, warmupText: string): GateResult | undefined {
  const w = sliceByTime({ xs: m.col.xs, ys: m.col.ys }, from);
  const t = trendTest(w.xs, w.ys);
  if (!t.ok) return undefined;
  const slope = t.theilSen.slope;
  const passed = !(t.direction === "increasing" && slope > limit.bytesPerSecond);
  return {
    name: "max-rate",
    passed,
    message: `${m.subject} grows at ${formatBytes(slope * 60)}/min (trend p=${t.mannKendall.p.toPrecision(2)})${warmupText}; limit ${limit.text}`,
  };
}

export function evaluateGates(doc: VerdictDocument, set: SeriesSet, o: GateOptions): GateResult[] {
  const results: GateResult[] = [];
  const from = o.warmup ?? doc.window.warmup;
  const warmupText = from > 0 ? ` after ${from.toFixed(0)} s warm-up` : "";
  const measured = subjects(set, o);
  if ((o.maxGrowth || o.maxRate) && measured.length === 0) {
    results.push({ name: o.maxGrowth ? "max-growth" : "max-rate", passed: false, message: `no ${o.metric} readings to check (is the cgroup readable, were PSS/USS permitted?)` });
  }
  for (const m of measured) {
    const g = o.maxGrowth && growthGate(m, from, o.maxGrowth, warmupText);
    if (g) results.push(g);
    const r = o.maxRate && rateGate(m, from, o.maxRate, warmupText);
    if (r) results.push(r);
  }
  if (o.failOn) {
    // Growth of a shared cgroup that the watched tree does not explain is someone else's: it is not the verdict, and
    // no gate judges it.
    const hits = doc.findings.filter((f) => o.failOn!.includes(f.kind) && !f.outsideWatchedTree);
    results.push({
      name: "fail-on",
      passed: hits.length === 0,
      message:
        hits.length === 0
          ? `no ${o.failOn.join("/")} found`
          : `${hits[0]!.kind} found: ${hits[0]!.summary}${hits.length > 1 ? ` (and ${hits.length - 1} more)` : ""}`,
    });
  }
  return results;
}
