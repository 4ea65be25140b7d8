/**
 * Theil–Sen slope (median of pairwise slopes) with Sen's confidence interval; exact up to MAX_EXACT_PAIRS pairs,
 * sampled with a fixed seed beyond.
 */
import { type KendallCounts, checkTrendInput, kendallCounts, tieSums } from "./mann-kendall.js";
import { DEFAULT_CONFIDENCE, confidenceLevel, twoSidedZ } from "./normal.js";
import { median, quantileInPlace, quantilesInPlace } from "./quantiles.js";
import { saturate, slopeBetween } from "./saturating.js";
import { float64Scratch } from "./scratch.js";
import { type NotEnoughData, type Series, cleanSeries } from "./window.js";

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
 * All slopes between samples with different times, in no order (the quantiles are selected, not sorted for).
 * Above MAX_EXACT_PAIRS pairs, SAMPLED_PAIRS pairs are drawn uniformly (fixed seed): index i uniformly, then j
 * uniformly among the samples whose time differs from x_i. With distinct timestamps that is exactly uniform over pairs; with a few shared timestamps, nearly so.
 */
function pairwiseSlopes(s: Series, distinctTimePairs: number): { slopes: Float64Array; sampled: boolean } {
  const n = s.xs.length;
  if ((n * (n - 1)) / 2 <= MAX_EXACT_PAIRS) return { slopes: allSlopes(s, distinctTimePairs), sampled: false };
  return { slopes: sampledSlopes(s, SAMPLED_PAIRS), sampled: true };
}

/**
 * Where the slopes are put: used by one Theil–Sen fit at a time (theilSenOf is done with them before it returns),
 * and the largest array a verdict needs (scratch.ts).
 */
const slopeSpace = float64Scratch();

function allSlopes(s: Series, count: number): Float64Array {
  const { xs, ys } = s;
  const out = slopeSpace(count);
  let k = 0;
  for (let i = 0; i < xs.length; i++) {
    for (let j = i + 1; j < xs.length; j++) {
      if (xs[j]! > xs[i]!) out[k++] = slopeBetween(xs[i]!, ys[i]!, xs[j]!, ys[j]!);
    }
  }
  return out.subarray(0, k);
}

/** sampledSlopes's copies of the series' times and values: typed, so that its loop reads one kind of array. */
const xSpace = float64Scratch();
const ySpace = float64Scratch();

function sampledSlopes(s: Series, count: number): Float64Array {
  const n = s.xs.length;
  const xs = xSpace(n);
  const ys = ySpace(n);
  for (let i = 0; i < n; i++) {
    xs[i] = s.xs[i]!;
    ys[i] = s.ys[i]!;
  }
  const pairs = drawnPairs(s.xs, count);
  const out = slopeSpace(count);
  for (let k = 0; k < count; k++) {
    const a = pairs[2 * k]!;
    const b = pairs[2 * k + 1]!;
    out[k] = slopeBetween(xs[a]!, ys[a]!, xs[b]!, ys[b]!);
  }
  return out;
}

/**
 * The pairs last drawn, and what they depend on: the number of samples and which of them share a time (the seed and
 * the count are fixed). Every container's warm-up line in one verdict is fitted on the same number of samples at
 * the same times, so its 200,000 pairs are the same pairs; drawing them was four fifths of a warm-up fit (§i‴).
 */
let lastDrawn: { n: number; count: number; blockStart: Int32Array; pairs: Int32Array } | undefined;

/**
 * `count` pairs of indices [a, b] (a < b, different times) side by side, drawn uniformly with mulberry32: index i
 * uniformly, then j uniformly among the samples whose time differs from x_i. With distinct timestamps that is exactly
 * uniform over pairs; with a few shared timestamps, nearly so.
 */
