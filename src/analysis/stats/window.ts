/**
 * Series as the statistics see them: finite samples sorted by time, windows and thinning of them, and the
 * result every statistic returns when the data cannot support it.
 */
import { median } from "./quantiles.js";
import { lerp, saturate } from "./saturating.js";

/** Returned instead of a statistic when the input cannot support one. */
export interface NotEnoughData {
  readonly ok: false;
  /** Usable samples (finite x and y) found. */
  readonly n: number;
  readonly reason: string;
}

export function notEnough(n: number, reason: string): NotEnoughData {
  return { ok: false, n, reason };
}

/** A cleaned series: finite values only, sorted by time. */
export interface Series {
  readonly xs: readonly number[];
  readonly ys: readonly number[];
}

/**
 * Drops pairs with a non-finite member, truncates to the shorter array and sorts by time (stable, so samples that
 * share a timestamp keep their order). Sorting is skipped when the input is already in order, the usual case.
 */
export function cleanSeries(xs: readonly number[], ys: readonly number[]): Series {
  const n = Math.min(xs.length, ys.length);
  const cx: number[] = [];
  const cy: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = xs[i];
    const y = ys[i];
    if (Number.isFinite(x) && Number.isFinite(y)) {
      cx.push(x as number);
      cy.push(y as number);
    }
  }
  if (isSorted(cx)) return { xs: cx, ys: cy };
  const order = cx.map((_, i) => i).sort((a, b) => cx[a]! - cx[b]! || a - b);
  return { xs: order.map((i) => cx[i]!), ys: order.map((i) => cy[i]!) };
}

function isSorted(values: readonly number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) return false;
  return true;
}

/** True when the series has at least two distinct times, the least a slope needs. */
export function hasTimeSpan(s: Series): boolean {
  return s.xs.length > 1 && s.xs[s.xs.length - 1]! > s.xs[0]!;
}

/** The time a fraction f of the way through the window (overflow-safe, so a window of ±1e308 s still works). */
export function timeAt(s: Series, f: number): number {
  return lerp(s.xs[0]!, s.xs[s.xs.length - 1]!, f);
}

/** Window length in seconds (saturated). */
export function windowLength(s: Series): number {
  return saturate(s.xs[s.xs.length - 1]! - s.xs[0]!);
}

/** The samples with from <= x < to (xs sorted). */
export function sliceByTime(s: Series, from: number, to = Infinity): Series {
  const start = lowerBound(s.xs, from);
  const end = lowerBound(s.xs, to);
  return { xs: s.xs.slice(start, end), ys: s.ys.slice(start, end) };
}

/** First index whose value is >= target, in a sorted array. */
export function lowerBound(sorted: readonly number[], target: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Reduces a long series to at most maxPoints by replacing consecutive equal-count bins with (median x, median y).
 * Medians, not means, so a transient ±100 MB jump inside a bin does not move the bin. Shorter series come back
 * unchanged.
 */
export function thin(s: Series, maxPoints: number): Series {
  const n = s.xs.length;
  const bins = Math.floor(maxPoints);
  if (!(bins >= 1) || n <= bins) return s;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let b = 0; b < bins; b++) {
    const start = Math.floor((b * n) / bins);
    const end = Math.floor(((b + 1) * n) / bins);
    xs.push(median(s.xs.slice(start, end))!);
    ys.push(median(s.ys.slice(start, end))!);
  }
  return { xs, ys };
}

/**
 * One point per stretch of time: `count` equal stretches, each reduced by `point` over its index range [from, to);
 * empty stretches (gaps) are skipped. A series with no more samples than stretches is returned as it is.
 */
export function perTimeBlock(s: Series, count: number, point: (from: number, to: number) => [number, number]): Series {
  const n = s.xs.length;
  if (n <= count || !hasTimeSpan(s)) return s;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let b = 0; b < count; b++) {
    const from = lowerBound(s.xs, timeAt(s, b / count));
    const to = b === count - 1 ? n : lowerBound(s.xs, timeAt(s, (b + 1) / count));
    if (to <= from) continue;
    const [x, y] = point(from, to);
    xs.push(x);
    ys.push(y);
  }
  return { xs, ys };
}
