/**
 * When will it fall over: the time until a growing memory series reaches a limit, at its Theil–Sen trend, with the
 * range the slope's confidence interval gives. Pure: a series and the limits in, the projection out.
 *
 * Counted on what the kernel cannot reclaim (the caller passes that series: anon + shmem + unreclaimable kernel for a
 * cgroup, RssAnon for a process): clean page cache is dropped before the OOM killer runs, so a cache that fills a
 * container does not bring its end nearer, and `predict_linear` on usage would say it does.
 */
import { DEFAULT_ALPHA, trendTest } from "./stats/trend.js";
import { sliceByTime } from "./stats/window.js";
import type { MemoryLimit, MetricName, TimeToLimit } from "./types.js";

export type TimeToLimitFacts = Omit<TimeToLimit, "summary">;

export interface ProjectionInput {
  xs: readonly number[];
  ys: readonly number[];
  /** Seconds: the start of the analysed window (after the warm-up). */
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
  const limits = [...input.limits];
  if (input.machineAvailable !== undefined) limits.push({ kind: "machine", source: "MemAvailable", bytes: level + input.machineAvailable });
  if (limits.length === 0) return undefined;
  limits.sort((a, b) => a.bytes - b.bytes);
  const [limit, ...otherLimits] = limits as [MemoryLimit, ...MemoryLimit[]];
  const headroom = Math.max(0, limit.bytes - level);
  const out: TimeToLimitFacts = {
    limit,
    otherLimits,
    metric: input.metric,
    counted: input.counted,
    level: Math.round(level),
    headroom: Math.round(headroom),
    bytesPerSecond: ts.slope,
    slopeLow: ts.low,
    slopeHigh: ts.high,
    confidence: ts.confidence,
    seconds: headroom / ts.slope,
    secondsMin: headroom / ts.high,
    // The interval's slow end may be no growth at all: then the limit may never come, and the range says so.
    secondsMax: ts.low > 0 ? headroom / ts.low : null,
    at: Number(at.toFixed(3)),
  };
  if (input.t0 !== undefined) out.atUnix = Number(((input.t0 + at * 1000) / 1000).toFixed(3));
  return out;
}
