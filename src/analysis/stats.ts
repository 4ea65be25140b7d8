/**
 * Pure statistics for the verdict engine: is a memory series leaking (sustained growth), on a plateau (it grew,
 * then levelled off) or stable (noise around a flat level, even with ±100 MB jumps that come back)?
 *
 * Conventions shared by every function in this file:
 * - xs are times in seconds, ys are bytes. Pairs where either value is not a finite number are dropped (a failed
 *   sample is a gap, not a zero), the extra tail of the longer array is ignored, and the series is sorted by time.
 * - Nothing throws. When the data cannot support an answer the result is `{ ok: false, n, reason }`, never a
 *   number that would look like one. Numeric fields of `ok: true` results are always finite.
 * - The estimators are rank-based (Mann–Kendall, Theil–Sen) because memory series are not Gaussian: a GC sawtooth,
 *   page-sized steps and transient ±100 MB jumps drag a least-squares line around, while a median of pairwise slopes
 *   only moves when most of the series moves.
 * - Arithmetic saturates at ±Number.MAX_VALUE instead of overflowing to Infinity (and then to NaN). Such results
 *   are not meaningful, but they are finite; real memory series are many orders of magnitude away from it.
 * - p-values and confidence intervals assume independent noise. Real samples are autocorrelated (one GC cycle
 *   spans many samples), which makes them optimistic on long dense series: pair significance with a practical
 *   floor (a slope in bytes/s worth reporting) rather than trusting p alone.
 */

// ---------------------------------------------------------------------------------------------------------------
// Thresholds. Each is exported so the verdict engine and its tests name the same numbers.

/** Fewer than 3 samples cannot tell a trend from a single jump, so no trend statistic is computed below it. */
export const MIN_TREND_POINTS = 3;

/**
 * The shape detectors (plateau, warm-up, step) split the series into parts and test each part; below 20 samples
 * a third of the series has too few points for any test to say anything.
 */
export const MIN_SHAPE_POINTS = 20;

/**
 * Significance level for "there is a trend". 1% rather than 5%: the claim is "your process leaks", a false alarm
 * costs the user's trust, and a monitor re-tests as samples arrive, which inflates the false-alarm rate of any
 * fixed level.
 */
export const DEFAULT_ALPHA = 0.01;

/** Confidence of Sen's slope interval. 95% is the convention; the trend decision itself uses DEFAULT_ALPHA. */
export const DEFAULT_CONFIDENCE = 0.95;

/**
 * trendTest decides on this many block means (see there for why not on the raw samples). At least 6 points are
 * needed before Mann–Kendall can reach p < 0.01 at all (6 perfectly ordered points: p = 0.009); 12 leave room for
 * noise (12 ordered block means: p = 8e-6; two pairs of neighbours swapped: p = 3e-5), while each block stays a
 * twelfth of the window long, enough to average GC cycles of up to a quarter of the window.
 */
export const TREND_BLOCKS = 12;

/**
 * Theil–Sen enumerates all pairs up to this many (about 630 points); beyond, it draws this many pairs at random
 * (with a fixed seed, so the same input always gives the same answer). 200,000 slopes sort in about 10 ms, and
 * the median of that many sampled slopes is within about 0.1 percentile (one standard error) of the exact median,
 * far inside the estimator's own statistical uncertainty.
 */
export const MAX_EXACT_PAIRS = 200_000;
export const SAMPLED_PAIRS = 200_000;

/** Fixed seed of the pair sampler: determinism matters more than which pairs are drawn. */
const PAIR_SAMPLER_SEED = 0x5eed_1eac;

/**
 * The plateau and step detectors work on at most this many points (bin medians of the raw series, see `thin`).
 * They look for where the shape changes, and 1/300 of the window is a fine enough resolution for that; it keeps
 * their Theil–Sen fits exact and the step's split search (quadratic in the points) fast on 260,000 samples.
 */
export const SHAPE_MAX_POINTS = 300;

/** Scale that makes the median absolute deviation estimate a Gaussian standard deviation (1 / Φ⁻¹(3/4)). */
export const MAD_SCALE = 1.4826;

/**
 * A plateau is called when the tail's growth rate is, with 95% confidence, below this fraction of the rate at
 * which the series grew overall. A quarter: a bounded cache filling as 1 − e^(−t/τ) passes it once the window
 * is about 4τ long (its tail then grows at under 20% of the average rate), while a leak that merely slows down
 * (√t or log t growth: tail at 40–75% of the average rate) stays "growing". Demanding the upper confidence bound,
 * not the point estimate, be low means a noisy leak is never called a plateau for lack of evidence.
 */
export const PLATEAU_RATE_RATIO = 0.25;

/**
 * A series "grew" only if its level rose by more than this many noise widths (MAD around the window's line). One:
 * a rise smaller than the spread of the samples around their line is hard to see on a chart, and is what a
 * sawtooth's phase moves the median of a stretch by; a leak, a filled cache or a step rises by several.
 */
export const GREW_NOISE_MULTIPLE = 1;

