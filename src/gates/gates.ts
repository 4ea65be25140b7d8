/**
 * CI gates: pure checks of an analysis against the user's limits. Each gate yields one line naming the gate, the
 * subject, the measured value and the limit, and a result: pass, fail, or inconclusive — never a silent pass when
 * the data could not decide it (a 5 s script, a warm-up that covered the whole run, a process gone before a sample).
 *   --max-growth SIZE|N%   level change of --metric after --warmup (median of the last tenth − of the first tenth)
 *   --max-rate SIZE/TIME   robust slope of --metric after --warmup, when the trend test says it is increasing (on a
 *                          window too short for it, the early test of stats/sequential.ts)
 *   --fail-on KINDS        any finding of these kinds; inconclusive when the verdict is insufficient-data
 *   --min-time-to-limit D  a leak reaches its memory limit sooner than D even at its range's far end
 *                          (gates/time-to-limit.ts)
 * An inconclusive gate passes the step unless --strict; `passed` says whether the gate lets the step pass.
 */
import { GROWTH_MIN_READINGS, levelChangeAfter, rateAfter } from "../analysis/gate-measures.js";
import type { Column } from "../series/column.js";
import type { SeriesSet } from "../series/series.js";
import { gpuSeries } from "../series/gpu-series.js";
import type { Finding, VerdictDocument } from "../analysis/types.js";
import { everyFinding } from "../analysis/every-finding.js";
import { secondsShort } from "../series/enough-samples.js";
import type { GateOptions } from "./spec.js";
import { timeToLimitGate } from "./time-to-limit.js";
import { groupName } from "../report/wording/words.js";
import { formatBytes, type SizeSpec } from "../base/units.js";

export type GateOutcome = "pass" | "fail" | "inconclusive";

export interface GateResult {
  name: string;
  /** What it measured ("tree Σ pss", "PID 42 anon", "cgroup usage"); absent for --fail-on. --per-process gives
   *  one result per process under the same name. */
  subject?: string;
  result: GateOutcome;
  /** Whether the gate lets the step pass: a pass, or an inconclusive result without --strict. */
  passed: boolean;
  message: string;
}

const gate = (
  name: string,
  result: GateOutcome,
  message: string,
  strict: boolean | undefined,
  subject?: string,
): GateResult => ({
  name,
  ...(subject !== undefined && { subject }),
  result,
  passed: result === "pass" || (result === "inconclusive" && !strict),
  message,
});

interface Measured {
  subject: string;
  col: Column;
}

function subjects(set: SeriesSet, o: GateOptions): Measured[] {
  // GPU memory is per process and device whatever --per-process says: devices' bytes do not add up to anything.
  if (o.metric === "gpu")
    return gpuSeries(set).map((g) => ({
      subject: `PID ${g.ps.pid} ${g.source === "driver" ? `GPU ${g.device} used` : `${g.device} allocated`}`,
      col: g.col,
    }));
  if (o.metric === "cgroup" || o.metric === "working-set") {
    const col = set.cgroup[o.metric];
    return col ? [{ subject: `cgroup ${o.metric === "cgroup" ? "usage" : "working set"}`, col }] : [];
  }
  const metric = o.metric;
  if (!o.perProcess) {
    const col = set.tree[metric];
    return col ? [{ subject: `tree Σ ${metric}`, col }] : [];
  }
  return [...set.processes.values()]
    .filter((p) => p.metrics[metric])
    .map((p) => ({ subject: `PID ${p.pid} ${metric}`, col: p.metrics[metric]! }));
}

function growthGate(m: Measured, from: number, spec: SizeSpec, warmupText: string, strict?: boolean): GateResult {
  const change = levelChangeAfter(m.col, from);
  if (!change.measured) {
    const n = change.readings;
    return gate(
      "max-growth",
      "inconclusive",
      `${m.subject}: ${n} reading${n === 1 ? "" : "s"}${warmupText}, too few to compare a start with an end (needs ${GROWTH_MIN_READINGS})`,
      strict,
      m.subject,
    );
  }
  const { start, end } = change;
  const growth = end - start;
  const limit = spec.kind === "bytes" ? spec.bytes : (spec.percent / 100) * start;
  const limitText = spec.kind === "bytes" ? formatBytes(limit) : `${spec.percent}% = ${formatBytes(limit)}`;
  return gate(
    "max-growth",
    growth <= limit ? "pass" : "fail",
    `${m.subject} grew ${formatBytes(growth)} (${formatBytes(start)} → ${formatBytes(end)})${warmupText}; limit ${limitText}`,
    strict,
    m.subject,
  );
}

