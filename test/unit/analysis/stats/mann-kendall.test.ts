/**
 * stats/mann-kendall.ts by exact values on small hand-made series: the tie sums, S counted by the Fenwick tree
 * (against the O(n²) count done by hand), Kendall's variance with ties in values, in times and in both, tau-b, the
 * continuity-corrected z and its p, and the inputs turned away. The expected figures were worked out by brute force
 * over all pairs (S, the tie groups) and Kendall's formula in exact fractions.
 */
import { describe, expect, it } from "vitest";
import {
  MIN_TREND_POINTS,
  checkTrendInput,
  kendallCounts,
  mannKendall,
  mannKendallOf,
  tieSums,
} from "../../../../src/analysis/stats/mann-kendall.js";

function answered(r: ReturnType<typeof mannKendall>) {
  if (!r.ok) throw new Error(r.reason);
  return r;
}

describe("tieSums", () => {
  it("Σ over groups of equal values: t(t−1)/2, t(t−1), t(t−1)(t−2), t(t−1)(2t+5)", () => {
    // groups of 3, 2, 1, 2
    expect(tieSums([1, 1, 1, 2, 2, 3, 4, 4])).toEqual({ pairs: 5, t1: 10, t2: 6, t5: 102 });
    expect(tieSums([1, 2, 3])).toEqual({ pairs: 0, t1: 0, t2: 0, t5: 0 });
    expect(tieSums([])).toEqual({ pairs: 0, t1: 0, t2: 0, t5: 0 });
    // one group of 4 at the end, after a lone value
    expect(tieSums([0, 9, 9, 9, 9])).toEqual({ pairs: 6, t1: 12, t2: 24, t5: 156 });
  });
});

describe("kendallCounts", () => {
  it("ties in time, in value and in both (pairs tied in both are counted once)", () => {
    // (1,5) (1,3) (1,5) (2,6) (2,6) (3,2) (4,9) (4,9): three pairs tied in both time and value
    const c = kendallCounts({ xs: [1, 1, 1, 2, 2, 3, 4, 4], ys: [5, 3, 5, 6, 6, 2, 9, 9] });
    expect(c.n).toBe(8);
    expect(c.s).toBe(13);
    expect(c.varS).toBeCloseTo(4805 / 84, 10);
    expect(c.tau).toBeCloseTo(0.5421374765483944, 12);
    expect(c.distinctTimePairs).toBe(23); // 28 pairs less 5 with the same time
  });

  it("a series falling all the way: S = −n(n−1)/2, tau = −1", () => {
    const c = kendallCounts({ xs: [0, 1, 2, 3, 4, 5, 6], ys: [7, 6, 5, 4, 3, 2, 1] });
    expect(c).toMatchObject({ n: 7, s: -21, distinctTimePairs: 21 });
    expect(c.varS).toBeCloseTo(133 / 3, 12); // 7·6·19 / 18
    expect(c.tau).toBeCloseTo(-1, 12);
    expect(c.tau).toBeGreaterThanOrEqual(-1);
  });

  it("rising all the way: tau = 1, never past it", () => {
    const c = kendallCounts({ xs: [0, 1, 2, 3, 4, 5, 6], ys: [1, 2, 3, 4, 5, 6, 7] });
    expect(c.s).toBe(21);
    expect(c.tau).toBeCloseTo(1, 12);
    expect(c.tau).toBeLessThanOrEqual(1);
  });

  it("tau is clamped to [−1, 1]: √3·√3 rounds below 3, so 3 concordant pairs of 3 would read past 1", () => {
    expect(kendallCounts({ xs: [0, 1, 2], ys: [1, 2, 3] }).tau).toBe(1);
    expect(kendallCounts({ xs: [0, 1, 2], ys: [3, 2, 1] }).tau).toBe(-1);
  });

  it("values in no rank order: the dense ranks of negative, fractional and repeated values", () => {
    // pairs (i<j) up − down over (−1.5, 10, 0.25, 10, −7, 11): 3 − 1 + 1 + 0 + 1
    const ys = [-1.5, 10, 0.25, 10, -7, 11];
    let s = 0;
    for (let i = 0; i < ys.length; i++) for (let j = i + 1; j < ys.length; j++) s += Math.sign(ys[j]! - ys[i]!);
    expect(s).toBe(4);
    expect(kendallCounts({ xs: [0, 1, 2, 3, 4, 5], ys }).s).toBe(4);
  });

  it("a zigzag rising: S = 33, Var = 10·9·25/18 = 125 less nothing (no ties in time)", () => {
    const c = kendallCounts({ xs: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ys: [1, 2, 1, 3, 2, 4, 3, 5, 4, 6] });
    expect(c.s).toBe(33);
    // value ties: four pairs (1,1) (2,2) (3,3) (4,4): 125 − 4·2·9/18 = 121
    expect(c.varS).toBe(121);
    expect(c.tau).toBeCloseTo(0.768273325346536, 12);
  });

  it("all values equal: S = 0, no variance, tau 0 (its denominator is 0)", () => {
    const c = kendallCounts({ xs: [0, 1, 2, 3], ys: [2, 2, 2, 2] });
    expect(c).toEqual({ n: 4, s: 0, varS: 0, tau: 0, distinctTimePairs: 6 });
  });

  it("two times, each with the same three values: S = 0 and Kendall's variance with ties in both", () => {
    const c = kendallCounts({ xs: [0, 0, 0, 1, 1, 1], ys: [1, 2, 3, 1, 2, 3] });
    expect(c.s).toBe(0);
    expect(c.varS).toBeCloseTo(96 / 5, 12);
    expect(c.tau).toBe(0);
    expect(c.distinctTimePairs).toBe(9);
  });

  it("groups of three tied in time and in value: the variance's Σt(t−1)(t−2) term of both", () => {
    // times in groups 3, 3, 2; values in groups 2, 3, 3: (Σ x.t2 · Σ y.t2) / (9n(n−1)(n−2)) = 12 · 12 / 3024
    const c = kendallCounts({ xs: [0, 0, 0, 1, 1, 1, 2, 2], ys: [1, 1, 2, 2, 2, 3, 3, 3] });
    expect(c.s).toBe(17);
    expect(c.varS).toBeCloseTo(1413 / 28, 10);
    expect(c.tau).toBeCloseTo(0.8095238095238096, 12);
    expect(c.distinctTimePairs).toBe(21);
  });

  it("the same series twice gives the same counts (working arrays are reused)", () => {
    const s = { xs: [0, 1, 1, 2, 3], ys: [4, 2, 2, 5, 1] };
    const first = kendallCounts(s);
    kendallCounts({ xs: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], ys: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2] });
    expect(kendallCounts(s)).toEqual(first);
  });
});