/**
 * Warm-up and the start of a plateau are found by the same scan: the window is cut into time blocks of about 3
 * samples (a median of 3 ignores one odd sample; at most 100 blocks, as 1% of the window is resolution enough),
 * and a block is "off" while its median sits more than this many noise widths from the steady-state line. 3σ:
 * a block median has a spread below σ, so steady blocks essentially never exceed it, while an offset smaller than
 * 3σ is lost in the noise and barely biases a slope anyway.
 */
export const TRANSIENT_NOISE_MULTIPLE = 3;

/** At most this fraction of the window is ever called warm-up: the rest must be long enough to judge. */
export const WARMUP_MAX_FRACTION = 0.25;

/**
 * A step is one jump with flat sides. The jump must exceed STEP_SE_MULTIPLE standard errors of the difference of
 * the two sides' medians (5, not 2: the split is chosen as the best of hundreds, which inflates the largest
 * difference found in pure noise), and also STEP_NOISE_MULTIPLE per-sample noise widths (so that a tiny offset
 * made "significant" by thousands of samples is not called a step). Each side may drift by at most
 * STEP_DRIFT_RATIO of the jump: a ramp split in two drifts on each side by as much as it jumps in the middle.
 */
export const STEP_SE_MULTIPLE = 5;
export const STEP_NOISE_MULTIPLE = 1;
export const STEP_DRIFT_RATIO = 0.25;

// ---------------------------------------------------------------------------------------------------------------
// Results and series

/** Returned instead of a statistic when the input cannot support one. */
export interface NotEnoughData {
  readonly ok: false;
  /** Usable samples (finite x and y) found. */
  readonly n: number;
  readonly reason: string;
}

function notEnough(n: number, reason: string): NotEnoughData {
  return { ok: false, n, reason };
}

/** A cleaned series: finite values only, sorted by time. */
export interface Series {
  readonly xs: readonly number[];
  readonly ys: readonly number[];
}

/**
 * Drops pairs with a non-finite member, truncates to the shorter array and sorts by time (stable, so samples that
 * share a timestamp keep their order). Sorting is skipped when the input is already in order, the usual case.
 */
export function cleanSeries(xs: readonly number[], ys: readonly number[]): Series {
  const n = Math.min(xs.length, ys.length);
  const cx: number[] = [];
  const cy: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = xs[i];
    const y = ys[i];
    if (Number.isFinite(x) && Number.isFinite(y)) {
      cx.push(x as number);
      cy.push(y as number);
    }
  }
  if (isSorted(cx)) return { xs: cx, ys: cy };
  const order = cx.map((_, i) => i).sort((a, b) => cx[a]! - cx[b]! || a - b);
  return { xs: order.map((i) => cx[i]!), ys: order.map((i) => cy[i]!) };
}

function isSorted(values: readonly number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) return false;
  return true;
}

/** True when the series has at least two distinct times, the least a slope needs. */
function hasTimeSpan(s: Series): boolean {
  return s.xs.length > 1 && s.xs[s.xs.length - 1]! > s.xs[0]!;
}

/** The time a fraction f of the way through the window (overflow-safe, so a window of ±1e308 s still works). */
function timeAt(s: Series, f: number): number {
  return lerp(s.xs[0]!, s.xs[s.xs.length - 1]!, f);
}

/** Window length in seconds (saturated). */
function windowLength(s: Series): number {
  return saturate(s.xs[s.xs.length - 1]! - s.xs[0]!);
}

/** The samples with from <= x < to (xs sorted). */
export function sliceByTime(s: Series, from: number, to = Infinity): Series {
  const start = lowerBound(s.xs, from);
  const end = lowerBound(s.xs, to);
  return { xs: s.xs.slice(start, end), ys: s.ys.slice(start, end) };
}

/** First index whose value is >= target, in a sorted array. */
function lowerBound(sorted: readonly number[], target: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Reduces a long series to at most maxPoints by replacing consecutive equal-count bins with (median x, median y).
 * Medians, not means, so a transient ±100 MB jump inside a bin does not move the bin. Shorter series come back
 * unchanged.
 */
export function thin(s: Series, maxPoints: number): Series {
  const n = s.xs.length;
  const bins = Math.floor(maxPoints);
  if (!(bins >= 1) || n <= bins) return s;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let b = 0; b < bins; b++) {
    const start = Math.floor((b * n) / bins);
    const end = Math.floor(((b + 1) * n) / bins);
    xs.push(median(s.xs.slice(start, end))!);
    ys.push(median(s.ys.slice(start, end))!);
  }
  return { xs, ys };
}

// ---------------------------------------------------------------------------------------------------------------
// Arithmetic that cannot overflow into NaN

const MAX = Number.MAX_VALUE;

function saturate(v: number): number {
  return v > MAX ? MAX : v < -MAX ? -MAX : v;
}

/** a + (b − a)·f written so that it neither overflows (b − a can exceed MAX) nor returns NaN for a === b. */
function lerp(a: number, b: number, f: number): number {
  return a === b || f === 0 ? a : saturate(a * (1 - f) + b * f);
}

/** (y2 − y1) / (x2 − x1) for x2 > x1; halves the operands when a difference would overflow. */
function slopeBetween(x1: number, y1: number, x2: number, y2: number): number {
  let dx = x2 - x1;
  let dy = y2 - y1;
  if (!Number.isFinite(dx) || !Number.isFinite(dy)) {
    dx = x2 / 2 - x1 / 2;
    dy = y2 / 2 - y1 / 2;
  }
  return saturate(dy / dx);
}

