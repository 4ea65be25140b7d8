/**
 * stats/theil-sen.ts by exact values: the median pairwise slope, the intercept, Sen's interval at several confidences
 * (hand-worked from the sorted slopes: ranks (N ∓ C)/2 (+1) mapped to type-7 quantiles), pairs between tied times
 * left out, the pair sampler past MAX_EXACT_PAIRS (drawing only pairs of different times), and the inputs turned away.
 */
import { describe, expect, it } from "vitest";
import { kendallCounts } from "../../../../src/analysis/stats/mann-kendall.js";
import { quantile } from "../../../../src/analysis/stats/quantiles.js";
import { mulberry32 } from "../../../../src/analysis/stats/random.js";
import { slopeBetween } from "../../../../src/analysis/stats/saturating.js";
import {
  MAX_EXACT_PAIRS,
  SAMPLED_PAIRS,
  theilSen,
  theilSenLine,
  theilSenOf,
} from "../../../../src/analysis/stats/theil-sen.js";

function answered(r: ReturnType<typeof theilSen>) {
  if (!r.ok) throw new Error(r.reason);
  return r;
}

// Pairwise slopes of (1,1) (2,3) (3,2) (4,5) (5,4), sorted: −1 −1 1/3 1/2 3/4 1 1 4/3 2 3; Var(S) = 50/3.
const xs = [1, 2, 3, 4, 5];
const ys = [1, 3, 2, 5, 4];

describe("theilSen on a hand-worked dataset", () => {
  it("slope = median slope, intercept = median of y − slope·x, 95% interval at the extreme slopes", () => {
    expect(answered(theilSen(xs, ys))).toEqual({
      ok: true,
      n: 5,
      slope: 0.875,
      intercept: 0.125,
      low: -1,
      high: 3,
      confidence: 0.95,
      pairs: 10,
      sampled: false,
    });
  });

  it.each([
    // C = z·√(50/3); ranks (10 − C)/2 and (10 + C)/2 + 1, quantiles (r − 1)/9 of the 10 sorted slopes
    [0.5, 0.43720059378920967, 1.1255988124215808],
    [0.8, -0.48794157183247044, 1.7439707859162348],
  ])("confidence %s: Sen's interval [%s, %s]", (confidence, low, high) => {
    const r = answered(theilSen(xs, ys, { confidence }));
    expect(r.slope).toBe(0.875);
    expect(r.confidence).toBe(confidence);
    expect(r.low).toBeCloseTo(low, 7);
    expect(r.high).toBeCloseTo(high, 7);
  });

  it("a confidence outside (0, 1) falls back to 95%", () => {
    expect(answered(theilSen(xs, ys, { confidence: 1.5 }))).toMatchObject({ confidence: 0.95, low: -1, high: 3 });
  });

  it("the interval never leaves the slope out: a bound past it is the slope", () => {
    // Tied times (1,1) (1,2) (2,2) (2,3) (3,3): slopes 0 0 ½ 1 1 1 1 2; at 50% the upper bound's rank falls on a
    // slope of 1, the median itself.
    const r = answered(theilSen([1, 1, 2, 2, 3], [1, 2, 2, 3, 3], { confidence: 0.5 }));
    expect(r).toMatchObject({ slope: 1, intercept: 0, high: 1, pairs: 8 });
    expect(r.low).toBeCloseTo(0.3904662337373608, 7);
    expect(answered(theilSen([1, 1, 2, 2, 3], [1, 2, 2, 3, 3]))).toMatchObject({ low: 0, high: 2, pairs: 8 });
  });

  it("the intercept is the line's value at x = 0, wherever the times start", () => {
    const r = answered(theilSen([1000, 1001, 1002, 1003], [7, 9, 11, 13]));
    expect(r).toMatchObject({ slope: 2, intercept: -1993, low: 2, high: 2 });
  });

  it("a falling line: negative slope, its interval around it", () => {
    const r = answered(theilSen([0, 1, 2, 3, 4, 5], [10, 8, 6, 4, 2, 0]));
    expect(r).toMatchObject({ slope: -2, intercept: 10, low: -2, high: -2, pairs: 15 });
  });

  it("theilSenOf on counts given: three samples, one pair of times tied", () => {
    const s = { xs: [0, 0, 2], ys: [1, 3, 5] };
    const r = theilSenOf(s, kendallCounts(s), 0.9);
    // slopes between different times only: (5 − 1)/2 = 2 and (5 − 3)/2 = 1
    expect(r).toMatchObject({ ok: true, n: 3, slope: 1.5, pairs: 2, sampled: false, confidence: 0.9 });
    expect(r.intercept).toBe(2); // median of 1, 3, 2
    expect(r.low).toBe(1);
    expect(r.high).toBe(2);
  });

  it("theilSenOf with a single pair of different times: both bounds are its slope", () => {
    const s = { xs: [0, 0, 4], ys: [2, 2, 10] };
    const r = theilSenOf(s, kendallCounts(s), 0.95);
    expect(r).toMatchObject({ slope: 2, low: 2, high: 2, pairs: 2 });
  });
});

