/**
 * When will it fall over: the time until a growing memory series reaches a limit, at its Theil–Sen trend, with the
 * range the slope's confidence interval gives. Pure: a series and the limits in, the projection out.
 *
 * Counted on what the kernel cannot reclaim (the caller passes that series: anon + shmem + unreclaimable kernel for a
 * cgroup, RssAnon for a process): clean page cache is dropped before the OOM killer runs, so a cache that fills a
 * container does not bring its end nearer, and `predict_linear` on usage would say it does.
 */
import { blockMeans, DEFAULT_ALPHA, TREND_BLOCKS, trendTest } from "./stats/trend.js";
import { twoSidedZ } from "./stats/normal.js";
import { sliceByTime, type Series } from "./stats/window.js";
import { quantile } from "./stats/quantiles.js";
import type { MemoryLimit, MetricName, TimeToLimit } from "./types.js";

export type TimeToLimitFacts = Omit<TimeToLimit, "summary">;

/**
 * How high above the trend line the usual peak is: the 95th percentile of the readings' rise above it. Not the
 * highest, which one outlier sets (the soonest end of the range takes that one).
 */
export const SWING_QUANTILE = 0.95;

export interface ProjectionInput {
  xs: readonly number[];
  ys: readonly number[];
  /** Seconds: the start of the analyzed window (after the warm-up). */
  from: number;
  metric: MetricName;
  counted: string;
  /** Limits of the counted memory (bytes it must not pass); unset ones left out. */
  limits: MemoryLimit[];
  /** The machine's MemAvailable at the end, when known: a limit at the level now + that. */
  machineAvailable?: number | undefined;
  /** Unix time of the first sample, milliseconds, when known (to date the projection). */
  t0?: number | undefined;
}

/**
 * The projection, or undefined when the counted memory does not grow (Mann–Kendall at DEFAULT_ALPHA and a positive
 * Theil–Sen slope, on block means: see stats/trend.ts) or there is no limit to grow towards.
 */
export function projectToLimit(input: ProjectionInput): TimeToLimitFacts | undefined {
  const window = sliceByTime({ xs: input.xs, ys: input.ys }, input.from);
  const trend = trendTest(window.xs, window.ys, { alpha: DEFAULT_ALPHA });
  if (!trend.ok || trend.direction !== "increasing") return undefined;
  const ts = trend.theilSen;
  const at = window.xs[window.xs.length - 1]!;
  // The trend line at the last reading, not the last reading: one GC drop or a batch's temporaries would move it.
  const level = Math.max(0, ts.intercept + ts.slope * at);
  // The OOM killer comes when a peak reaches the limit, not the trend line: a service's per-request temporaries ride
  // above it. The estimate counts the usual peak (SWING_QUANTILE of the readings' rise above the line), the soonest
  // end the highest, the latest end none (measured: 8 × 0.25–4 MiB of temporaries over a 6 MiB/s leak under 300 MiB
  // were killed 0.9 s before the line's time, outside its slope-only range of 23–25 s).
  const steps = stepSpread(window);
  const z = twoSidedZ(ts.confidence);
  // Sen's interval assumes readings scattered independently about a line; a leak's increments are what is random
  // (requests arrive and keep what they keep), so its deviations wander, and the line's slope is less sure than
  // Sen's interval says. The interval of the mean block-to-block slope covers that; the wider of the two is used.
  const slopeLow = steps ? Math.min(ts.low, steps.mean - z * steps.se) : ts.low;
  const slopeHigh = steps ? Math.max(ts.high, steps.mean + z * steps.se) : ts.high;
  const residuals = window.xs.map((x, i) => window.ys[i]! - (ts.intercept + ts.slope * x));
  const swing = Math.max(0, quantile(residuals, SWING_QUANTILE) ?? 0);
  const highest = Math.max(0, ...residuals);
  const limits = [...input.limits];
  if (input.machineAvailable !== undefined)
    limits.push({ kind: "machine", source: "MemAvailable", bytes: level + input.machineAvailable });
  if (limits.length === 0) return undefined;
  limits.sort((a, b) => a.bytes - b.bytes);
  const [limit, ...otherLimits] = limits as [MemoryLimit, ...MemoryLimit[]];
  const headroom = Math.max(0, limit.bytes - level);
  const room = (above: number) => Math.max(0, headroom - above);
  // And the increments still to come wander too: by z · their spread · √(time to go), around the estimate's time.
  const ahead = steps ? z * steps.perRootSecond * Math.sqrt(room(swing) / ts.slope) : 0;
  const out: TimeToLimitFacts = {
    limit,
    otherLimits,
    metric: input.metric,
    counted: input.counted,
    level: Math.round(level),
    headroom: Math.round(headroom),
    swing: Math.round(swing),
    bytesPerSecond: ts.slope,
    slopeLow,
    slopeHigh,
    confidence: ts.confidence,
    seconds: room(swing) / ts.slope,
    secondsMin: room(highest + ahead) / slopeHigh,
    // The interval's slow end may be no growth at all: then the limit may never come, and the range says so.
    secondsMax: slopeLow > 0 ? (headroom + ahead) / slopeLow : null,
    at: Number(at.toFixed(3)),
  };
  if (input.t0 !== undefined) out.atUnix = Number(((input.t0 + at * 1000) / 1000).toFixed(3));
  return out;
}

/**
 * The slopes from each block mean to the next (TREND_BLOCKS blocks, as the trend test): their mean, its standard
 * error, and the spread of the increments per √second (a block-to-block slope's spread × √(block length)). Undefined
 * with fewer than 3 blocks.
 */
function stepSpread(window: Series): { mean: number; se: number; perRootSecond: number } | undefined {
  const b = blockMeans(window, TREND_BLOCKS);
  const k = b.xs.length;
  if (k < 3) return undefined;
  const slopes: number[] = [];
  for (let i = 1; i < k; i++) slopes.push((b.ys[i]! - b.ys[i - 1]!) / (b.xs[i]! - b.xs[i - 1]!));
  const mean = slopes.reduce((a, v) => a + v, 0) / slopes.length;
  const sd = Math.sqrt(slopes.reduce((a, v) => a + (v - mean) ** 2, 0) / (slopes.length - 1));
  const block = (b.xs[k - 1]! - b.xs[0]!) / (k - 1);
  return { mean, se: sd / Math.sqrt(slopes.length), perRootSecond: sd * Math.sqrt(block) };
}
