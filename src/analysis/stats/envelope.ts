/**
 * The lower envelope: the trend of the lows. A program that allocates big temporaries periodically (a batch, an
 * evaluation pass, a large intermediate) swings by far more than a leak grows between two swings, and block means
 * alias the period: a 1.5 MB/s leak under ±100 MB swings every 2.5 s gave Mann–Kendall p between 0.02 and 0.09 on
 * them at 40 s. The lows do not swing: each block's minimum is the level between temporaries, which a leak raises
 * steadily and a steady program does not. Used by assess.ts only when the main test (block means) saw no trend.
 */
import { checkTrendInput, kendallCounts, mannKendallOf, type MannKendall } from "./mann-kendall.js";
import { DEFAULT_CONFIDENCE } from "./normal.js";
import { median } from "./quantiles.js";
import { theilSenOf, type TheilSen } from "./theil-sen.js";
import { TREND_BLOCKS } from "./trend.js";
import { cleanSeries, perTimeBlock, type Series } from "./window.js";

/**
 * Significance for the lows, a tenth of the main test's 1%: the envelope is a second look at data the main test
 * already judged, so its own false alarms add to the main test's, and at 0.1% they add a tenth. A leak under swings
 * passes it easily once every block holds a low (12 ordered minima: p = 5e-5); blocks shorter than the swing period
 * have no low in some of them, and then the minima are as ragged as the swings and stay far from it.
 */
export const ENVELOPE_ALPHA = 0.001;

export interface Envelope {
  readonly ok: true;
  readonly increasing: boolean;
  readonly mannKendall: MannKendall;
  readonly theilSen: TheilSen;
  /** The lows at the start and at the end: medians of the first and of the last three block minima (one odd block
   * does not move them). */
  readonly start: number;
  readonly end: number;
  /** end − start, bytes. */
  readonly rise: number;
}

/** (time of the minimum, minimum) of `count` equal stretches of time; empty stretches are skipped. */
export function blockMinima(s: Series, count: number): Series {
  return perTimeBlock(s, count, (from, to) => {
    let at = from;
    for (let i = from + 1; i < to; i++) if (s.ys[i]! < s.ys[at]!) at = i;
    return [s.xs[at]!, s.ys[at]!];
  });
}

/**
 * Whether the lows rise: Mann–Kendall on TREND_BLOCKS block minima at ENVELOPE_ALPHA, a positive Theil–Sen slope of
 * at least minSlope, and a rise of at least minRise. Undefined when there are too few points to test.
 */
export function lowerEnvelope(
  xs: readonly number[],
  ys: readonly number[],
  minSlope = 0,
  minRise = 0,
): Envelope | undefined {
  const minima = blockMinima(cleanSeries(xs, ys), TREND_BLOCKS);
  if (minima.xs.length < TREND_BLOCKS || checkTrendInput(minima)) return undefined;
  const counts = kendallCounts(minima);
  const mannKendall = mannKendallOf(counts);
  const theilSen = theilSenOf(minima, counts, DEFAULT_CONFIDENCE);
  const start = median(minima.ys.slice(0, 3))!;
  const end = median(minima.ys.slice(-3))!;
  const rise = end - start;
  const increasing =
    lowsRiseAt({ mannKendall, theilSen }, ENVELOPE_ALPHA) && theilSen.slope >= minSlope && rise >= minRise;
  return { ok: true, increasing, mannKendall, theilSen, start, end, rise };
}

/** Whether the lows' trend test says they rise at significance `alpha`, their slope positive too. */
export function lowsRiseAt(lows: Pick<Envelope, "mannKendall" | "theilSen">, alpha: number): boolean {
  return lows.mannKendall.p < alpha && lows.mannKendall.s > 0 && lows.theilSen.slope > 0;
}
