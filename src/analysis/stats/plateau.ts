/**
 * Plateau: did a series that grew level off?
 */
import { type MannKendall, checkTrendInput, kendallCounts, mannKendallOf } from "./mann-kendall.js";
import { mad, median } from "./quantiles.js";
import { saturate } from "./saturating.js";
import {
  MIN_SHAPE_POINTS,
  SHAPE_MAX_POINTS,
  TRANSIENT_NOISE_MULTIPLE,
  blockOffset,
  lowsFollow,
  residuals,
  roundingFloor,
  scanBlockCount,
} from "./shape.js";
import { DEFAULT_CONFIDENCE } from "./normal.js";
import { type TheilSen, theilSenOf } from "./theil-sen.js";
import { DEFAULT_ALPHA } from "./trend.js";
import { type NotEnoughData, type Series, cleanSeries, notEnough, sliceByTime, thin, timeAt } from "./window.js";

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
  /**
   * Bytes within which of the tail's line a series is at its level, besides the noise and LEVEL_TOLERANCE of the
   * rise (levelledFrom); default 0. assess.ts gives a quarter of the growth floor: see LEVEL_FLOOR_SHARE there.
   */
  readonly levelTolerance?: number;
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
 *    around the whole window's Theil–Sen line) and by minRise, and the lows rose with it (shape.ts lowsFollow). Levels, not the first third's slope, because a step
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
  const grew =
    whole.mk.p < (options.alpha ?? DEFAULT_ALPHA) &&
    whole.mk.s > 0 &&
    rise > riseFloor &&
    lowsFollow(head.ys, tail.ys, rise);
  const limit = (options.ratio ?? PLATEAU_RATE_RATIO) * growthRate;
  const stopped = grew && late.ts.high < limit;
  const state: PlateauState = !grew ? "flat" : stopped ? "plateau" : "growing";
  return {
    ok: true,
    state,
    plateaued: stopped,
    levelFrom: stopped ? levelledFrom(s, tail, late.ts, rise, options.levelTolerance ?? 0) : undefined,
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

/**
 * A series is at its level once within this share of the rise of it, whatever the noise: a quiet tail (a 400 MB load,
 * then 4 KB/s of allocator wobble) has a noise of a few KB, and 3 noise widths of it made 8 KB of wobble ten seconds
 * after the load look like the rise still going on (issue 11: a load that ended at 9.3 s dated from 18 s). 1% of the
 * rise is invisible on a chart of it. Not 5%: a start-up that approaches its level exponentially (τ 12 s, 190 MB)
 * would then be "levelled" 20 s early, and its remaining approach counted as rising after the level
 * (rules/growth.test.ts, a plateau after a long start-up).
 */
export const LEVEL_TOLERANCE = 0.01;

/**
 * Where the final level was reached: the tail's line is extrapolated back over the whole window, and the scan walks
 * back from the end over the blocks that sit within TRANSIENT_NOISE_MULTIPLE noise widths of it. The robust slope
 * alone cannot place the knee: a stretch that is 3/4 flat and 1/4 ramp still has a near-zero median slope.
 */
function levelledFrom(s: Series, tail: Series, line: TheilSen, rise: number, tolerance: number): number | undefined {
  const offsets = residuals(s, line);
  const noise = mad(residuals(tail, line))!;
  const threshold = Math.max(
    TRANSIENT_NOISE_MULTIPLE * noise,
    LEVEL_TOLERANCE * Math.abs(rise),
    roundingFloor(s.ys),
    tolerance,
  );
  const blocks = scanBlockCount(s.xs.length);
  let first = blocks;
  for (let b = blocks - 1; b >= 0; b--) {
    const offset = blockOffset(s, offsets, b, blocks);
    if (offset !== undefined && Math.abs(offset) > threshold) break;
    first = b;
  }
  // The last block already off the tail's line: the series ends on a move (a late step, a tooth of a sawtooth), and no
  // stretch of it is at the level to date it from. Dated at its last sample, a plateau was "flat since 300 s" at the
  // end of a 300 s run (issue 46): undated, it says only that the growth stopped.
  return first === blocks ? undefined : timeAt(s, first / blocks);
}