describe("mannKendall", () => {
  it("a zigzag rising: z = (33 − 1)/11, p two-sided", () => {
    const r = answered(mannKendall([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 1, 3, 2, 4, 3, 5, 4, 6]));
    expect(r).toMatchObject({ ok: true, n: 10, s: 33, varS: 121 });
    expect(r.z).toBeCloseTo(32 / 11, 12);
    expect(r.p).toBeCloseTo(0.0036248143852060932, 6);
  });

  it("falling: z negative, corrected towards 0 by one, p the same two-sided", () => {
    const r = answered(mannKendall([0, 1, 2, 3, 4, 5, 6], [7, 6, 5, 4, 3, 2, 1]));
    expect(r.s).toBe(-21);
    expect(r.z).toBeCloseTo(-20 / Math.sqrt(133 / 3), 12);
    expect(r.p).toBeCloseTo(0.0026666817936140987, 6);
    expect(r.tau).toBeCloseTo(-1, 12);
  });

  it("ties in both: p of z = (13 − 1)/√Var", () => {
    const r = answered(mannKendall([1, 1, 1, 2, 2, 3, 4, 4], [5, 3, 5, 6, 6, 2, 9, 9]));
    expect(r.z).toBeCloseTo(1.586624634729228, 10);
    expect(r.p).toBeCloseTo(0.11259768461348096, 6);
  });

  it("S = 0 with variance, and all values tied (no variance): z = 0, p = 1", () => {
    expect(answered(mannKendall([0, 1, 2, 3, 4], [3, 1, 2, 1, 3]))).toMatchObject({ s: 0, z: 0, p: 1, tau: 0 });
    expect(answered(mannKendall([0, 1, 2, 3], [2, 2, 2, 2]))).toMatchObject({ s: 0, varS: 0, z: 0, p: 1 });
  });

  it("a tiny S over a large variance: p stays within [0, 1]", () => {
    // S = 1 of 3 points: z = 0, p = 1
    const r = answered(mannKendall([0, 1, 2], [1, 3, 2]));
    expect(r.s).toBe(1);
    expect(r.z).toBe(0);
    expect(r.p).toBe(1);
  });

  it("cleans its input: non-finite pairs dropped, samples sorted by time", () => {
    const r = answered(mannKendall([4, NaN, 0, 2, 1, 3, Infinity], [5, 1, 1, 3, 2, 4, 0]));
    expect(r).toMatchObject({ n: 5, s: 10 });
  });

  it("turns away fewer than 3 samples, and samples all at one time", () => {
    expect(MIN_TREND_POINTS).toBe(3);
    expect(mannKendall([0, 1], [1, 2])).toEqual({ ok: false, n: 2, reason: "needs at least 3 samples" });
    expect(mannKendall([5, 5, 5], [1, 2, 3])).toEqual({ ok: false, n: 3, reason: "all samples have the same time" });
    expect(checkTrendInput({ xs: [0, 1, 2], ys: [1, 1, 1] })).toBeUndefined();
  });

  it("mannKendallOf carries the counts and adds z and p", () => {
    const r = mannKendallOf({ n: 5, s: 6, varS: 50 / 3, tau: 0.6, distinctTimePairs: 10 });
    expect(r).toMatchObject({ ok: true, n: 5, s: 6, varS: 50 / 3, tau: 0.6 });
    expect(r.z).toBeCloseTo(5 / Math.sqrt(50 / 3), 12);
    expect(r.p).toBeCloseTo(0.2206713619, 6);
    // no variance (all values or all times tied) is no evidence, whatever S is said to be: z 0, p 1
    expect(mannKendallOf({ n: 5, s: 6, varS: 0, tau: 0.6, distinctTimePairs: 10 })).toMatchObject({ z: 0, p: 1 });
    // a negative variance (never computed, but the guard says no evidence): z 0, p 1
    expect(mannKendallOf({ n: 5, s: 6, varS: -1, tau: 0.6, distinctTimePairs: 10 })).toMatchObject({ z: 0, p: 1 });
  });
});
