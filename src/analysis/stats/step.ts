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
  const fit = levelChangeFit(s.ys, Math.max(5, Math.ceil(n * 0.05)));
  const k = fit.at;
  const before: Series = { xs: s.xs.slice(0, k), ys: s.ys.slice(0, k) };
  const after: Series = { xs: s.xs.slice(k), ys: s.ys.slice(k) };
  const beforeLine = theilSen(before.xs, before.ys);
  const afterLine = theilSen(after.xs, after.ys);
  if (!beforeLine.ok || !afterLine.ok) return notEnough(n, "a side of the split has no time span");

  const jump = saturate(fit.after - fit.before);
  const noise = fit.noise;
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

/** The best one change of level in a series: where it is, the two sides' medians, and the noise around them. */
export interface LevelChangeFit {
  /** Index of the first value after the change. */
  readonly at: number;
  /** Medians of the values before and after it. */
  readonly before: number;
  readonly after: number;
  /** Robust noise scale (scaled MAD) of the values around their own side's median. */
  readonly noise: number;
}

/**
 * The one change of level that fits ys best (bestSplit: least total absolute deviation from each side's median, each
 * side at least minSide values; ys must hold 2 × minSide). Its noise is what a level and its change do not explain: a
 * level that came down and stayed leaves next to none, a swing around one level leaves its whole width.
 */
export function levelChangeFit(ys: readonly number[], minSide: number): LevelChangeFit {
  const at = bestSplit(ys, minSide);
  const before = median(ys.slice(0, at))!;
  const after = median(ys.slice(at))!;
  const noise = mad([...offsetsFrom(ys.slice(0, at), before), ...offsetsFrom(ys.slice(at), after)])!;
  return { at, before, after, noise };
}

function offsetsFrom(values: readonly number[], level: number): number[] {
  return values.map((v) => saturate(v - level));
}

/** A median of Gaussian samples is √(π/2) times as uncertain as their mean. */
const MEDIAN_SE_FACTOR = Math.sqrt(Math.PI / 2);

function duration(s: Series): number {
  return saturate(s.xs[s.xs.length - 1]! - s.xs[0]!);
}

/**
 * Index k (minSide <= k <= n − minSide) minimising Σ|y − median| over [0, k) plus over [k, n). The cost of every
 * prefix and of every suffix comes from one pass each with a running median (two heaps), O(n log n): the split was
 * the costliest part of a verdict when each candidate took the median of both sides afresh (O(n²) medians).
 */
function bestSplit(ys: readonly number[], minSide: number): number {
  const prefix = runningAbsoluteDeviations(ys);
  const suffix = runningAbsoluteDeviations([...ys].reverse());
  let best = minSide;
  let bestCost = Infinity;
  for (let k = minSide; k <= ys.length - minSide; k++) {
    const cost = saturate(prefix[k]! + suffix[ys.length - k]!);
    if (cost < bestCost) {
      bestCost = cost;
      best = k;
    }
  }
  return best;
}

/**
 * out[k] = Σ|y − median| over the first k values. With the lower half in a max-heap and the upper half in a
 * min-heap, that sum is (Σ upper − Σ lower), plus the median itself when the lower half holds the odd one out.
 */
export function runningAbsoluteDeviations(ys: readonly number[]): Float64Array {
  const out = new Float64Array(ys.length + 1);
  const lower = new Heap((a, b) => a > b);
  const upper = new Heap((a, b) => a < b);
  let sumLower = 0;
  let sumUpper = 0;
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i]!;
    if (lower.size === 0 || y <= lower.top()) {
      lower.push(y);
      sumLower += y;
    } else {
      upper.push(y);
      sumUpper += y;
    }
    // Keep |lower| = |upper| or |upper| + 1.
    if (lower.size > upper.size + 1) {
      const v = lower.pop();
      sumLower -= v;
      upper.push(v);
      sumUpper += v;
    } else if (upper.size > lower.size) {
      const v = upper.pop();
      sumUpper -= v;
      lower.push(v);
      sumLower += v;
    }
    const odd = lower.size > upper.size ? lower.top() : 0;
    const cost = sumUpper - sumLower + odd;
    // Sums of values near ±MAX_VALUE overflow: the cost is then as large as a number can be, as summing did before.
    out[i + 1] = Number.isNaN(cost) ? Number.MAX_VALUE : saturate(Math.max(0, cost));
  }
  return out;
}

/** A binary heap of numbers; `before(a, b)`: a comes out first. */
class Heap {
  private readonly items: number[] = [];
  constructor(private readonly before: (a: number, b: number) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  top(): number {
    return this.items[0]!;
  }

  push(v: number): void {
    const a = this.items;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.before(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}