describe("the pair sampler, past MAX_EXACT_PAIRS", () => {
  it("633 points make 200,256 pairs: sampled, exactly SAMPLED_PAIRS slopes; 632 make 199,396: all of them", () => {
    expect(MAX_EXACT_PAIRS).toBe(200_000);
    expect(SAMPLED_PAIRS).toBe(200_000);
    const line = (n: number) => Array.from({ length: n }, (_, i) => i);
    const big = answered(
      theilSen(
        line(633),
        line(633).map((x) => 3 * x + 4),
      ),
    );
    expect(big).toMatchObject({ sampled: true, pairs: 200_000, slope: 3, intercept: 4, low: 3, high: 3 });
    const exact = answered(
      theilSen(
        line(632),
        line(632).map((x) => 3 * x + 4),
      ),
    );
    expect(exact).toMatchObject({ sampled: false, pairs: 199_396, slope: 3, intercept: 4 });
  });

  it("with tied times, only pairs of different times are drawn: every slope is the line's", () => {
    // 1,400 samples, two at each time, both on y = 2x − 7: a pair at one time would be 0/0 (NaN).
    const txs = Array.from({ length: 1400 }, (_, i) => Math.floor(i / 2));
    const r = answered(
      theilSen(
        txs,
        txs.map((x) => 2 * x - 7),
      ),
    );
    expect(r).toMatchObject({ sampled: true, pairs: 200_000, slope: 2, intercept: -7, low: 2, high: 2 });
  });

  it("with tied times in blocks of 3 and a second value above the line, the slopes stay those of different times", () => {
    // at each time t: 5t, 5t, 5t + 1000: slopes between different times are 5 or 5 ± 1000/Δt, never ±Infinity
    const txs = Array.from({ length: 900 }, (_, i) => Math.floor(i / 3));
    const tys = txs.map((x, i) => 5 * x + (i % 3 === 2 ? 1000 : 0));
    const r = answered(theilSen(txs, tys));
    expect(r.sampled).toBe(true);
    expect(r.slope).toBe(5);
    expect(Number.isFinite(r.low) && Number.isFinite(r.high)).toBe(true);
    expect(r.low).toBeLessThanOrEqual(5);
    expect(r.high).toBeGreaterThanOrEqual(5);
  });

  it("the pairs drawn are mulberry32(0x5eed1eac)'s: i uniform, then j uniform among the other times", () => {
    // The sampler writes mulberry32's step out inline; drawn here with random.ts's generator, the same pairs give the
    // same median and Sen's bounds. Times tied in pairs from 300 s on, so the skip over i's own time is exercised.
    const n = 700;
    const txs = Array.from({ length: n }, (_, i) => (i < 300 ? i : 300 + Math.floor((i - 300) / 2)));
    // continuous noise: no slope value is shared by many pairs, so another draw of pairs moves the median
    const noise = mulberry32(99);
    const tys = txs.map((x) => 10 * x + noise() * 500);
    const blockOf = (i: number): [number, number] => {
      let lo = i;
      let hi = i + 1;
      while (lo > 0 && txs[lo - 1] === txs[i]) lo--;
      while (hi < n && txs[hi] === txs[i]) hi++;
      return [lo, hi];
    };
    const rnd = mulberry32(0x5eed1eac);
    const slopes: number[] = [];
    for (let k = 0; k < SAMPLED_PAIRS; k++) {
      const i = Math.floor(rnd() * n);
      const [lo, hi] = blockOf(i);
      let j = Math.floor(rnd() * (n - (hi - lo)));
      if (j >= lo) j += hi - lo;
      const [a, b] = i < j ? [i, j] : [j, i];
      slopes.push((tys[b]! - tys[a]!) / (txs[b]! - txs[a]!));
    }
    const r = answered(theilSen(txs, tys));
    expect(r.sampled).toBe(true);
    expect(r.slope).toBe(quantile(slopes, 0.5));
    expect(r.low).toBeGreaterThan(quantile(slopes, 0.4)!);
    expect(r.high).toBeLessThan(quantile(slopes, 0.6)!);
  });

  it("pairs drawn for one fit are used again only for the same times: fits in turn give the generator's answers", () => {
    // The sampler keeps the last pairs it drew (the seed is fixed, so they depend on the number of samples and which
    // share a time alone). Fits of 700 samples with their times tied in different places, of 701, and two with spans
    // that overflow (slopeBetween halving its operands), in an order that goes back and forth between them: each
    // must give the median of the pairs random.ts's generator draws for it.
    const drawnSlopes = (txs: number[], tys: number[]) => {
      const n = txs.length;
      const rnd = mulberry32(0x5eed1eac);
      const slopes: number[] = [];
      for (let k = 0; k < SAMPLED_PAIRS; k++) {
        const i = Math.floor(rnd() * n);
        let lo = i;
        let hi = i + 1;
        while (lo > 0 && txs[lo - 1] === txs[i]) lo--;
        while (hi < n && txs[hi] === txs[i]) hi++;
        let j = Math.floor(rnd() * (n - (hi - lo)));
        if (j >= lo) j += hi - lo;
        const [a, b] = i < j ? [i, j] : [j, i];
        slopes.push(slopeBetween(txs[a]!, tys[a]!, txs[b]!, tys[b]!));
      }
      return slopes;
    };
    const noise = mulberry32(7);
    const valuesOn = (txs: number[], scale: number) => txs.map((x) => 10 * x + noise() * scale);
    const distinct = Array.from({ length: 700 }, (_, i) => i);
    const tiedLate = distinct.map((i) => (i < 300 ? i : 300 + Math.floor((i - 300) / 2)));
    const tiedEarly = distinct.map((i) => (i < 400 ? Math.floor(i / 2) : i - 200));
    const longer = Array.from({ length: 701 }, (_, i) => i);
    const quarters = distinct.map((i) => [0, 1, 3, 4][Math.floor(i / 175)]!);
    const fits: [number[], number[]][] = [
      [distinct, valuesOn(distinct, 500)],
      [tiedLate, valuesOn(tiedLate, 500)],
      [tiedEarly, valuesOn(tiedEarly, 500)],
      [distinct, valuesOn(distinct, 900)],
      [longer, valuesOn(longer, 500)],
      [tiedLate, valuesOn(tiedLate, 900)],
      // two quarters low at 0 s and 1 s, two high at 3 s and 4 s: two thirds of the pairs drawn are a low and a high
      // value, whose difference overflows (so the median is one of those slopes), and tied times are left out
      [quarters, quarters.map((x) => (x < 2 ? -1 : 1) * (1.5e308 + noise() * 1e306))],
      [longer.map((x) => (x - 350) * 4e305), valuesOn(longer, 500)],
    ];
    for (const [txs, tys] of fits) {
      const r = answered(theilSen(txs, tys));
      expect([r.n, r.sampled]).toEqual([txs.length, true]);
      expect(r.slope).toBe(quantile(drawnSlopes(txs, tys), 0.5));
    }
  });

  it("slopes past ±MAX between samples closer than the values' span allows are clamped, exact or sampled", () => {
    // Times 1e-300 s apart, values 1e10 B apart: every difference is finite, every quotient overflows. The slopes are
    // written without slopeBetween's checks only where neither can happen; here saturate must still clamp each.
    for (const n of [40, 700]) {
      const txs = Array.from({ length: n }, (_, i) => i * 1e-300);
      const r = answered(
        theilSen(
          txs,
          txs.map((_, i) => (i % 7) * 1e10 + i * 1e11),
        ),
      );
      expect([r.sampled, r.slope, r.low]).toEqual([n === 700, Number.MAX_VALUE, Number.MAX_VALUE]);
      // falling: clamped at −MAX, not −Infinity
      const down = answered(
        theilSen(
          txs,
          txs.map((_, i) => -i * 1e11),
        ),
      );
      expect([down.slope, down.high]).toEqual([-Number.MAX_VALUE, -Number.MAX_VALUE]);
    }
  });

  it("the same input gives the same answer (fixed seed), and theilSenLine the same line", () => {
    const n = 700;
    const txs = Array.from({ length: n }, (_, i) => i);
    // a deterministic zigzag: slopes spread, so the draw matters
    const tys = txs.map((x) => 10 * x + ((x * 37) % 101) * 50);
    const a = answered(theilSen(txs, tys));
    const b = answered(theilSen(txs, tys));
    expect(b).toEqual(a);
    expect(a.sampled).toBe(true);
    const line = theilSenLine(txs, tys);
    expect(line).toEqual({ ok: true, slope: a.slope, intercept: a.intercept });
  });
});

