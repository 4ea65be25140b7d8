/**
 * The early growth test: "is this growing?" on a window too short for the shape rules (assess.ts needs MIN_SAMPLES
 * over MIN_SECONDS before it tells a plateau from a leak), so that a 15 s CI step can still fail on a leak and a
 * clean 1 MiB/s leak is called ~10 s after its warm-up instead of 20–30 s.
 *
 * It is a sequential test: a live session asks it again after every sample until the shape rules take over, and each
 * look is one more chance of a false alarm. Its level is therefore spent over all the looks the short window can
 * have (Bonferroni: EARLY_ALPHA divided by the number of samples before the shape rules take over), so that the
 * chance of any false call over the whole early phase stays under EARLY_ALPHA for a series with no trend.
 *
 * Called growing when all of (and the rise is EARLY_MIN_RISE_TO_SCATTER times the scatter around it):
 *   - Mann–Kendall on the block means (as trendTest: a GC sawtooth's slow rise and sudden fall biases the raw test)
 *     rejects "no trend" at the spent level, upwards;
 *   - the growth still goes on at the end: the Theil–Sen slope of the last third is at least TAIL_SLOPE_SHARE of the
 *     whole window's. A load that finished (a dataset read into memory, a model built) stops rising; a leak keeps on.
 *     This is what keeps a load from being called a leak once it is over — while it is still going on, nothing in
 *     its numbers tells it from a leak, which is why the caller says "called early" (see the caveat in process.ts).
 * The caller adds the growth floor (assess.ts minGrowth), as for every other growth.
 */
import { mannKendall, type MannKendall } from "./mann-kendall.js";
import { MAD_SCALE, mad, median } from "./quantiles.js";
import { theilSen } from "./theil-sen.js";
import { blockMeans, TREND_BLOCKS } from "./trend.js";
import { cleanSeries } from "./window.js";

/**
 * The fewest samples and seconds it decides on. 8 points: with Bonferroni over 20 looks (5e-4 each), 8 perfectly
 * ordered points give p = 8.4e-4 and cannot pass, 9 give 2.6e-4 and can: the test itself asks for 9 at 1 Hz. 5 s:
 * under that, one allocation burst of a batch is the whole window. Boundary tests: rules/early.test.ts.
 */
export const EARLY_MIN_POINTS = 8;
export const EARLY_MIN_SECONDS = 5;
/** The chance of one false call over all the looks of the early phase, for a series with no trend. */
export const EARLY_ALPHA = 0.01;
/**
 * The last third's slope must be at least half the window's. A steady leak's is ~1× (0.7–1.4× with allocator
 * noise in the synthetic tests); a load that ended a third of the window ago is ~0. Boundary tests: 0.45 / 0.55.
 */
export const TAIL_SLOPE_SHARE = 0.5;
/**
 * The rise over the window (slope × span) must be this many times the scatter around the line (MAD of the residuals,
 * scaled to a standard deviation). Mann–Kendall's level assumes independent samples; memory that wanders (each
 * sample near the last: AR(1) noise with φ = 0.9–0.95) looked like a trend in 3.3–6.3% of series over the early
 * phase, against the 1% the level promises; with 8×, 0.5–1.0% (6×: 1.5–2.8%). A leak is a rise far above its own
 * scatter (1 MiB/s over 9 s with allocator noise: 40× and more); a wander is a rise of a few of its own steps. The
 * fixture leaks are still called by the same looks (±1). Test: rules/early.test.ts (wandering noise).
 */
export const EARLY_MIN_RISE_TO_SCATTER = 8;

export interface EarlyGrowth {
  called: boolean;
  /** Why not, when not called. */
  reason?: string;
  /** Mann–Kendall two-sided p of the block means. */
  p: number;
  /** The per-look level it was held to: EARLY_ALPHA / looks. */
  alpha: number;
  /** Looks the level was spent over: one per sample until the shape rules take over. */
  looks: number;
  /** Theil–Sen slope of the whole window and of its last third, bytes per second. */
  slope: number;
  tailSlope: number;
}

/**
 * @param minSamples, minSeconds when the shape rules take over (assess.ts MIN_SAMPLES, MIN_SECONDS): the early
 *        phase lasts until both are reached, so at a sampling interval dt it has max(minSamples, minSeconds / dt) looks.
 */
export function earlyGrowth(
  xs: readonly number[],
  ys: readonly number[],
  minSamples: number,
  minSeconds: number,
): EarlyGrowth {
  const s = cleanSeries(xs, ys);
  const n = s.xs.length;
  const span = n > 1 ? s.xs[n - 1]! - s.xs[0]! : 0;
  const steps = Array.from({ length: Math.max(0, n - 1) }, (_, i) => s.xs[i + 1]! - s.xs[i]!);
  const dt = median(steps) ?? 1;
  const looks = Math.max(minSamples, Math.ceil(minSeconds / Math.max(dt, 1e-3)));
  const alpha = EARLY_ALPHA / looks;
  const none: EarlyGrowth = { called: false, p: 1, alpha, looks, slope: 0, tailSlope: 0 };
  if (n < EARLY_MIN_POINTS) return { ...none, reason: `${n} samples (the early test needs ${EARLY_MIN_POINTS})` };
  if (span < EARLY_MIN_SECONDS)
    return { ...none, reason: `${span.toFixed(0)} s (the early test needs ${EARLY_MIN_SECONDS} s)` };

  const blocks = blockMeans(s, Math.min(n, TREND_BLOCKS));
  const mk = mannKendall(blocks.xs, blocks.ys);
  const whole = theilSen(s.xs, s.ys);
  const third = Math.max(3, Math.floor(n / 3));
  const tail = theilSen(s.xs.slice(-third), s.ys.slice(-third));
  if (!mk.ok || !whole.ok || !tail.ok) return { ...none, reason: "no trend could be computed" };
  const out: EarlyGrowth = {
    called: false,
    p: (mk as MannKendall).p,
    alpha,
    looks,
    slope: whole.slope,
    tailSlope: tail.slope,
  };
  if (!(mk.s > 0 && mk.p <= alpha))
    return {
      ...out,
      reason: `no significant rise yet (p = ${mk.p.toPrecision(2)}, needs ≤ ${alpha.toPrecision(2)} at this look)`,
    };
  if (!(whole.slope > 0 && tail.slope >= TAIL_SLOPE_SHARE * whole.slope))
    return { ...out, reason: "the rise has slowed down at the end" };
  const scatter = MAD_SCALE * (mad(s.xs.map((x, i) => s.ys[i]! - (whole.intercept + whole.slope * x))) ?? 0);
  if (whole.slope * span < EARLY_MIN_RISE_TO_SCATTER * scatter)
    return { ...out, reason: "the rise is not far above the scatter around it" };
  return { ...out, called: true };
}
