/**
 * What the CI gates measure, asked of the analysis instead of computed beside it: a column's level change and its
 * rate after the warm-up, by the same levels, trend test and early test the verdicts use. The gates (gates/gates.ts)
 * only compare these with the user's limits and word the result.
 */
import { levels } from "./assess.js";
import { earlyGrowth } from "./stats/sequential.js";
import { sliceByTime } from "./stats/window.js";
import { trendTest } from "./stats/trend.js";
import { MIN_SAMPLES, MIN_SECONDS, tooShortForShapes } from "../series/enough-samples.js";
import type { Column } from "../series/column.js";

/**
 * Readings a level change needs: the levels are medians of the first and last tenths, at least 3 readings each, so
 * with fewer than 6 they overlap and a growth of 0 would pass for a measurement.
 */
export const GROWTH_MIN_READINGS = 6;

export type LevelChange = { measured: true; start: number; end: number } | { measured: false; readings: number };

/** The level at the start and at the end of `col` after `from` seconds (medians of the first and last tenths). */
export function levelChangeAfter(col: Column, from: number): LevelChange {
  const w = sliceByTime({ xs: col.xs, ys: col.ys }, from);
  if (w.ys.length < GROWTH_MIN_READINGS) return { measured: false, readings: w.ys.length };
  return { measured: true, ...levels(w.ys) };
}

export type RateAfter =
  /** Long enough for the trend test: its robust slope, and whether the test says the column rises. */
  | { kind: "trend"; slope: number; increasing: boolean; p: number }
  /**
   * Too short for the trend test (it needs `needs`): a rate that means anything is not known, unless the early test
   * already sees growth (`early`: its slope and p).
   */
  | {
      kind: "too-short";
      readings: number;
      seconds: number;
      needs: { readings: number; seconds: number };
      early?: { slope: number; p: number };
    }
  /** Long enough, but no rate could be computed (the test's reason). */
  | { kind: "none"; reason: string };

/** The rate of `col` after `from` seconds: the trend's when the window is long enough, else the early test's. */
export function rateAfter(col: Column, from: number): RateAfter {
  const w = sliceByTime({ xs: col.xs, ys: col.ys }, from);
  const n = w.xs.length;
  const seconds = n > 1 ? w.xs[n - 1]! - w.xs[0]! : 0;
  if (tooShortForShapes(n, seconds)) {
    const early = earlyGrowth(w.xs, w.ys, MIN_SAMPLES, MIN_SECONDS);
    const needs = { readings: MIN_SAMPLES, seconds: MIN_SECONDS };
    return {
      kind: "too-short",
      readings: n,
      seconds,
      needs,
      ...(early.called && { early: { slope: early.slope, p: early.p } }),
    };
  }
  const t = trendTest(w.xs, w.ys);
  if (!t.ok) return { kind: "none", reason: t.reason };
  return { kind: "trend", slope: t.theilSen.slope, increasing: t.direction === "increasing", p: t.mannKendall.p };
}
