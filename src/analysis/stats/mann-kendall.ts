/**
 * Mann–Kendall trend test with tie corrections, O(n log n) by a Fenwick tree over value ranks.
 */
import { erfc } from "./normal.js";
import { float64Scratch, int32Scratch } from "./scratch.js";
import { type NotEnoughData, type Series, cleanSeries, hasTimeSpan, lowerBound, notEnough } from "./window.js";

/** Fewer than 3 samples cannot tell a trend from a single jump, so no trend statistic is computed below it. */
export const MIN_TREND_POINTS = 3;

export interface MannKendall {
  readonly ok: true;
  readonly n: number;
  /** Concordant minus discordant pairs: > 0 when later samples tend to be larger. */
  readonly s: number;
  /** Variance of S under "no trend", corrected for tied values and tied times. */
  readonly varS: number;
  /** Standardised S with continuity correction: (S − sign S) / √var. */
  readonly z: number;
  /** Two-sided p-value of "no monotonic trend". */
  readonly p: number;
  /** Kendall's tau-b between time and value, in [−1, 1]. */
  readonly tau: number;
}

/** Σ over groups of tied values of the terms the tie corrections need. */
interface TieSums {
  /** Σ t(t−1)/2: pairs tied with each other. */
  pairs: number;
  /** Σ t(t−1). */
  t1: number;
  /** Σ t(t−1)(t−2). */
  t2: number;
  /** Σ t(t−1)(2t+5). */
  t5: number;
}

export function tieSums(sorted: ArrayLike<number>): TieSums {
  const sums: TieSums = { pairs: 0, t1: 0, t2: 0, t5: 0 };
  let i = 0;
  while (i < sorted.length) {
    let j = i + 1;
    while (j < sorted.length && sorted[j] === sorted[i]) j++;
    const t = j - i;
    sums.pairs += (t * (t - 1)) / 2;
    sums.t1 += t * (t - 1);
    sums.t2 += t * (t - 1) * (t - 2);
    sums.t5 += t * (t - 1) * (2 * t + 5);
    i = j;
  }
  return sums;
}

export interface KendallCounts {
  readonly n: number;
  readonly s: number;
  readonly varS: number;
  readonly tau: number;
  /** Pairs with different times: the pairs Theil–Sen takes slopes of. */
  readonly distinctTimePairs: number;
}

/** kendallCounts' working arrays (scratch.ts): each used by one call at a time, done with before it returns. */
const sortedSpace = float64Scratch();
const rankSpace = int32Scratch();
const treeSpace = int32Scratch();

/**
 * S and its null variance in O(n log n) (Knight's algorithm, as in SciPy's kendalltau), so 260,000 samples need
 * no subsampling: xs are sorted, ys become dense ranks, and a Fenwick tree counts, for each sample, the earlier
 * samples (strictly earlier time) with a larger value — the discordant pairs. Concordant pairs follow from the
 * total minus the tied ones.
 */
export function kendallCounts(s: Series): KendallCounts {
  const { xs, ys } = s;
  const n = xs.length;
  const ySorted = sortedSpace(n);
  for (let i = 0; i < n; i++) ySorted[i] = ys[i]!;
  ySorted.sort();
  const distinctY = uniqueSorted(ySorted);
  const ranks = rankSpace(n);
  for (let i = 0; i < n; i++) ranks[i] = lowerBound(distinctY, ys[i]!) + 1;
  const xTies = tieSums(xs);
  const yTies = tieSums(ySorted);
  const total = (n * (n - 1)) / 2;
  const dis = discordantPairs(xs, ranks, distinctY.length);
  const joint = jointTiePairs(xs, ranks);
  const score = total - xTies.pairs - yTies.pairs + joint - 2 * dis;
  const tauDenominator = Math.sqrt(total - xTies.pairs) * Math.sqrt(total - yTies.pairs);
  return {
    n,
    s: score,
    varS: kendallVariance(n, xTies, yTies),
    tau: tauDenominator > 0 ? Math.max(-1, Math.min(1, score / tauDenominator)) : 0,
    distinctTimePairs: total - xTies.pairs,
  };
}

