/**
 * Step: one jump between two flat sides (a model loaded, an arena sized once).
 */
import { mad, median } from "./quantiles.js";
import { lerp, saturate } from "./saturating.js";
import { MIN_SHAPE_POINTS, SHAPE_MAX_POINTS, lowsFollow } from "./shape.js";
import { theilSen } from "./theil-sen.js";
import { type NotEnoughData, type Series, cleanSeries, notEnough, thin } from "./window.js";

/**
 * A step is one jump with flat sides. The jump must exceed STEP_SE_MULTIPLE standard errors of the difference of
 * the two sides' medians (5, not 2: the split is chosen as the best of hundreds, which inflates the largest
 * difference found in pure noise), and also STEP_NOISE_MULTIPLE per-sample noise widths (so that a tiny offset
 * made "significant" by thousands of samples is not called a step). Each side may drift by at most
 * STEP_DRIFT_RATIO of the jump: a ramp split in two drifts on each side by as much as it jumps in the middle. And the
 * lows must jump with the medians (shape.ts lowsFollow), or the "step" is a swing's phase.
 */
export const STEP_SE_MULTIPLE = 5;
export const STEP_NOISE_MULTIPLE = 1;
export const STEP_DRIFT_RATIO = 0.25;


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
    size > STEP_SE_MULTIPLE * standardError &&
    size > STEP_NOISE_MULTIPLE * noise &&
    drift < STEP_DRIFT_RATIO * size &&
    lowsFollow(before.ys, after.ys, jump);
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
