/**
 * Pure statistics for the verdict engine: is a memory series leaking (sustained growth), on a plateau (it grew,
 * then levelled off) or stable (noise around a flat level, even with ±100 MB jumps that come back)? And, under swings
 * far larger than the growth, do the lows between them rise (envelope.ts)?
 *
 * Conventions shared by every module of stats/:
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

export { type NotEnoughData, type Series, cleanSeries, sliceByTime, thin } from "./window.js";
export { MAD_SCALE, quantile, median, mad } from "./quantiles.js";
export { DEFAULT_CONFIDENCE, erfc, normalCdf, normalQuantile } from "./normal.js";
export { MIN_TREND_POINTS, type MannKendall, mannKendall } from "./mann-kendall.js";
export { MAX_EXACT_PAIRS, SAMPLED_PAIRS, type TheilSen, type TheilSenOptions, theilSen } from "./theil-sen.js";
export {
  DEFAULT_ALPHA,
  TREND_BLOCKS,
  type Direction,
  type Trend,
  type TrendOptions,
  trendTest,
  blockMeans,
} from "./trend.js";
export {
  PLATEAU_RATE_RATIO,
  GREW_NOISE_MULTIPLE,
  type PlateauState,
  type Plateau,
  type PlateauOptions,
  detectPlateau,
} from "./plateau.js";
export {
  MIN_SHAPE_POINTS,
  SHAPE_MAX_POINTS,
  TRANSIENT_NOISE_MULTIPLE,
  LOWS_CHANGE_SHARE,
  LOWS_QUANTILE,
  lowsFollow,
} from "./shape.js";
export { ENVELOPE_ALPHA, type Envelope, blockMinima, lowerEnvelope } from "./envelope.js";
export { WARMUP_MAX_FRACTION, type Warmup, type WarmupOptions, detectWarmup } from "./warmup.js";
export { STEP_SE_MULTIPLE, STEP_NOISE_MULTIPLE, STEP_DRIFT_RATIO, type Step, detectStep } from "./step.js";
export { mulberry32 } from "./random.js";
