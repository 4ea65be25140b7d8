/**
 * The shape of one metric over the analysed window, in the terms every rule uses: did it grow (robust trend), did it
 * level off (plateau), was it one step, by how much and how fast. Pure: a Column in, numbers out.
 */
import type { Column } from "./column.js";
import { detectPlateau, detectStep, median, sliceByTime, trendTest, type Plateau, type Step, type Trend } from "./stats.js";
import type { Rate } from "./types.js";

/** Below these there is no verdict, only insufficient-data. */
export const MIN_SAMPLES = 20;
export const MIN_SECONDS = 15;

/**
 * Smallest growth worth a verdict over the analysed window: 2 MiB, or 2% of the level, whichever is larger. A
 * trend of a few hundred KiB is real but nobody's problem; a 1 MB/hour leak shows up once the watch is long enough
 * for it to pass this floor.
 */
export const MIN_GROWTH_BYTES = 2 * 2 ** 20;
export const MIN_GROWTH_FRACTION = 0.02;

export type Shape = "insufficient" | "growing" | "plateau" | "step" | "flat" | "falling";

export interface Assessment {
  shape: Shape;
  /** Why the data was insufficient, when it was. */
  reason?: string;
  samples: number;
  from: number;
  to: number;
  start: number;
  end: number;
  peak: number;
  /** Level change over the window: median of the last tenth − median of the first tenth (robust to spikes). */
  growth: number;
  rate: Rate;
  /** Mann–Kendall two-sided p-value of the trend (block means). */
  p: number;
  trend?: Trend;
  plateau?: Plateau;
  step?: Step;
}

/** Median of the first and of the last tenth of a series (at least 3 points each). */
export function levels(ys: readonly number[]): { start: number; end: number } {
  const k = Math.max(3, Math.floor(ys.length / 10));
  return { start: median(ys.slice(0, k)) ?? NaN, end: median(ys.slice(-k)) ?? NaN };
}

export function minGrowth(level: number): number {
  return Math.max(MIN_GROWTH_BYTES, MIN_GROWTH_FRACTION * Math.abs(level));
}

export function rateOf(bytesPerSecond: number, startLevel: number): Rate {
  return {
    bytesPerSecond,
    percentPerHour: startLevel > 0 ? (bytesPerSecond * 3600 * 100) / startLevel : 0,
  };
}

/**
 * @param col the metric
 * @param from seconds: start of the analysed window (after warm-up)
 * @param fullFrom seconds: start of the whole series (plateaus are judged on the whole, warm-up included, because
 *        the growth a plateau levels off from is often the warm-up itself)
 */
export function assess(col: Column, from: number, fullFrom = from): Assessment {
  const window = sliceByTime({ xs: col.xs, ys: col.ys }, from);
  const whole = sliceByTime({ xs: col.xs, ys: col.ys }, fullFrom);
  const n = window.xs.length;
  const x0 = window.xs[0] ?? from;
  const x1 = window.xs[n - 1] ?? from;
  const { start, end } = levels(window.ys);
  const peak = Math.max(...(whole.ys.length ? whole.ys : [NaN]));
  const base: Assessment = {
    shape: "insufficient",
    samples: n,
    from: x0,
    to: x1,
    start,
    end,
    peak,
    growth: end - start,
    rate: rateOf(0, start),
    p: 1,
  };
  if (n < MIN_SAMPLES) return { ...base, reason: `${n} samples after warm-up (needs ${MIN_SAMPLES})` };
  if (x1 - x0 < MIN_SECONDS) return { ...base, reason: `${(x1 - x0).toFixed(0)} s after warm-up (needs ${MIN_SECONDS} s)` };

  const floor = minGrowth(start);
  const trend = trendTest(window.xs, window.ys, { minSlope: floor / Math.max(1, x1 - x0) });
  const plateau = detectPlateau(whole.xs, whole.ys, { minRise: floor });
  const step = detectStep(window.xs, window.ys);
  const out: Assessment = { ...base };
  if (trend.ok) {
    out.trend = trend;
    out.p = trend.mannKendall.p;
    out.rate = rateOf(trend.theilSen.slope, start);
  }
  if (plateau.ok) out.plateau = plateau;
  if (step.ok) out.step = step;

  const grew = trend.ok && trend.direction === "increasing" && out.growth >= floor;
  if (plateau.ok && plateau.state === "plateau") out.shape = "plateau";
  else if (grew && step.ok && step.isStep) out.shape = "step";
  else if (grew) out.shape = "growing";
  else if (trend.ok && trend.direction === "decreasing") out.shape = "falling";
  else out.shape = "flat";
  return out;
}
