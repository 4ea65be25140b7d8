/**
 * stats/trend.ts: the block means the trend is decided on, and the decision at its thresholds (alpha, minSlope,
 * the signs of S and of the slope), on small hand-made series.
 */
import { describe, expect, it } from "vitest";
import { blockMeans, DEFAULT_ALPHA, TREND_BLOCKS, trendTest } from "../../../../src/analysis/stats/trend.js";

const MAX = Number.MAX_VALUE;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("blockMeans", () => {
  it("(mean x, mean y) of equal stretches of time, gaps skipped", () => {
    // 0..5 and 9..11 in three stretches of 11/3 s: [0, 3.67) [3.67, 7.33) [7.33, 11]
    const s = { xs: [0, 1, 2, 3, 4, 5, 9, 10, 11], ys: [1, 2, 3, 4, 5, 6, 10, 20, 30] };
    expect(blockMeans(s, 3)).toEqual({ xs: [1.5, 4.5, 10], ys: [2.5, 5.5, 20] });
  });

  it("a mean of values near MAX does not overflow", () => {
    const s = { xs: [0, 1, 2, 3], ys: [MAX, MAX, MAX, MAX] };
    expect(blockMeans(s, 2).ys).toEqual([MAX, MAX]);
  });
});

describe("trendTest", () => {
  it("decides on TREND_BLOCKS block means", () => {
    const xs = range(120);
    const t = trendTest(xs, xs);
    if (!t.ok) throw new Error(t.reason);
    expect(t.blocks).toBe(TREND_BLOCKS);
    expect(t.direction).toBe("increasing");
    expect(t.theilSen.slope).toBe(1);
    expect(t.mannKendall.p).toBeLessThan(DEFAULT_ALPHA);
  });

  it("increasing, decreasing, and none under minSlope in either direction", () => {
    const xs = range(120);
    const down = xs.map((x) => -2 * x);
    expect(trendTest(xs, down)).toMatchObject({ direction: "decreasing" });
    expect(trendTest(xs, xs, { minSlope: 1 })).toMatchObject({ direction: "increasing" });
    expect(trendTest(xs, xs, { minSlope: 1.01 })).toMatchObject({ direction: "none" });
    expect(trendTest(xs, down, { minSlope: 2 })).toMatchObject({ direction: "decreasing" });
    expect(trendTest(xs, down, { minSlope: 2.01 })).toMatchObject({ direction: "none" });
    // a negative floor is no floor
    expect(trendTest(xs, xs, { minSlope: -5 })).toMatchObject({ direction: "increasing" });
  });

  it("alpha: a trend significant at 1% but not at the level asked for is none", () => {
    // 8 points, one pair swapped: S = 26, p ≈ 0.004
    const xs = range(8);
    const ys = [0, 2, 1, 3, 4, 5, 6, 7];
    const t = trendTest(xs, ys);
    if (!t.ok) throw new Error(t.reason);
    expect(t.direction).toBe("increasing");
    expect(trendTest(xs, ys, { alpha: t.mannKendall.p })).toMatchObject({ direction: "none" });
    expect(trendTest(xs, ys, { alpha: t.mannKendall.p * 1.01 })).toMatchObject({ direction: "increasing" });
  });

  it("a significant S whose Theil–Sen slope is 0 is no trend", () => {
    // One step up at 40 of 60 s: block means 0 × 8 then 1 × 4, so 34 of the 66 pairs are level (median slope 0) while
    // the other 32 all rise (S = 32, p ≈ 0.009)
    const xs = range(60);
    const ys = xs.map((x) => (x < 40 ? 0 : 1));
    const t = trendTest(xs, ys);
    if (!t.ok) throw new Error(t.reason);
    expect(t.mannKendall.p).toBeLessThan(DEFAULT_ALPHA);
    expect(t.theilSen.slope).toBe(0);
    expect(t.direction).toBe("none");
    const down = trendTest(
      xs,
      ys.map((y) => -y),
    );
    expect(down).toMatchObject({ direction: "none" });
  });

  it("flat is none; too few points or times is not enough data", () => {
    expect(trendTest(range(30), Array<number>(30).fill(5))).toMatchObject({ ok: true, direction: "none" });
    expect(trendTest([1, 2], [1, 2])).toEqual({ ok: false, n: 2, reason: "needs at least 3 samples" });
    expect(trendTest(Array<number>(30).fill(1), range(30))).toEqual({
      ok: false,
      n: 30,
      reason: "all samples have the same time",
    });
    // twelve samples at 0 s and one at 10 s: two block means, too few to test
    const clumped = [...Array<number>(12).fill(0), 10];
    expect(trendTest(clumped, range(13))).toEqual({ ok: false, n: 13, reason: "too few distinct times" });
  });

  it("the confidence asked for is the Theil–Sen interval's", () => {
    const xs = range(120);
    const ys = xs.map((x) => x + ((x * 7919) % 17));
    const narrow = trendTest(xs, ys, { confidence: 0.5 });
    const wide = trendTest(xs, ys);
    if (!narrow.ok || !wide.ok) throw new Error("no trend");
    expect(narrow.theilSen.confidence).toBe(0.5);
    expect(wide.theilSen.confidence).toBe(0.95);
    expect(narrow.theilSen.high - narrow.theilSen.low).toBeLessThan(wide.theilSen.high - wide.theilSen.low);
  });
});