// ---------------------------------------------------------------------------------------------------------------
// Order statistics. Non-finite entries are ignored; an empty input gives undefined.

function sortedFinite(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v)) out[k++] = v as number;
  }
  return out.subarray(0, k).sort();
}

/** Quantile p of an ascending, non-empty array, interpolating linearly between order statistics (R's type 7). */
function quantileOfSorted(sorted: Float64Array, p: number): number {
  const pos = Math.min(1, Math.max(0, p)) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return lerp(sorted[lo]!, sorted[hi]!, pos - lo);
}

/** Quantile p (clamped to [0, 1]) of the finite values, interpolated (R's type 7); undefined if there are none. */
export function quantile(values: ArrayLike<number>, p: number): number | undefined {
  if (Number.isNaN(p)) return undefined;
  const sorted = sortedFinite(values);
  return sorted.length === 0 ? undefined : quantileOfSorted(sorted, p);
}

export function median(values: ArrayLike<number>): number | undefined {
  return quantile(values, 0.5);
}

/**
 * Median absolute deviation from the median, scaled by 1.4826 so that it estimates the standard deviation of
 * Gaussian noise. It is the noise scale used throughout because spikes do not move it until they are half the
 * samples.
 */
export function mad(values: ArrayLike<number>): number | undefined {
  const center = median(values);
  if (center === undefined) return undefined;
  const deviations: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v)) deviations.push(Math.abs(saturate((v as number) - center)));
  }
  return saturate(median(deviations)! * MAD_SCALE);
}

// ---------------------------------------------------------------------------------------------------------------
// The normal distribution

/** Horner's rule, coefficients from the highest power down. */
function polynomial(coefficients: readonly number[], x: number): number {
  return coefficients.reduce((sum, c) => sum * x + c, 0);
}

/** Numerical Recipes' erfcc: erfc(z) = t·exp(−z² + P(t)) with t = 1 / (1 + z/2), P of degree 9. */
const ERFC_P = [
  0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196, 1.00002368,
  -1.26551223,
];

/**
 * Complementary error function, Chebyshev fit from Numerical Recipes (erfcc): relative error below 1.2e-7 for
 * every x, so normalCdf is within 1e-7 absolute and the tiny p-values of long series keep ~7 significant digits.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z + polynomial(ERFC_P, t));
  return x >= 0 ? r : 2 - r;
}

/** Φ(z), the standard normal CDF. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

// Acklam's coefficients: central region numerator / denominator, tails numerator / denominator.
const ACKLAM_A = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
];
const ACKLAM_B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572, 1];
const ACKLAM_C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const ACKLAM_D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416, 1];
const ACKLAM_TAIL = 0.02425;

/**
 * Φ⁻¹(p), Acklam's rational approximation (relative error below 1.2e-9). Only used to turn a confidence level
 * into a z value, so ±Infinity at p = 0 or 1 and NaN outside [0, 1] are acceptable answers.
 */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const tail = (q: number) => polynomial(ACKLAM_C, q) / polynomial(ACKLAM_D, q);
  if (p < ACKLAM_TAIL) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - ACKLAM_TAIL) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  return (q * polynomial(ACKLAM_A, q * q)) / polynomial(ACKLAM_B, q * q);
}

/** The confidence level actually used: an unusable one (NaN, 0, 1, out of range) falls back to 95%. */
function confidenceLevel(confidence: number): number {
  return confidence > 0 && confidence < 1 ? confidence : DEFAULT_CONFIDENCE;
}

/** z for a two-sided interval of the given confidence. */
function twoSidedZ(confidence: number): number {
  return normalQuantile(1 - (1 - confidenceLevel(confidence)) / 2);
}

// ---------------------------------------------------------------------------------------------------------------
// Mann–Kendall

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

