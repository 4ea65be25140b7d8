/**
 * The trend decision: Mann–Kendall and Theil–Sen on block means, and a practical slope floor.
 */
import { type MannKendall, checkTrendInput, kendallCounts, mannKendallOf } from "./mann-kendall.js";

import { saturate } from "./saturating.js";
import { DEFAULT_CONFIDENCE } from "./normal.js";
import { type TheilSen, type TheilSenOptions, theilSenOf } from "./theil-sen.js";
import { type NotEnoughData, type Series, cleanSeries, notEnough, perTimeBlock } from "./window.js";

/**
 * Significance level for "there is a trend". 1% rather than 5%: the claim is "your process leaks", a false alarm
 * costs the user's trust, and a monitor re-tests as samples arrive, which inflates the false-alarm rate of any
 * fixed level.
 */
export const DEFAULT_ALPHA = 0.01;

/**
 * trendTest decides on this many block means (see there for why not on the raw samples). At least 6 points are
 * needed before Mann–Kendall can reach p < 0.01 at all (6 perfectly ordered points: p = 0.009); 12 leave room for
 * noise (12 ordered block means: p = 8e-6; two pairs of neighbours swapped: p = 3e-5), while each block stays a
 * twelfth of the window long, enough to average GC cycles of up to a quarter of the window.
 */
export const TREND_BLOCKS = 12;

export type Direction = "increasing" | "decreasing" | "none";

export interface Trend {
  readonly ok: true;
  readonly direction: Direction;
  /** Mann–Kendall and Theil–Sen of the block means the decision was made on (see trendTest). */
  readonly mannKendall: MannKendall;
  readonly theilSen: TheilSen;
  /** Number of block means tested: TREND_BLOCKS, or the sample count when there are fewer samples. */
  readonly blocks: number;
}

export interface TrendOptions extends TheilSenOptions {
  /** Significance level; default DEFAULT_ALPHA (0.01). */
  readonly alpha?: number;
  /** Smallest |slope| in bytes/s worth calling a trend; default 0 (significance alone). */
  readonly minSlope?: number;
}

/**
 * Decides increasing / decreasing / none: "increasing" when Mann–Kendall rejects "no trend" at alpha AND the
 * Theil–Sen slope is positive and at least minSlope (mirror image for "decreasing"). Both, because they answer
 * different questions: Mann–Kendall whether later samples tend to be larger (robust, blind to size), Theil–Sen by
 * how much per second; minSlope is where the caller says what size is worth reporting.
 *
 * Both are computed on TREND_BLOCKS block means, not on the raw samples. The raw Mann–Kendall test is wrong for
 * memory in two ways: (1) a GC sawtooth rises slowly and falls at once, so pairs of nearby samples are mostly
 * concordant and S is biased upwards: a flat 60 s sawtooth over 600 s gives p ≈ 5e-4 and a "leak" of 0.05 MB/s,
 * depending on where the window starts in the cycle; (2) its variance assumes independent samples, so slowly
 * wandering noise looks significant on long series. A block mean averages whole GC cycles (teeth up to a quarter of
 * the window were checked) and most of the short-range correlation, leaving the level.
 */
export function trendTest(
  xs: readonly number[],
  ys: readonly number[],
  options: TrendOptions = {},
): Trend | NotEnoughData {
  const s = cleanSeries(xs, ys);
  const problem = checkTrendInput(s);
  if (problem) return problem;
  const fitted = blockFit(s, options.confidence ?? DEFAULT_CONFIDENCE);
  if (!fitted) return notEnough(s.xs.length, "too few distinct times");
  return { ok: true, direction: direction(fitted, options), ...fitted };
}

interface BlockFit {
  readonly mannKendall: MannKendall;
  readonly theilSen: TheilSen;
  readonly blocks: number;
}

function blockFit(s: Series, confidence: number): BlockFit | undefined {
  const blocks = blockMeans(s, TREND_BLOCKS);
  if (checkTrendInput(blocks)) return undefined;
  const counts = kendallCounts(blocks);
  const theilSen = theilSenOf(blocks, counts, confidence);
  return { mannKendall: mannKendallOf(counts), theilSen, blocks: blocks.xs.length };
}

/**
 * (mean x, mean y) of `count` equal stretches of time; empty stretches (gaps) are skipped. Means, not medians: the
 * mean over whole cycles of a periodic pattern is its level whatever the phase, a median is not. A series with no
 * more samples than blocks is returned as it is.
 */
export function blockMeans(s: Series, count: number): Series {
  return perTimeBlock(s, count, (from, to) => [mean(s.xs, from, to), mean(s.ys, from, to)]);
}

/** Running mean of values[from, to): never overflows, unlike sum / count. */
function mean(values: readonly number[], from: number, to: number): number {
  let m = 0;
  for (let i = from; i < to; i++) m = saturate(m + (values[i]! - m) / (i - from + 1));
  return m;
}

function direction(fit: BlockFit, options: TrendOptions): Direction {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const floor = Math.max(0, options.minSlope ?? 0);
  const { mannKendall: mk, theilSen: ts } = fit;
  if (!(mk.p < alpha)) return "none";
  if (mk.s > 0 && ts.slope > 0 && ts.slope >= floor) return "increasing";
  if (mk.s < 0 && ts.slope < 0 && -ts.slope >= floor) return "decreasing";
  return "none";
}