function drawnPairs(times: readonly number[], count: number): Int32Array {
  const n = times.length;
  const [blockStart, blockEnd] = equalTimeBlocks(times);
  if (lastDrawn && lastDrawn.n === n && lastDrawn.count === count && sameInts(lastDrawn.blockStart, blockStart))
    return lastDrawn.pairs;
  const pairs = lastDrawn?.pairs.length === 2 * count ? lastDrawn.pairs : new Int32Array(2 * count);
  // Whatever happens below, the cache must never describe pairs it does not hold.
  lastDrawn = undefined;
  // mulberry32(PAIR_SAMPLER_SEED) (random.ts), its step written out here: the same numbers, drawn twice per pair,
  // at half the cost of calling the generator's closure (bench §i″).
  let state = PAIR_SAMPLER_SEED >>> 0;
  for (let k = 0; k < count; k++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const i = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    const lo = blockStart[i]!;
    const tied = blockEnd[i]! - lo;
    state = (state + 0x6d2b79f5) >>> 0;
    t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    let j = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * (n - tied));
    if (j >= lo) j += tied;
    pairs[2 * k] = i < j ? i : j;
    pairs[2 * k + 1] = i < j ? j : i;
  }
  lastDrawn = { n, count, blockStart, pairs };
  return pairs;
}

function sameInts(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
 * the slopes were sampled, a rank r of N maps to the same quantile (r − 1)/(N − 1) of the sample. The quantiles of
 * its two bounds, beside the median's (0.5), for one selection of all three.
 */
function senQuantiles(totalPairs: number, varS: number, confidence: number): [number, number] {
  const c = twoSidedZ(confidence) * Math.sqrt(varS);
  const atRank = (rank: number) => (totalPairs > 1 ? (rank - 1) / (totalPairs - 1) : 0.5);
  return [atRank((totalPairs - c) / 2), atRank((totalPairs + c) / 2 + 1)];
}

/** The line's slope and intercept; and, given Sen's two quantiles, the interval's bounds, selected with the slope. */
function lineOf(
  s: Series,
  distinctTimePairs: number,
  interval?: [number, number],
): { slope: number; intercept: number; low: number; high: number; pairs: number; sampled: boolean } {
  const { slopes, sampled } = pairwiseSlopes(s, distinctTimePairs);
  const [slope, low, high] = interval
    ? (quantilesInPlace(slopes, [0.5, ...interval]) as [number, number, number])
    : [quantileInPlace(slopes, 0.5), NaN, NaN];
  const offsets = s.xs.map((x, i) => saturate(s.ys[i]! - saturate(slope * x)));
  return { slope, intercept: median(offsets)!, low, high, pairs: slopes.length, sampled };
}

export function theilSenOf(s: Series, counts: KendallCounts, confidence: number): TheilSen {
  const interval = senQuantiles(counts.distinctTimePairs, counts.varS, confidence);
  const { slope, intercept, low, high, pairs, sampled } = lineOf(s, counts.distinctTimePairs, interval);
  return {
    ok: true,
    n: s.xs.length,
    slope,
    intercept,
    low: Math.min(low, slope),
    high: Math.max(high, slope),
    confidence: confidenceLevel(confidence),
    pairs,
    sampled,
  };
}

/** The Theil–Sen line without its interval. */
export interface TheilSenLine {
  readonly ok: true;
  readonly slope: number;
  readonly intercept: number;
}

/**
 * theilSen's slope and intercept, the same numbers, without Sen's interval: its two order statistics of up to 200,000
 * slopes were two thirds of a fit's time, and a fit that only draws the line (warm-up's steady regime) never reads it.
 */
export function theilSenLine(xs: readonly number[], ys: readonly number[]): TheilSenLine | NotEnoughData {
  const s = cleanSeries(xs, ys);
  const refused = checkTrendInput(s);
  if (refused) return refused;
  const n = s.xs.length;
  const { slope, intercept } = lineOf(s, (n * (n - 1)) / 2 - tieSums(s.xs).pairs);
  return { ok: true, slope, intercept };
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