function tieSums(sorted: ArrayLike<number>): TieSums {
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

interface KendallCounts {
  readonly n: number;
  readonly s: number;
  readonly varS: number;
  readonly tau: number;
  /** Pairs with different times: the pairs Theil–Sen takes slopes of. */
  readonly distinctTimePairs: number;
}

/**
 * S and its null variance in O(n log n) (Knight's algorithm, as in SciPy's kendalltau), so 260,000 samples need
 * no subsampling: xs are sorted, ys become dense ranks, and a Fenwick tree counts, for each sample, the earlier
 * samples (strictly earlier time) with a larger value — the discordant pairs. Concordant pairs follow from the
 * total minus the tied ones.
 */
function kendallCounts(s: Series): KendallCounts {
  const { xs, ys } = s;
  const n = xs.length;
  const ySorted = Float64Array.from(ys).sort();
  const distinctY = uniqueSorted(ySorted);
  const ranks = Int32Array.from(ys, (y) => lowerBound(distinctY, y) + 1);
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
  const tree = new Int32Array(rankCount + 1);
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

function checkTrendInput(s: Series): NotEnoughData | undefined {
  if (s.xs.length < MIN_TREND_POINTS) return notEnough(s.xs.length, `needs at least ${MIN_TREND_POINTS} samples`);
  if (!hasTimeSpan(s)) return notEnough(s.xs.length, "all samples have the same time");
  return undefined;
}

function mannKendallOf(counts: KendallCounts): MannKendall {
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

// ---------------------------------------------------------------------------------------------------------------
// Theil–Sen

export interface TheilSen {
  readonly ok: true;
  readonly n: number;
  /** Median of the pairwise slopes, bytes per second. */
  readonly slope: number;
  /** Median of y − slope·x: the line's value at x = 0 (pass times relative to the start for a readable value). */
  readonly intercept: number;
  /** Sen's confidence interval for the slope. */
  readonly low: number;
  readonly high: number;
  readonly confidence: number;
  /** Pairwise slopes actually used; fewer than all pairs when `sampled`. */
  readonly pairs: number;
  readonly sampled: boolean;
}

export interface TheilSenOptions {
  /** Level of the slope interval, in (0, 1); default 0.95. */
  readonly confidence?: number;
}

/**
 * All slopes between samples with different times, ascending. Above MAX_EXACT_PAIRS pairs, SAMPLED_PAIRS pairs are
 * drawn uniformly (fixed seed): index i uniformly, then j uniformly among the samples whose time differs from
 * x_i. With distinct timestamps that is exactly uniform over pairs; with a few shared timestamps, nearly so.
 */
function pairwiseSlopes(s: Series, distinctTimePairs: number): { slopes: Float64Array; sampled: boolean } {
  const n = s.xs.length;
  if ((n * (n - 1)) / 2 <= MAX_EXACT_PAIRS) return { slopes: allSlopes(s, distinctTimePairs), sampled: false };
  return { slopes: sampledSlopes(s, SAMPLED_PAIRS), sampled: true };
}

function allSlopes(s: Series, count: number): Float64Array {
  const { xs, ys } = s;
  const out = new Float64Array(count);
  let k = 0;
  for (let i = 0; i < xs.length; i++) {
    for (let j = i + 1; j < xs.length; j++) {
      if (xs[j]! > xs[i]!) out[k++] = slopeBetween(xs[i]!, ys[i]!, xs[j]!, ys[j]!);
    }
  }
  return out.subarray(0, k).sort();
}

function sampledSlopes(s: Series, count: number): Float64Array {
  const { xs, ys } = s;
  const n = xs.length;
  const [blockStart, blockEnd] = equalTimeBlocks(xs);
  const random = mulberry32(PAIR_SAMPLER_SEED);
  const out = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    const i = Math.floor(random() * n);
    const lo = blockStart[i]!;
    const hi = blockEnd[i]!;
    let j = Math.floor(random() * (n - (hi - lo)));
    if (j >= lo) j += hi - lo;
    const [a, b] = i < j ? [i, j] : [j, i];
    out[k] = slopeBetween(xs[a]!, ys[a]!, xs[b]!, ys[b]!);
  }
  return out.sort();
}

/** For each index, the [start, end) range of indices sharing its time (xs sorted). */
function equalTimeBlocks(xs: readonly number[]): [Int32Array, Int32Array] {
  const start = new Int32Array(xs.length);
  const end = new Int32Array(xs.length);
  let i = 0;
  while (i < xs.length) {
    let j = i + 1;
    while (j < xs.length && xs[j] === xs[i]) j++;
    start.fill(i, i, j);
    end.fill(j, i, j);
    i = j;
  }
  return [start, end];
}

/**
 * Sen's (1968) interval, as in Gilbert (1987): with C = z·√Var(S) and N pairs, the bounds are the slopes of
 * (1-based) rank (N − C)/2 and (N + C)/2 + 1, interpolated between neighbours and clamped to the extremes. When
 * the slopes were sampled, a rank r of N maps to the same quantile (r − 1)/(N − 1) of the sample.
 */
function senInterval(sorted: Float64Array, totalPairs: number, varS: number, confidence: number): [number, number] {
  const c = twoSidedZ(confidence) * Math.sqrt(varS);
  const atRank = (rank: number) => quantileOfSorted(sorted, totalPairs > 1 ? (rank - 1) / (totalPairs - 1) : 0.5);
  return [atRank((totalPairs - c) / 2), atRank((totalPairs + c) / 2 + 1)];
}

function theilSenOf(s: Series, counts: KendallCounts, confidence: number): TheilSen {
  const { slopes, sampled } = pairwiseSlopes(s, counts.distinctTimePairs);
  const slope = quantileOfSorted(slopes, 0.5);
  const offsets = s.xs.map((x, i) => saturate(s.ys[i]! - saturate(slope * x)));
  const [low, high] = senInterval(slopes, counts.distinctTimePairs, counts.varS, confidence);
  return {
    ok: true,
    n: s.xs.length,
    slope,
    intercept: median(offsets)!,
    low: Math.min(low, slope),
    high: Math.max(high, slope),
    confidence: confidenceLevel(confidence),
    pairs: slopes.length,
    sampled,
  };
}

/**
 * Theil–Sen line: slope = median of the slopes between all pairs of samples with different times, intercept =
 * median of y − slope·x. Robust: up to 29% of the samples can be arbitrarily wrong (spikes, a GC drop) before
 * they can drag the slope anywhere. Exact up to MAX_EXACT_PAIRS pairs, sampled above (see pairwiseSlopes); the
 * variance behind the interval is always computed exactly on the full series (see kendallCounts).
 */
export function theilSen(
  xs: readonly number[],
  ys: readonly number[],
  options: TheilSenOptions = {},
): TheilSen | NotEnoughData {
  const s = cleanSeries(xs, ys);
  return checkTrendInput(s) ?? theilSenOf(s, kendallCounts(s), options.confidence ?? DEFAULT_CONFIDENCE);
}

// ---------------------------------------------------------------------------------------------------------------
// Trend decision

export type Direction = "increasing" | "decreasing" | "none";

export interface Trend {
  readonly ok: true;
  readonly direction: Direction;
  /** Mann–Kendall and Theil–Sen of the block means the decision was made on (see trendTest). */
  readonly mannKendall: MannKendall;
  readonly theilSen: TheilSen;
  /** Number of block means tested: TREND_BLOCKS, or the sample count when there are fewer samples. */
  readonly blocks: number;
}

export interface TrendOptions extends TheilSenOptions {
  /** Significance level; default DEFAULT_ALPHA (0.01). */
  readonly alpha?: number;
  /** Smallest |slope| in bytes/s worth calling a trend; default 0 (significance alone). */
  readonly minSlope?: number;
}

/**
 * Decides increasing / decreasing / none: "increasing" when Mann–Kendall rejects "no trend" at alpha AND the
 * Theil–Sen slope is positive and at least minSlope (mirror image for "decreasing"). Both, because they answer
 * different questions: Mann–Kendall whether later samples tend to be larger (robust, blind to size), Theil–Sen by
 * how much per second; minSlope is where the caller says what size is worth reporting.
 *
 * Both are computed on TREND_BLOCKS block means, not on the raw samples. The raw Mann–Kendall test is wrong for
 * memory in two ways: (1) a GC sawtooth rises slowly and falls at once, so pairs of nearby samples are mostly
 * concordant and S is biased upwards: a flat 60 s sawtooth over 600 s gives p ≈ 5e-4 and a "leak" of 0.05 MB/s,
 * depending on where the window starts in the cycle; (2) its variance assumes independent samples, so slowly
 * wandering noise looks significant on long series. A block mean averages whole GC cycles (teeth up to a quarter of
 * the window were checked) and most of the short-range correlation, leaving the level.
 */
export function trendTest(
  xs: readonly number[],
  ys: readonly number[],
  options: TrendOptions = {},
): Trend | NotEnoughData {
  const s = cleanSeries(xs, ys);
  const problem = checkTrendInput(s);
  if (problem) return problem;
  const fitted = blockFit(s, options.confidence ?? DEFAULT_CONFIDENCE);
  if (!fitted) return notEnough(s.xs.length, "too few distinct times");
  return { ok: true, direction: direction(fitted, options), ...fitted };
}

interface BlockFit {
  readonly mannKendall: MannKendall;
  readonly theilSen: TheilSen;
  readonly blocks: number;
}

function blockFit(s: Series, confidence: number): BlockFit | undefined {
  const blocks = blockMeans(s, TREND_BLOCKS);
  if (checkTrendInput(blocks)) return undefined;
  const counts = kendallCounts(blocks);
  const theilSen = theilSenOf(blocks, counts, confidence);
  return { mannKendall: mannKendallOf(counts), theilSen, blocks: blocks.xs.length };
}

/**
 * (mean x, mean y) of `count` equal stretches of time; empty stretches (gaps) are skipped. Means, not medians: the
 * mean over whole cycles of a periodic pattern is its level whatever the phase, a median is not. A series with no
 * more samples than blocks is returned as it is.
 */
export function blockMeans(s: Series, count: number): Series {
  const n = s.xs.length;
  if (n <= count || !hasTimeSpan(s)) return s;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let b = 0; b < count; b++) {
    const from = lowerBound(s.xs, timeAt(s, b / count));
    const to = b === count - 1 ? n : lowerBound(s.xs, timeAt(s, (b + 1) / count));
    if (to <= from) continue;
    xs.push(mean(s.xs, from, to));
    ys.push(mean(s.ys, from, to));
  }
  return { xs, ys };
}

/** Running mean of values[from, to): never overflows, unlike sum / count. */
function mean(values: readonly number[], from: number, to: number): number {
  let m = 0;
  for (let i = from; i < to; i++) m = saturate(m + (values[i]! - m) / (i - from + 1));
  return m;
}

function direction(fit: BlockFit, options: TrendOptions): Direction {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const floor = Math.max(0, options.minSlope ?? 0);
  const { mannKendall: mk, theilSen: ts } = fit;
  if (!(mk.p < alpha)) return "none";
  if (mk.s > 0 && ts.slope > 0 && ts.slope >= floor) return "increasing";
  if (mk.s < 0 && ts.slope < 0 && -ts.slope >= floor) return "decreasing";
  return "none";
}

// ---------------------------------------------------------------------------------------------------------------
// Plateau

/**
 * flat: the series did not grow (nothing to level off from: stable, sawtooth, transient jumps).
 * growing: it grew and the tail shows no convincing slow-down.
 * plateau: it grew, and the tail grows, with 95% confidence, at under PLATEAU_RATE_RATIO of the overall rate.
 */
export type PlateauState = "flat" | "growing" | "plateau";

export interface Plateau {
  readonly ok: true;
  readonly state: PlateauState;
  readonly plateaued: boolean;
  /** When plateaued: the time from which the series stays within noise of the tail's line (see levelledFrom). */
  readonly levelFrom: number | undefined;
  /** Theil–Sen slopes (bytes/s) of the first and last thirds of the window. */
  readonly earlySlope: number;
  readonly tailSlope: number;
  /** Upper bound of the tail slope's 95% interval: what the plateau call is made on. */
  readonly tailSlopeHigh: number;
  /** Mann–Kendall p-value of the tail alone. */
  readonly tailP: number;
  /** median(last third) − median(first third), bytes. */
  readonly rise: number;
  /** rise / time between the thirds' median times: the average growth rate, bytes/s. */
  readonly growthRate: number;
  /** Robust spread (MAD) of the samples around the whole window's Theil–Sen line, bytes. */
  readonly noise: number;
  /** Mann–Kendall p-value of the whole window. */
  readonly p: number;
}

export interface PlateauOptions {
  readonly alpha?: number;
  /** Tail-to-overall rate ratio under which growth counts as stopped; default PLATEAU_RATE_RATIO. */
  readonly ratio?: number;
  /** Smallest rise in bytes that counts as growth; default 0 (significance alone). */
  readonly minRise?: number;
}

interface Fit {
  readonly mk: MannKendall;
  readonly ts: TheilSen;
}

function fit(s: Series): Fit | undefined {
  if (checkTrendInput(s)) return undefined;
  const counts = kendallCounts(s);
  return { mk: mannKendallOf(counts), ts: theilSenOf(s, counts, DEFAULT_CONFIDENCE) };
}

/**
 * Decides whether a series that grew has levelled off. LEVELS say whether it grew, RATES whether it stopped:
 * 1. Grew: Mann–Kendall over the whole window says increasing (p < alpha, S > 0), and the median of the last third
 *    exceeds the median of the first third by more than GREW_NOISE_MULTIPLE × the noise (the MAD of the samples
 *    around the whole window's Theil–Sen line) and by minRise. Levels, not the first third's slope, because a step
 *    or a fast warm-up grows outside the first third's slope and still grew. The noise condition keeps a sawtooth
 *    "flat": where a third starts in the cycle shifts its median by a fraction of a tooth, which hundreds of
 *    samples make "significant", but not by the teeth's whole spread (measured: rise ≈ 0.3 × noise for a 60 s
 *    sawtooth over 600 s, against 2.4 or more for the leaks, fills and steps of SCENARIOS).
 * 2. Stopped: the upper bound of the last third's Theil–Sen interval is below PLATEAU_RATE_RATIO × the overall
 *    growth rate (rise / time between the thirds' middles). A bounded cache that filled is then a plateau; a leak,
 *    even a noisy one, is not, because its tail interval contains its own rate.
 * 3. levelFrom: where the series came within noise of the tail's line for good (see levelledFrom).
 * The tail should span several GC cycles for its slope to mean anything.
 */
export function detectPlateau(
  xs: readonly number[],
  ys: readonly number[],
  options: PlateauOptions = {},
): Plateau | NotEnoughData {
  const s = thin(cleanSeries(xs, ys), SHAPE_MAX_POINTS);
  if (s.xs.length < MIN_SHAPE_POINTS) return notEnough(s.xs.length, `needs at least ${MIN_SHAPE_POINTS} samples`);
  const head = sliceByTime(s, -Infinity, timeAt(s, 1 / 3));
  const tail = sliceByTime(s, timeAt(s, 2 / 3));
  const whole = fit(s);
  const early = fit(head);
  const late = fit(tail);
  if (!whole || !early || !late) return notEnough(s.xs.length, "too few samples in the first or last third");

  const rise = saturate(median(tail.ys)! - median(head.ys)!);
  const growthRate = saturate(rise / (median(tail.xs)! - median(head.xs)!));
  const noise = mad(residuals(s, whole.ts))!;
  const riseFloor = Math.max(GREW_NOISE_MULTIPLE * noise, options.minRise ?? 0);
  const grew = whole.mk.p < (options.alpha ?? DEFAULT_ALPHA) && whole.mk.s > 0 && rise > riseFloor;
  const limit = (options.ratio ?? PLATEAU_RATE_RATIO) * growthRate;
  const stopped = grew && late.ts.high < limit;
  const state: PlateauState = !grew ? "flat" : stopped ? "plateau" : "growing";
  return {
    ok: true,
    state,
    plateaued: stopped,
    levelFrom: stopped ? levelledFrom(s, tail, late.ts) : undefined,
    earlySlope: early.ts.slope,
    tailSlope: late.ts.slope,
    tailSlopeHigh: late.ts.high,
    tailP: late.mk.p,
    rise,
    growthRate,
    noise,
    p: whole.mk.p,
  };
}

/** y − (intercept + slope·x) for each sample. */
function residuals(s: Series, line: TheilSen): number[] {
  return s.xs.map((x, i) => saturate(s.ys[i]! - saturate(line.intercept + saturate(line.slope * x))));
}

/**
 * Where the final level was reached: the tail's line is extrapolated back over the whole window, and the scan walks
 * back from the end over the blocks that sit within TRANSIENT_NOISE_MULTIPLE noise widths of it. The robust slope
 * alone cannot place the knee: a stretch that is 3/4 flat and 1/4 ramp still has a near-zero median slope.
 */
function levelledFrom(s: Series, tail: Series, line: TheilSen): number {
  const offsets = residuals(s, line);
  const noise = mad(residuals(tail, line))!;
  const threshold = Math.max(TRANSIENT_NOISE_MULTIPLE * noise, roundingFloor(s.ys));
  const blocks = scanBlockCount(s.xs.length);
  let first = blocks;
  for (let b = blocks - 1; b >= 0; b--) {
    const offset = blockOffset(s, offsets, b, blocks);
    if (offset !== undefined && Math.abs(offset) > threshold) break;
    first = b;
  }
  return timeAt(s, first / blocks);
}

// ---------------------------------------------------------------------------------------------------------------
// Block scans shared by the plateau and warm-up detectors (see TRANSIENT_NOISE_MULTIPLE)

function scanBlockCount(n: number): number {
  return Math.max(4, Math.min(100, Math.floor(n / 3)));
}

/** Median of the offsets in block b of `count` equal time blocks; undefined for an empty block (a sampling gap). */
function blockOffset(s: Series, offsets: readonly number[], b: number, count: number): number | undefined {
  const from = lowerBound(s.xs, timeAt(s, b / count));
  const to = b === count - 1 ? s.xs.length : lowerBound(s.xs, timeAt(s, (b + 1) / count));
  return median(offsets.slice(from, to));
}

/** A residual this small is rounding, not a transient (matters only for noise-free synthetic data). */
function roundingFloor(ys: readonly number[]): number {
  let largest = 0;
  for (const y of ys) largest = Math.max(largest, Math.abs(y));
  return largest * 1e-9;
}

// ---------------------------------------------------------------------------------------------------------------
// Warm-up

export interface Warmup {
  readonly ok: true;
  /** Seconds to leave out at the start (0 when there is no warm-up). */
  readonly seconds: number;
  /** Time at which the steady regime starts: first time + seconds. */
  readonly until: number;
  /** True when the transient was still going at the cap: the window may not contain a steady regime at all. */
  readonly capped: boolean;
  /** Theil–Sen slope of the second half, the steady regime the start was compared with. */
  readonly steadySlope: number;
  /** Robust noise scale (MAD) of the second half around its line, bytes. */
  readonly noise: number;
}

export interface WarmupOptions {
  /** Largest fraction of the window that may be called warm-up; default WARMUP_MAX_FRACTION (0.25). */
  readonly maxFraction?: number;
  /** Block-median offset, in noise widths, beyond which a block is still warm-up; default TRANSIENT_NOISE_MULTIPLE. */
  readonly noiseMultiple?: number;
}

/**
 * Suggests how much of the start to leave out. Method: the second half of the window is taken as the steady
 * regime (safe, because warm-up is capped at a quarter) and fitted with Theil–Sen; its residual MAD is the noise
 * scale. The line is extrapolated back over the start, and the warm-up lasts while consecutive time blocks from
 * the start have a median residual more than TRANSIENT_NOISE_MULTIPLE noise widths off the line (blocks: see
 * there). Early fast growth (imports, a model load, a cache warming) sits below the back-extrapolated line; a
 * start-up spike that is later freed sits above it; both bias the slope and both are cut. Block medians, so one
 * transient jump inside a block does not extend the warm-up.
 */
export function detectWarmup(
  xs: readonly number[],
  ys: readonly number[],
  options: WarmupOptions = {},
): Warmup | NotEnoughData {
  const s = cleanSeries(xs, ys);
  const n = s.xs.length;
  if (n < MIN_SHAPE_POINTS) return notEnough(n, `needs at least ${MIN_SHAPE_POINTS} samples`);
  const steady = sliceByTime(s, timeAt(s, 1 / 2));
  const line = checkTrendInput(steady) ? undefined : theilSen(steady.xs, steady.ys);
  if (!line?.ok) return notEnough(n, "too few samples in the second half");

  const offsets = residuals(s, line);
  const noise = mad(offsets.slice(n - steady.xs.length))!;
  const threshold = Math.max((options.noiseMultiple ?? TRANSIENT_NOISE_MULTIPLE) * noise, roundingFloor(s.ys));
  const requested = options.maxFraction ?? WARMUP_MAX_FRACTION;
  const cap = Number.isFinite(requested) ? Math.min(1, Math.max(0, requested)) : WARMUP_MAX_FRACTION;
  const off = transientFraction(s, offsets, threshold, cap);
  const cut = Math.min(off, cap);
  return {
    ok: true,
    seconds: saturate(windowLength(s) * cut),
    until: timeAt(s, cut),
    capped: off > cap,
    steadySlope: line.slope,
    noise,
  };
}

/** Fraction of the window covered by the run of off-line blocks at the start; the walk stops past the cap. */
function transientFraction(s: Series, offsets: readonly number[], threshold: number, cap: number): number {
  const blocks = scanBlockCount(s.xs.length);
  let off = 0;
  for (let b = 0; b < blocks && b / blocks <= cap; b++) {
    const offset = blockOffset(s, offsets, b, blocks);
    if (offset === undefined) continue; // a gap in sampling says nothing either way
    if (!(Math.abs(offset) > threshold)) break;
    off = (b + 1) / blocks;
  }
  return off;
}

// ---------------------------------------------------------------------------------------------------------------
// Step

export interface Step {
  readonly ok: true;
  /** One jump between two flat stretches (see STEP_* thresholds). */
  readonly isStep: boolean;
  /** Time of the best split: midway between the last sample before it and the first after. */
  readonly at: number;
  /** median(after) − median(before), bytes. */
  readonly jump: number;
  /** Theil–Sen slopes of the two sides, bytes/s. */
  readonly beforeSlope: number;
  readonly afterSlope: number;
  /** Largest |slope × duration| of the two sides: how much each side moves on its own, bytes. */
  readonly drift: number;
  /** Robust noise scale of the samples around their side's median, bytes. */
  readonly noise: number;
}

/**
 * Distinguishes "one jump, then flat" (a one-off allocation: a model loaded, a cache sized at start) from a ramp.
 * The split is the one that minimises the total absolute deviation of each side from its own median (a robust
 * change-in-level fit; transient spikes barely affect it). It is a step when the jump is clear of the noise and
 * neither side drifts by more than a quarter of the jump: a ramp split anywhere drifts on each side by about as
 * much as it jumps at the split, a step's sides do not drift at all.
 */
export function detectStep(xs: readonly number[], ys: readonly number[]): Step | NotEnoughData {
  const s = thin(cleanSeries(xs, ys), SHAPE_MAX_POINTS);
  const n = s.xs.length;
  if (n < MIN_SHAPE_POINTS) return notEnough(n, `needs at least ${MIN_SHAPE_POINTS} samples`);
  const k = bestSplit(s.ys, Math.max(5, Math.ceil(n * 0.05)));
  const before: Series = { xs: s.xs.slice(0, k), ys: s.ys.slice(0, k) };
  const after: Series = { xs: s.xs.slice(k), ys: s.ys.slice(k) };
  const beforeLine = theilSen(before.xs, before.ys);
  const afterLine = theilSen(after.xs, after.ys);
  if (!beforeLine.ok || !afterLine.ok) return notEnough(n, "a side of the split has no time span");

  const levelBefore = median(before.ys)!;
  const levelAfter = median(after.ys)!;
  const jump = saturate(levelAfter - levelBefore);
  const noise = mad([...offsetsFrom(before.ys, levelBefore), ...offsetsFrom(after.ys, levelAfter)])!;
  const standardError = MEDIAN_SE_FACTOR * noise * Math.sqrt(1 / before.xs.length + 1 / after.xs.length);
  const drift = Math.max(Math.abs(beforeLine.slope * duration(before)), Math.abs(afterLine.slope * duration(after)));
  const size = Math.abs(jump);
  const isStep =
    size > STEP_SE_MULTIPLE * standardError && size > STEP_NOISE_MULTIPLE * noise && drift < STEP_DRIFT_RATIO * size;
  return {
    ok: true,
    isStep,
    at: lerp(before.xs[before.xs.length - 1]!, after.xs[0]!, 0.5),
    jump,
    beforeSlope: beforeLine.slope,
    afterSlope: afterLine.slope,
    drift: saturate(drift),
    noise,
  };
}

function offsetsFrom(values: readonly number[], level: number): number[] {
  return values.map((v) => saturate(v - level));
}

/** A median of Gaussian samples is √(π/2) times as uncertain as their mean. */
const MEDIAN_SE_FACTOR = Math.sqrt(Math.PI / 2);

function duration(s: Series): number {
  return saturate(s.xs[s.xs.length - 1]! - s.xs[0]!);
}

/** Index k (minSide <= k <= n − minSide) minimising Σ|y − median| over [0, k) plus over [k, n). */
function bestSplit(ys: readonly number[], minSide: number): number {
  let best = minSide;
  let bestCost = Infinity;
  for (let k = minSide; k <= ys.length - minSide; k++) {
    const cost = saturate(absoluteDeviation(ys.slice(0, k)) + absoluteDeviation(ys.slice(k)));
    if (cost < bestCost) {
      bestCost = cost;
      best = k;
    }
  }
  return best;
}

function absoluteDeviation(values: readonly number[]): number {
  const center = median(values)!;
  let sum = 0;
  for (const v of values) sum = saturate(sum + Math.abs(saturate(v - center)));
  return sum;
}

// ---------------------------------------------------------------------------------------------------------------
// Randomness

/**
 * mulberry32: a 32-bit PRNG, a few lines and fast; ample for drawing pairs and synthetic noise (nothing here is
 * cryptographic). Same seed, same sequence, on every platform, which is what makes results reproducible.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
