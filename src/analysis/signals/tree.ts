/**
 * The whole process tree: Σ PSS when it was available throughout (each shared page counted once), else Σ anon.
 * It catches what no single process shows: workers started and never reaped, or many processes each growing a
 * little. Whether a process finding already explains it is decided in classify.ts.
 */
import { advice } from "../../advice/load.js";
import { assess, stoppedAt, stoppedGrowth } from "../assess.js";
import type { Context } from "../context.js";
import { confidenceFromP, growthConfidence, formatBytes, formatRate, sinceText, stableConfidence, trendEvidence } from "../evidence.js";
import type { SeriesSet } from "../series.js";
import type { Finding, MetricName } from "../types.js";
import { injectedAt, withoutOwnStep, type Injection } from "./own-footprint.js";

/** Share of ticks with a complete Σ PSS for the tree to be judged on it (rules/tree.test.ts: 40% / 60%). */
export const TREE_PSS_SHARE = 0.5;

/**
 * Σ Pss_Anon first: anonymous memory is what a leak grows, as for a single process (process.ts), while the file-backed
 * part of PSS grows with every page a program reads from a mapped model or dataset, and that is page cache the kernel
 * can drop. Σ PSS where the kernel reports no Pss_Anon (before 5.3), then Σ anon, Σ RSS.
 */
export function treeMetric(set: SeriesSet): MetricName {
  // PSS is read under a budget (smaps-budget.ts): use it when at least half the ticks have a complete total, so the
  // trend is fitted on the sum the window mostly has, not on a few late ticks.
  for (const metric of ["pss-anon", "pss"] as const) {
    const col = set.tree[metric];
    if (col && col.length >= TREE_PSS_SHARE * set.treeCount.length) return metric;
  }
  return set.tree.anon ? "anon" : "rss";
}

export function analyzeTree(set: SeriesSet, ctx: Context): Finding | undefined {
  const metric = treeMetric(set);
  const col = set.tree[metric];
  if (!col) return undefined;
  const injections = [...set.processes.values()].map(injectedAt).filter((i): i is Injection => i !== undefined);
  const { a, caveat: own } = withoutOwnStep(assess(col, ctx.from, 0), injections);
  const count = set.treeCount;
  const processesStart = count.first() ?? 0;
  const processesEnd = count.last() ?? 0;
  const subject = { type: "tree" as const, processes: set.processes.size };
  const base = {
    subject,
    metric,
    rate: a.rate,
    evidence: { ...trendEvidence(a), processesStart, processesEnd, processesSeen: set.processes.size } as Finding["evidence"],
    caveats: own ? [own] : ([] as string[]),
  };
  if (a.shape === "insufficient") {
    return { ...base, kind: "insufficient-data", confidence: 0, summary: `process tree: not enough data (${a.reason})`, advice: advice("insufficient-data", "any", { reason: a.reason }) };
  }
  if (a.shape === "growing") {
    return {
      ...base,
      kind: "leak",
      confidence: growthConfidence(a),
      summary: `the process tree grows: Σ ${metric} ${formatBytes(a.start)} → ${formatBytes(a.end)} at ${formatRate(a.rate)}`,
      advice: advice("leak", "tree", { rate: formatRate(a.rate), processesStart, processesEnd }),
    };
  }
  if (a.shape === "plateau" || a.shape === "step") {
    const levelFrom = stoppedAt(a);
    if (levelFrom !== undefined) base.evidence.levelFromSeconds = Number(levelFrom.toFixed(1));
    return {
      ...base,
      kind: "plateau",
      confidence: confidenceFromP(a.plateau?.p ?? a.p),
      summary: `the process tree grew, then levelled off at Σ ${metric} ${formatBytes(a.end)}`,
      advice: advice("plateau", "any", { growth: formatBytes(stoppedGrowth(a)), level: formatBytes(a.end), levelFrom: sinceText(levelFrom) }),
    };
  }
  return {
    ...base,
    kind: "stable",
    confidence: stableConfidence(a.to - a.from),
    summary: `the process tree is stable: Σ ${metric} ${formatBytes(a.start)} → ${formatBytes(a.end)}`,
    advice: advice("stable", "any", { metric: `Σ ${metric}`, growth: formatBytes(a.growth), duration: `${(a.to - a.from).toFixed(0)} s`, noise: formatBytes(a.plateau?.noise) }),
  };
}
