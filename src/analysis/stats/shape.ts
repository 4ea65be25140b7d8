/**
 * What the shape detectors (plateau, warm-up, step) share: their minimum and maximum point counts, and the block scan
 * that finds where a series sits off a line by more than noise.
 */
import { median, quantile } from "./quantiles.js";
import { saturate } from "./saturating.js";
import type { TheilSen } from "./theil-sen.js";
import { type Series, lowerBound, timeAt } from "./window.js";

/**
 * The shape detectors (plateau, warm-up, step) split the series into parts and test each part; below 20 samples
 * a third of the series has too few points for any test to say anything.
 */
export const MIN_SHAPE_POINTS = 20;

/**
 * The plateau and step detectors work on at most this many points (bin medians of the raw series, see `thin`).
 * They look for where the shape changes, and 1/300 of the window is a fine enough resolution for that; it keeps
 * their Theil–Sen fits exact and the step's split search (quadratic in the points) fast on 260,000 samples.
 */
export const SHAPE_MAX_POINTS = 300;

/**
 * Warm-up and the start of a plateau are found by the same scan: the window is cut into time blocks of about 3
 * samples (a median of 3 ignores one odd sample; at most 100 blocks, as 1% of the window is resolution enough),
 * and a block is "off" while its median sits more than this many noise widths from the steady-state line. 3σ:
 * a block median has a spread below σ, so steady blocks essentially never exceed it, while an offset smaller than
 * 3σ is lost in the noise and barely biases a slope anyway.
 */
export const TRANSIENT_NOISE_MULTIPLE = 3;

export function scanBlockCount(n: number): number {
  return Math.max(4, Math.min(100, Math.floor(n / 3)));
}

/** Median of the offsets in block b of `count` equal time blocks; undefined for an empty block (a sampling gap). */
export function blockOffset(s: Series, offsets: readonly number[], b: number, count: number): number | undefined {
  const from = lowerBound(s.xs, timeAt(s, b / count));
  const to = b === count - 1 ? s.xs.length : lowerBound(s.xs, timeAt(s, (b + 1) / count));
  return median(offsets.slice(from, to));
}

/** A residual this small is rounding, not a transient (matters only for noise-free synthetic data). */
export function roundingFloor(ys: readonly number[]): number {
  let largest = 0;
  for (const y of ys) largest = Math.max(largest, Math.abs(y));
  return largest * 1e-9;
}

/** y − (intercept + slope·x) for each sample. */
export function residuals(s: Series, line: Pick<TheilSen, "slope" | "intercept">): number[] {
  return s.xs.map((x, i) => saturate(s.ys[i]! - saturate(line.intercept + saturate(line.slope * x))));
}

/**
 * A change in level (a plateau's rise, a step's jump) must move the lows too, by at least LOWS_CHANGE_SHARE of it:
 * growth lifts the whole series, lows included. Periodic temporaries (a batch held 40% of the time) make a stretch's
 * median land on either level, or half-way when the highs are exactly half of it, so medians "rose" by half a swing
 * on a program that grew by nothing (swing_steady: 50 MiB of rise and of step, lows 0.2 MiB: a share of 0.004).
 * A quarter, not a half: the medians of a real step under a wobble as large as it alias too (rules/shapes.test.ts:
 * a 1.1 MB step under a ±1 MB wobble measures a 2.3 MB jump, and its lows move 1.1 MB, 0.48 of that). The lows are
 * each side's LOWS_QUANTILE: robust to the odd early sample read before the interpreter had started.
 */
export const LOWS_CHANGE_SHARE = 0.25;
export const LOWS_QUANTILE = 0.1;

/** Whether the lows of `after` sit above (or below) those of `before` by LOWS_CHANGE_SHARE of `change`. */
export function lowsFollow(before: readonly number[], after: readonly number[], change: number): boolean {
  const lows = quantile(after, LOWS_QUANTILE)! - quantile(before, LOWS_QUANTILE)!;
  return change >= 0 ? lows >= LOWS_CHANGE_SHARE * change : lows <= LOWS_CHANGE_SHARE * change;
}