function rateGate(
  m: Measured,
  from: number,
  limit: { bytesPerSecond: number; text: string },
  warmupText: string,
  strict?: boolean,
): GateResult {
  const r = rateAfter(m.col, from);
  // Too short for a rate that means anything, unless the early test already sees growth faster than the limit.
  if (r.kind === "too-short") {
    if (r.early && r.early.slope > limit.bytesPerSecond) {
      return gate(
        "max-rate",
        "fail",
        `${m.subject} grows at ${formatBytes(r.early.slope * 60)}/min (early test, p=${r.early.p.toPrecision(2)})${warmupText}; limit ${limit.text}`,
        strict,
        m.subject,
      );
    }
    return gate(
      "max-rate",
      "inconclusive",
      `${m.subject}: ${r.readings} readings over ${secondsShort(r.seconds, r.needs.seconds)} s${warmupText}, too few for a rate (needs ${r.needs.readings} over ${r.needs.seconds} s); limit ${limit.text}`,
      strict,
      m.subject,
    );
  }
  if (r.kind === "none")
    return gate(
      "max-rate",
      "inconclusive",
      `${m.subject}: no rate could be computed (${r.reason})${warmupText}; limit ${limit.text}`,
      strict,
      m.subject,
    );
  const failed = r.increasing && r.slope > limit.bytesPerSecond;
  return gate(
    "max-rate",
    failed ? "fail" : "pass",
    `${m.subject} grows at ${formatBytes(r.slope * 60)}/min (trend p=${r.p.toPrecision(2)})${warmupText}; limit ${limit.text}`,
    strict,
    m.subject,
  );
}

export function evaluateGates(doc: VerdictDocument, set: SeriesSet, o: GateOptions): GateResult[] {
  const results: GateResult[] = [];
  const from = o.warmup ?? doc.window.warmup;
  const warmupText = from > 0 ? ` after ${from.toFixed(0)} s warm-up` : "";
  const measured = subjects(set, o);
  if ((o.maxGrowth || o.maxRate) && measured.length === 0) {
    const what =
      o.metric === "gpu"
        ? "no gpu readings to check (no process used CUDA through PyTorch with the agent, and no nvidia-smi reported one)"
        : `no ${o.metric} readings to check (is the cgroup readable, were PSS/USS permitted, did the process live to be sampled?)`;
    if (o.maxGrowth) results.push(gate("max-growth", "inconclusive", what, o.strict));
    if (o.maxRate) results.push(gate("max-rate", "inconclusive", what, o.strict));
  }
  for (const m of measured) {
    if (o.maxGrowth) results.push(growthGate(m, from, o.maxGrowth, warmupText, o.strict));
    if (o.maxRate) results.push(rateGate(m, from, o.maxRate, warmupText, o.strict));
  }
  if (o.failOn) {
    // Growth of a shared cgroup that the watched tree does not explain is someone else's: it is not the verdict, and
    // no gate judges it.
    // A finding listed beside another of its subject counts too: a leak under fragmentation fails --fail-on leak,
    // fragmentation under a leak --fail-on fragmentation.
    const gated = everyFinding(doc.findings).filter((f) => o.failOn!.includes(f.kind));
    const hits = gated.filter((f) => !f.outsideWatchedTree);
    const kinds = o.failOn.join("/");
    // Said when there is one, or "no leak found" would sit under the cgroup's leak finding the report lists above it.
    const outside = gated.find((f) => f.outsideWatchedTree);
    const none = outside
      ? `no ${kinds} in the watched tree (the cgroup's ${outside.kind} is outside it: not gated)`
      : `no ${kinds} found`;
    if (hits.length > 0) {
      results.push(
        gate("fail-on", "fail", `${hits[0]!.kind} found: ${hits[0]!.summary}${besideFirst(hits.slice(1))}`, o.strict),
      );
    } else if (doc.verdict.kind === "insufficient-data" && !o.failOn.includes("insufficient-data")) {
      results.push(
        gate("fail-on", "inconclusive", `${none}, but nothing could be judged: ${doc.verdict.summary}`, o.strict),
      );
    } else {
      results.push(gate("fail-on", "pass", none, o.strict));
    }
  }
  if (o.minTimeToLimit) results.push(timeToLimitGate(doc, o.minTimeToLimit, o.strict));
  return results;
}

/**
 * What a failed --fail-on says of the findings after the one it names: how many more are findings of their own, and
 * which are the same growth seen whole — a tree's or cgroup's leak that its processes' leaks explain (classify.ts
 * attributeLeaks). Counted as "1 more finding", the cgroup of a single leaking program read as a second leak (a
 * helper's trial: every failing run said "(and 1 more finding)").
 */
function besideFirst(rest: readonly Finding[]): string {
  const same = rest.filter((f) => f.subject.type !== "process" && f.evidence.explainedByPids !== undefined);
  const more = rest.length - same.length;
  const parts = [
    ...(more > 0 ? [`and ${more} more ${more > 1 ? "findings" : "finding"}`] : []),
    ...(same.length > 0
      ? [
          `the ${same.map((f) => groupName(f.subject.type === "tree" ? "tree" : "cgroup")).join(" and ")} ${same.length > 1 ? "grow" : "grows"} with it`,
        ]
      : []),
  ];
  return parts.length > 0 ? ` (${parts.join("; ")})` : "";
}

/** The gates that fail the step: failed ones, and inconclusive ones under --strict. */
export const blockingGates = (gates: readonly GateResult[] | undefined) => (gates ?? []).filter((g) => !g.passed);
