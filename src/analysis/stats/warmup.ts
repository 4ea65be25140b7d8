/**
 * Warm-up: how long a series takes to settle at the start.
 */
import { checkTrendInput } from "./mann-kendall.js";
import { mad } from "./quantiles.js";
import { saturate } from "./saturating.js";
import {
  MIN_SHAPE_POINTS,
  TRANSIENT_NOISE_MULTIPLE,
  blockOffset,
  residuals,
  roundingFloor,
  scanBlockCount,
} from "./shape.js";
import { theilSenLine } from "./theil-sen.js";
import {
  type NotEnoughData,
  type Series,
  cleanSeries,
  notEnough,
  sliceByTime,
  timeAt,
  windowLength,
} from "./window.js";

/** At most this fraction of the window is ever called warm-up: the rest must be long enough to judge. */
export const WARMUP_MAX_FRACTION = 0.25;

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
  /**
   * Smallest offset, in bytes, that counts as warm-up whatever the noise; default 0. Real memory series can be far
   * quieter than their own wobble from the straight line (a list's amortised resizes, page-sized steps): with noise
   * alone as the scale, every recording's start "deviates" and the warm-up is the cap, a fixed cut.
   */
  readonly minOffset?: number;
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
  const line = checkTrendInput(steady) ? undefined : theilSenLine(steady.xs, steady.ys);
  if (!line?.ok) return notEnough(n, "too few samples in the second half");

  const offsets = residuals(s, line);
  const noise = mad(offsets.slice(n - steady.xs.length))!;
  const threshold = Math.max(
    (options.noiseMultiple ?? TRANSIENT_NOISE_MULTIPLE) * noise,
    roundingFloor(s.ys),
    options.minOffset ?? 0,
  );
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
