/**
 * One trial's numbers, as the comparison needs them: the verdict `run` gave, and the tree's Σ anonymous PSS (what its
 * allocators hold, each page shared by forked workers counted once; Σ USS, Σ PSS or Σ RSS where that was never read)
 * at its peak, at the end, and its growth after warm-up; the cgroup's usage at its peak and end. Pure: from the
 * trial's series and verdict.
 *
 * Anonymous memory only: an allocator setting changes what the program's heap holds, and trials run one after another
 * while the rest of the machine changes. Whatever counts the program's file pages moves with its neighbours: PSS
 * divides a library's pages among the processes that map it (an idle Python's two trials differed by 3.8 MiB of PSS
 * beside a CI lane starting Pythons, CI on 1609985), and USS counts them whole while no other process maps them — an
 * idle Python's USS is 11.9 MiB alone and 7.0 MiB once a second one of the same interpreter starts (4.9 MiB of its
 * text turned shared), which read as "MALLOC_ARENA_MAX=2: worse: end +4.41 MiB" on three CI runs (c7d9618, c54bc24,
 * ec485f0). Its Pss_Anon stayed 6.70 MiB through both.
 *
 * Levels are medians of a tenth of the window, not single readings: a sawtooth's last reading can sit anywhere on a
 * tooth. Every trial is measured from the same second (the latest warm-up of them all), so that no setting's growth
 * is counted over a longer stretch than another's.
 */
import type { Column } from "../series/column.js";
import type { SeriesSet } from "../series/series.js";
import type { Finding, VerdictDocument } from "../analysis/types.js";
import { mad, median } from "../analysis/stats/quantiles.js";

export interface LevelMeasures {
  peak: number;
  /** The level at the end: the median of the window's last tenth. */
  end: number;
  /** The end's level less the level at the window's start (the median of its first tenth). */
  growth: number | undefined;
  /**
   * The noise of its levels: the readings' wobble from one to the next, or their spread in the first or the last tenth
   * (where the growth's start and end are read).
   */
  spread: number | undefined;
}

export interface TrialMeasures {
  verdict: Pick<Finding, "kind" | "confidence" | "summary">;
  seconds: number;
  /** The tree's Σ Pss_Anon, or Σ USS (Σ PSS, Σ RSS) where that was never read. */
  metric: "pss-anon" | "uss" | "pss" | "rss";
  tree: LevelMeasures | undefined;
  cgroup: LevelMeasures | undefined;
}

/** The points at or after `from` (all of them when fewer than 4 are). */
function after(col: Column, from: number): { xs: number[]; ys: number[] } {
  const i = col.xs.findIndex((x) => x >= from);
  const start = i < 0 || col.length - i < 4 ? 0 : i;
  return { xs: col.xs.slice(start), ys: col.ys.slice(start) };
}

/** Peak, end level, growth and spread of a column after `from`; undefined without readings. */
export function levelMeasures(col: Column | undefined, from: number): LevelMeasures | undefined {
  if (!col || col.length === 0) return undefined;
  const { ys } = after(col, from);
  const tenth = Math.max(3, Math.ceil(ys.length / 10));
  const end = median(ys.slice(-tenth))!;
  const enough = ys.length >= 2 * tenth;
  // The noise of a level: the larger of the readings' wobble from one to the next (the MAD of successive differences
  // over √2: a trend, or a step such as trim giving 300 MiB back at once, moves one difference, not their median; the
  // spread about a fitted line counted that step as noise, 200 MiB for a trial whose end fell 90%) and their spread
  // within the last tenth, where the end is read (a sawtooth's teeth: where the tenth falls on them moves the end), and
  // within the first, where the growth starts: trim's teeth (225 MiB given back to 75-100 MiB, refilled over 2 s)
  // put the start of one trial on a tooth's refill, and it read "worse: growth +12.0 MiB (noise ±4.61 MiB)" beside
  // the same end and a lower peak.
  const first = ys.slice(0, tenth);
  const last = ys.slice(-tenth);
  const wobble = mad(ys.slice(1).map((y, k) => y - ys[k]!))! / Math.SQRT2;
  const spread = enough ? Math.max(wobble, mad(last)!, mad(first)!) : undefined;
  return {
    peak: col.max() ?? Math.max(...ys),
    end,
    growth: enough ? end - median(first)! : undefined,
    spread,
  };
}

export type TreeMetric = TrialMeasures["metric"];

/**
 * The metric every trial has: Σ Pss_Anon where each trial read it (kernels before 5.3 have none), else Σ USS, Σ PSS,
 * Σ RSS. One for all: an idle Python's Σ PSS is ~4 MiB over its Σ USS (the libraries' shares), so a trial whose USS
 * the sampler never finished reading under load, measured in PSS against a baseline in USS, would read as 4 MiB
 * "worse".
 */
export function commonMetric(sets: readonly SeriesSet[]): TreeMetric {
  const read = (c: Column | undefined) => c !== undefined && c.length >= 2;
  for (const metric of ["pss-anon", "uss", "pss"] as const) if (sets.every((s) => read(s.tree[metric]))) return metric;
  return "rss";
}

const METRIC_LABELS: Record<TreeMetric, string> = {
  "pss-anon": "Σ anonymous PSS",
  uss: "Σ USS",
  pss: "Σ PSS",
  rss: "Σ RSS",
};

/** "Σ anonymous PSS": the metric as the table's heading and the chart's title say it. */
export function treeMetricLabel(metric: TreeMetric): string {
  return METRIC_LABELS[metric];
}

export function trialMeasures(
  doc: VerdictDocument,
  set: SeriesSet,
  from: number,
  metric: TreeMetric = commonMetric([set]),
): TrialMeasures {
  return {
    verdict: { kind: doc.verdict.kind, confidence: doc.verdict.confidence, summary: doc.verdict.summary },
    seconds: set.duration,
    metric,
    tree: levelMeasures(set.tree[metric], from),
    cgroup: levelMeasures(set.cgroup.cgroup, from),
  };
}
