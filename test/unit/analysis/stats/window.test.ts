/**
 * stats/window.ts: the series every statistic sees (finite, sorted by time), its windows, thinning and time blocks,
 * by exact values on small hand-made series.
 */
import { describe, expect, it } from "vitest";
import {
  cleanSeries,
  hasTimeSpan,
  lowerBound,
  notEnough,
  perTimeBlock,
  sliceByTime,
  thin,
  timeAt,
  windowLength,
} from "../../../../src/analysis/stats/window.js";

const MAX = Number.MAX_VALUE;

describe("cleanSeries", () => {
  it("drops pairs with a non-finite member and truncates to the shorter array", () => {
    expect(cleanSeries([0, 1, NaN, 3, 4, 5], [10, Infinity, 12, 13, 14])).toEqual({ xs: [0, 3, 4], ys: [10, 13, 14] });
  });

  it("sorts by time, keeping the order of samples that share a time", () => {
    expect(cleanSeries([2, 1, 2, 0, 1], [20, 10, 21, 0, 11])).toEqual({ xs: [0, 1, 1, 2, 2], ys: [0, 10, 11, 20, 21] });
  });

  it("keeps a sorted series as it is, repeated times included", () => {
    expect(cleanSeries([0, 1, 1, 2], [3, 2, 1, 0])).toEqual({ xs: [0, 1, 1, 2], ys: [3, 2, 1, 0] });
    // every neighbour out of order
    expect(cleanSeries([3, 2, 1], [30, 20, 10])).toEqual({ xs: [1, 2, 3], ys: [10, 20, 30] });
    // out of order only at the end
    expect(cleanSeries([0, 1, 2, 1.5], [0, 1, 2, 3])).toEqual({ xs: [0, 1, 1.5, 2], ys: [0, 1, 3, 2] });
  });
});

describe("windows", () => {
  const s = { xs: [0, 1, 2, 3, 4, 5], ys: [10, 11, 12, 13, 14, 15] };

  it("hasTimeSpan: two points at two different times", () => {
    expect(hasTimeSpan(s)).toBe(true);
    expect(hasTimeSpan({ xs: [1], ys: [1] })).toBe(false);
    expect(hasTimeSpan({ xs: [1, 1, 1], ys: [1, 2, 3] })).toBe(false);
    expect(hasTimeSpan({ xs: [], ys: [] })).toBe(false);
  });

  it("timeAt and windowLength, without overflow on ±MAX", () => {
    expect(timeAt(s, 0.5)).toBe(2.5);
    expect(timeAt({ xs: [-MAX, MAX], ys: [0, 0] }, 0.5)).toBe(0);
    expect(windowLength(s)).toBe(5);
    expect(windowLength({ xs: [-MAX, MAX], ys: [0, 0] })).toBe(MAX);
  });

  it("sliceByTime keeps from <= x < to", () => {
    expect(sliceByTime(s, 2, 4)).toEqual({ xs: [2, 3], ys: [12, 13] });
    expect(sliceByTime(s, 1.5)).toEqual({ xs: [2, 3, 4, 5], ys: [12, 13, 14, 15] });
    expect(sliceByTime(s, 6)).toEqual({ xs: [], ys: [] });
  });

  it("lowerBound: the first index at or above the target", () => {
    const xs = [1, 3, 3, 3, 7, 9];
    expect([0, 1, 2, 3, 4, 7, 8, 9, 10].map((t) => lowerBound(xs, t))).toEqual([0, 0, 1, 1, 4, 4, 5, 5, 6]);
    expect(lowerBound([], 1)).toBe(0);
  });

  it("notEnough says how many samples there were and why", () => {
    expect(notEnough(3, "too few")).toEqual({ ok: false, n: 3, reason: "too few" });
  });
});

describe("thin", () => {
  it("medians of equal-count bins", () => {
    const s = { xs: [0, 1, 2, 3, 4, 5, 6, 7, 8], ys: [1, 100, 2, 3, 4, 50, 7, 8, 9] };
    expect(thin(s, 3)).toEqual({ xs: [1, 4, 7], ys: [2, 4, 8] });
    // 9 points in 2 bins: [0, 4) and [4, 9)
    expect(thin(s, 2.7)).toEqual({ xs: [1.5, 6], ys: [2.5, 8] });
  });

  it("a series no longer than the bins, or bins under 1 or NaN, comes back as it is", () => {
    const s = { xs: [0, 1, 2], ys: [5, 6, 7] };
    expect(thin(s, 3)).toBe(s);
    expect(thin(s, 0.5)).toBe(s);
    expect(thin(s, NaN)).toBe(s);
    expect(thin(s, 1)).toEqual({ xs: [1], ys: [6] });
  });
});

describe("perTimeBlock", () => {
  const first = (s: { xs: readonly number[]; ys: readonly number[] }) => (from: number, to: number) =>
    [s.xs[from]!, to - from] as [number, number];

  it("one point per equal stretch of time, the last stretch to the end, gaps skipped", () => {
    // 0..3 dense, nothing in [4, 6), then 6..8: three stretches of 8/3 s
    const s = { xs: [0, 1, 2, 3, 6, 7, 8], ys: [0, 0, 0, 0, 0, 0, 0] };
    expect(perTimeBlock(s, 3, first(s))).toEqual({ xs: [0, 3, 6], ys: [3, 1, 3] });
    expect(perTimeBlock(s, 4, first(s))).toEqual({ xs: [0, 2, 6], ys: [2, 2, 3] });
  });

  it("a series with no more samples than stretches, or no time span, comes back as it is", () => {
    const s = { xs: [0, 1, 2], ys: [0, 0, 0] };
    expect(perTimeBlock(s, 3, first(s))).toBe(s);
    const flat = { xs: [1, 1, 1, 1], ys: [0, 0, 0, 0] };
    expect(perTimeBlock(flat, 2, first(flat))).toBe(flat);
  });
});