function uniqueSorted(sorted: Float64Array): number[] {
  const out: number[] = [];
  for (const v of sorted) if (out.length === 0 || out[out.length - 1] !== v) out.push(v);
  return out;
}

/** Pairs (i, j) with x_i < x_j and y_i > y_j; ranks are 1-based dense ranks of y, xs sorted. */
function discordantPairs(xs: readonly number[], ranks: Int32Array, rankCount: number): number {
  const tree = treeSpace(rankCount + 1).fill(0);
  let inserted = 0;
  let dis = 0;
  let i = 0;
  while (i < xs.length) {
    let end = i;
    while (end < xs.length && xs[end] === xs[i]) end++;
    // Query the whole group of equal times before inserting it: equal times are ties, not discordant.
    for (let k = i; k < end; k++) dis += inserted - countAtMost(tree, ranks[k]!);
    for (let k = i; k < end; k++) addOne(tree, ranks[k]!);
    inserted += end - i;
    i = end;
  }
  return dis;
}

function countAtMost(tree: Int32Array, rank: number): number {
  let sum = 0;
  for (let r = rank; r > 0; r -= r & -r) sum += tree[r]!;
  return sum;
}

function addOne(tree: Int32Array, rank: number): void {
  for (let r = rank; r < tree.length; r += r & -r) tree[r]! += 1;
}

/** Pairs tied in both time and value (only possible inside a group of equal times, which is rare). */
function jointTiePairs(xs: readonly number[], ranks: Int32Array): number {
  let pairs = 0;
  let i = 0;
  while (i < xs.length) {
    let end = i + 1;
    while (end < xs.length && xs[end] === xs[i]) end++;
    if (end - i > 1) pairs += tieSums(ranks.slice(i, end).sort()).pairs;
    i = end;
  }
  return pairs;
}

/**
 * Var(S) under independence with ties in both variables (Kendall, Rank Correlation Methods; the tests check it
 * against the brute-force permutation variance). With distinct times — the normal case — it reduces to the
 * familiar Mann–Kendall form [n(n−1)(2n+5) − Σ u(u−1)(2u+5)] / 18. Tied values matter
 * for memory: RSS is counted in pages and often reads the same for many samples in a row.
 */
function kendallVariance(n: number, x: TieSums, y: TieSums): number {
  const base = (n * (n - 1) * (2 * n + 5) - x.t5 - y.t5) / 18;
  const triple = (x.t2 * y.t2) / (9 * n * (n - 1) * (n - 2));
  const double = (x.t1 * y.t1) / (2 * n * (n - 1));
  return Math.max(0, base + triple + double);
}

/** Z with continuity correction, and its two-sided p-value. No variance (all values tied) means no evidence. */
function significance(score: number, varS: number): { z: number; p: number } {
  if (!(varS > 0) || score === 0) return { z: 0, p: 1 };
  const z = (score - Math.sign(score)) / Math.sqrt(varS);
  return { z, p: Math.min(1, Math.max(0, erfc(Math.abs(z) / Math.SQRT2))) };
}

export function checkTrendInput(s: Series): NotEnoughData | undefined {
  if (s.xs.length < MIN_TREND_POINTS) return notEnough(s.xs.length, `needs at least ${MIN_TREND_POINTS} samples`);
  if (!hasTimeSpan(s)) return notEnough(s.xs.length, "all samples have the same time");
  return undefined;
}

export function mannKendallOf(counts: KendallCounts): MannKendall {
  const { z, p } = significance(counts.s, counts.varS);
  return { ok: true, n: counts.n, s: counts.s, varS: counts.varS, z, p, tau: counts.tau };
}

/**
 * Mann–Kendall test for a monotonic trend, computed exactly (no subsampling) in O(n log n). Samples sharing a
 * timestamp count as tied in time, which makes S Kendall's S between time and value.
 */
export function mannKendall(xs: readonly number[], ys: readonly number[]): MannKendall | NotEnoughData {
  const s = cleanSeries(xs, ys);
  return checkTrendInput(s) ?? mannKendallOf(kendallCounts(s));
}