describe("theilSenLine and the inputs turned away", () => {
  it("theilSenLine: the slope and intercept alone, tied times left out of the pairs", () => {
    expect(theilSenLine(xs, ys)).toEqual({ ok: true, slope: 0.875, intercept: 0.125 });
    expect(theilSenLine([1, 1, 2, 2, 3], [1, 2, 2, 3, 3])).toEqual({ ok: true, slope: 1, intercept: 0 });
    expect(theilSenLine([0, 0, 2], [1, 3, 5])).toEqual({ ok: true, slope: 1.5, intercept: 2 });
  });

  it("fewer than 3 samples, or all at one time: not enough data", () => {
    expect(theilSen([1, 2], [3, 4])).toEqual({ ok: false, n: 2, reason: "needs at least 3 samples" });
    expect(theilSen([2, 2, 2], [3, 4, 5])).toEqual({ ok: false, n: 3, reason: "all samples have the same time" });
    expect(theilSenLine([1, 2], [3, 4])).toEqual({ ok: false, n: 2, reason: "needs at least 3 samples" });
    expect(theilSenLine([2, 2, 2], [3, 4, 5])).toEqual({ ok: false, n: 3, reason: "all samples have the same time" });
  });

  it("cleans its input: non-finite pairs dropped, sorted by time", () => {
    expect(answered(theilSen([5, NaN, 3, 1, 4, 2], [4, 0, 2, 1, 5, 3]))).toMatchObject({ n: 5, slope: 0.875 });
  });
});
