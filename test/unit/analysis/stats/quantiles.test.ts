/**
 * stats/quantiles.ts on small hand-made inputs, by exact values: R's type-7 quantile of a sorted array, the same
 * quantile by selection (quickselect with a three-way partition) whatever the order of the values and their ties,
 * several quantiles at once, and median / MAD with non-finite entries and values near ±MAX. stats.test.ts checks the
 * same against sorting by properties over thousands of random arrays; these pin the answers in a few hundred calls.
 */
import { describe, expect, it } from "vitest";
import {
  MAD_SCALE,
  mad,
  median,
  quantile,
  quantileInPlace,
  quantileOfSorted,
  quantilesInPlace,
} from "../../../../src/analysis/stats/quantiles.js";

const MAX = Number.MAX_VALUE;

/** Every ordering of `vs`: select's pivot (median of first, middle, last) and its partition meet each layout. */
function permutations(vs: readonly number[]): number[][] {
  if (vs.length <= 1) return [vs.slice()];
  const out: number[][] = [];
  for (let i = 0; i < vs.length; i++) {
    const rest = [...vs.slice(0, i), ...vs.slice(i + 1)];
    for (const p of permutations(rest)) out.push([vs[i]!, ...p]);
  }
  return out;
}

describe("quantileOfSorted (R's type 7)", () => {
  const s = Float64Array.from([10, 20, 40, 80]);
  it.each([
    [0, 10],
    [1 / 3, 20],
    [0.5, 30],
    [0.75, 50],
    [0.9, 68],
    [1, 80],
    // p is clamped to [0, 1]
    [-0.5, 10],
    [2, 80],
  ])("p = %s → %s", (p, want) => {
    expect(quantileOfSorted(s, p)).toBeCloseTo(want, 12);
  });

  it("one value is every quantile", () => {
    for (const p of [0, 0.3, 1]) expect(quantileOfSorted(Float64Array.from([5]), p)).toBe(5);
  });
});

describe("quantileInPlace: the sorted array's quantile, whatever the order", () => {
  // Hand-computed type-7 quantiles of sorted [1, 2, 3, 4, 5] and of [1, 2, 2, 2, 7, 9] (ties).
  const cases: [string, number[], [number, number][]][] = [
    [
      "five distinct, odd length",
      [1, 2, 3, 4, 5],
      [
        [0, 1],
        [0.1, 1.4],
        [0.25, 2],
        [0.5, 3],
        [0.6, 3.4],
        [0.75, 4],
        [0.95, 4.8],
        [1, 5],
      ],
    ],
    [
      "six with a run of ties, even length",
      [1, 2, 2, 2, 7, 9],
      [
        [0, 1],
        [0.1, 1.5],
        [0.3, 2],
        [0.5, 2],
        [0.7, 4.5],
        [0.8, 7],
        [0.9, 8],
        [1, 9],
      ],
    ],
    [
      "four, two pairs of ties",
      [3, 3, 8, 8],
      [
        [0, 3],
        [0.5, 5.5],
        [0.25, 3],
        [0.4, 4],
        [1, 8],
      ],
    ],
  ];

  it.each(cases)("%s: each p in every ordering", (_, values, want) => {
    for (const order of permutations(values)) {
      for (const [p, q] of want) {
        expect(quantileInPlace(Float64Array.from(order), p), `${order.join(",")} p=${p}`).toBeCloseTo(q, 12);
      }
    }
  });

  it("the k-th order statistic itself (no interpolation) in every ordering of seven values with ties", () => {
    const sorted = [-4, 0, 0, 1, 5, 5, 12];
    for (const order of permutations(sorted)) {
      for (let k = 0; k < sorted.length; k++) {
        expect(quantileInPlace(Float64Array.from(order), k / 6), `${order.join(",")} k=${k}`).toBe(sorted[k]);
      }
    }
  });

  it("all equal values: that value, in one pass", () => {
    expect(quantileInPlace(Float64Array.from([7, 7, 7, 7, 7]), 0.3)).toBe(7);
  });

  it("one value and two values", () => {
    expect(quantileInPlace(Float64Array.from([4]), 0.5)).toBe(4);
    expect(quantileInPlace(Float64Array.from([9, 1]), 0.5)).toBe(5);
    expect(quantileInPlace(Float64Array.from([9, 1]), 0.25)).toBe(3);
  });

  it("p is clamped to [0, 1]", () => {
    expect(quantileInPlace(Float64Array.from([3, 1, 2]), -1)).toBe(1);
    expect(quantileInPlace(Float64Array.from([3, 1, 2]), 5)).toBe(3);
  });

  it("interpolating towards the next order statistic: the smallest value past k, not the last one", () => {
    // After select(k = 1) of [1, 2, 10, 3] the values past k are {3, 10} in some order: 3 is the next.
    expect(quantileInPlace(Float64Array.from([10, 1, 3, 2]), 0.5)).toBe(2.5);
    expect(quantileInPlace(Float64Array.from([1, 2, 10, 3]), 0.5)).toBe(2.5);
    expect(quantileInPlace(Float64Array.from([3, 10, 2, 1]), 0.5)).toBe(2.5);
  });

  it("interpolation between values near ±MAX saturates instead of overflowing", () => {
    expect(quantileInPlace(Float64Array.from([MAX, -MAX]), 0.5)).toBe(0);
    expect(quantileInPlace(Float64Array.from([MAX, MAX, 0]), 0.9)).toBe(MAX);
  });
});

describe("quantilesInPlace", () => {
  it("several quantiles of the same small array, each the sorted array's", () => {
    expect(quantilesInPlace(Float64Array.from([5, 1, 4, 2, 3]), [0.5, 0.1, 0.95])).toEqual([3, 1.4, 4.8]);
  });

  it("no quantiles asked: none given", () => {
    expect(quantilesInPlace(Float64Array.from([1, 2]), [])).toEqual([]);
  });

  it("on a large array (past the band's 8,192 values), the same as one at a time", () => {
    // 10,000 values 0..9,999 in a scrambled order: quantile p is p · 9,999.
    const n = 10_000;
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = (i * 7919) % n;
    expect(quantilesInPlace(a.slice(), [0.5, 0.25, 0.975])).toEqual([4999.5, 2499.75, 9749.025]);
    expect(quantileInPlace(a.slice(), 0.5)).toBe(4999.5);
    expect(quantileInPlace(a.slice(), 0)).toBe(0);
    expect(quantileInPlace(a.slice(), 1)).toBe(n - 1);
    expect(quantilesInPlace(a.slice(), [0, 1])).toEqual([0, n - 1]);
  });

  it("on a large array, quantiles near the band's lower and upper edges", () => {
    // Near p = 0.03 the band's lower edge is the probes' lowest order statistics and few values fall below it:
    // what is counted below the band decides which of the band's values is the k-th.
    const n = 10_000;
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = (i * 7919) % n;
    for (const p of [0.02, 0.03, 0.031, 0.97, 0.98]) expect(quantileInPlace(a.slice(), p)).toBeCloseTo(p * 9999, 9);
    expect(quantilesInPlace(a.slice(), [0.031, 0.02])).toEqual([quantileInPlace(a.slice(), 0.031), 199.98000000000002]);
    // few distinct values: runs of ties across the band's edges
    const few = new Float64Array(n);
    for (let i = 0; i < n; i++) few[i] = ((i * 7919) % n) % 7;
    // each of 0..6 about 1,429 times: the 3% and 50% points are 0 and 3, 97% is 6
    expect(quantilesInPlace(few.slice(), [0.03, 0.5, 0.97])).toEqual([0, 3, 6]);
  });

  it("on a large array the band holds the quantiles: one pass, and the array left as it was", () => {
    // Past 8,192 values the quantile is selected on a copy of the band of values around it (bandOf), not by
    // partitioning the whole array; the array is then left in its order. Were the band missed, select would reorder it.
    const n = 10_000;
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = (i * 7919) % n;
    for (const p of [0, 0.03, 0.25, 0.5, 0.975, 1]) {
      const b = a.slice();
      expect(quantileInPlace(b, p)).toBeCloseTo(p * 9999, 9);
      expect(b, `p=${p}`).toEqual(a);
    }
    // from exactly 8,192 values on
    const at = Float64Array.from({ length: 8192 }, (_, i) => (i * 7919) % 8192);
    const c = at.slice();
    expect(quantileInPlace(c, 0.5)).toBe(4095.5);
    expect(c).toEqual(at);
    const b = a.slice();
    expect(quantilesInPlace(b, [0.5, 0.473, 0.527])).toEqual([4999.5, 4729.527, 5269.473]);
    expect(b).toEqual(a);
  });

  it("probes that all read the largest (or smallest) values: the band misses, and the whole array is selected", () => {
    // Every 4th value, the ones the evenly spaced probes read, is 1e6 (or 0) and the rest spread below (above): the
    // band the probes place holds none of the quantiles asked for, which the counts below and inside it must reveal.
    const n = 16_384;
    const high = Float64Array.from({ length: n }, (_, i) => (i % 4 === 2 ? 1e6 + i : i));
    const low = Float64Array.from({ length: n }, (_, i) => (i % 4 === 2 ? 0 : 1e6 + i));
    const sortedHigh = Float64Array.from(high).sort();
    const sortedLow = Float64Array.from(low).sort();
    for (const p of [0.1, 0.5, 0.9]) {
      expect(quantileInPlace(high.slice(), p), `high p=${p}`).toBe(quantileOfSorted(sortedHigh, p));
      expect(quantileInPlace(low.slice(), p), `low p=${p}`).toBe(quantileOfSorted(sortedLow, p));
    }
    // the 10% point of `high`: the 1,638th of the values not ≡ 2 (mod 4), 2184, and 0.3 of the way to the next
    expect(quantileInPlace(high.slice(), 0.1)).toBeCloseTo(2184.3, 9);
    expect(quantilesInPlace(low.slice(), [0.9, 0.5])).toEqual([0.9, 0.5].map((p) => quantileOfSorted(sortedLow, p)));
  });

  it("a NaN p on a large array is select's to answer: its first pivot, the median of the first, middle and last", () => {
    // quantile turns a NaN p away; quantileInPlace hands it to select on the whole array, as before the band: with a
    // NaN rank no partition narrows, and the first pivot, median of a[0] = 0, a[4999] = 7081, a[9999] = 2081, is returned.
    const n = 10_000;
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = (i * 7919) % n;
    const b = a.slice();
    expect(quantileInPlace(b, NaN)).toBe(2081);
    expect(b).not.toEqual(a);
  });

  it("a large array with a NaN: select's answer on the whole array, which depends on where the NaN sits", () => {
    // quantileInPlace never gets a NaN from quantile (it drops them), but it is exported: with a NaN among 10,000
    // values the band is refused and select answers, treating the NaN as equal to its pivot. Without it the median
    // of the rest (values 0..9,999 less the one replaced) is 5,000 or 4,999; select's answers, pinned:
    const n = 10_000;
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = (i * 7919) % n;
    const nanAt = (i: number) => {
      const w = a.slice();
      w[i] = NaN;
      return w;
    };
    const w = nanAt(0);
    expect(quantileInPlace(w, 0.5)).toBe(5000.5);
    // select ran on the whole array (the band refused the NaN): it is reordered
    expect(w).not.toEqual(nanAt(0));
    expect(quantileInPlace(nanAt(5000), 0.5)).toBe(4998.5);
    expect(quantileInPlace(nanAt(9999), 0.03)).toBeCloseTo(298.97, 9);
    expect(quantilesInPlace(nanAt(9999), [0.5, 0.03])).toEqual([4999.5, 299.96999999999997]);
  });

  it("a small array with a NaN, or a NaN p: one selection after another on the same array, as before", () => {
    // Selections in turn rely on no value before k being larger and none after it smaller, which a NaN (comparing
    // neither way) breaks: with one among the values or the ranks, quantilesInPlace answers as quantileInPlace does,
    // one p after another on the same array (select's answer then depends on where the NaN sits, as pinned above).
    const base = Array.from({ length: 40 }, (_, i) => (i * 17) % 40);
    for (const [at, ps] of [
      [0, [0.5, 0.1, 0.9]],
      [13, [0.9, 0.5, 0.25]],
      [39, [0.05, 0.95, 0.5]],
      [-1, [0.5, NaN, 0.1]],
      [-1, [NaN, 0.9]],
    ] as const) {
      const values = Float64Array.from(base);
      if (at >= 0) values[at] = NaN;
      const apart = values.slice();
      const want = ps.map((p) => quantileInPlace(apart, p));
      expect(quantilesInPlace(values.slice(), ps), `NaN at ${at}, ps ${ps.join(",")}`).toEqual(want);
    }
  });

  it("sorted, reversed and organ-pipe arrays just under the band's 8,192: every quantile, in linear time", () => {
    // The median-of-three pivot keeps select linear on the orders slopes come out in; a first- or last-element
    // pivot would make each of these selections quadratic (34 million comparisons), which Stryker sees as a timeout.
    const n = 8191;
    const sorted = Float64Array.from({ length: n }, (_, i) => i);
    const reversed = sorted.slice().reverse();
    const organ = Float64Array.from({ length: n }, (_, i) => Math.min(i, n - 1 - i) * 2 + (i < n / 2 ? 0 : 1));
    for (let round = 0; round < 4; round++) {
      for (const p of [0.1, 0.5, 0.9]) {
        expect(quantileInPlace(sorted.slice(), p)).toBeCloseTo(p * (n - 1), 9);
        expect(quantileInPlace(reversed.slice(), p)).toBeCloseTo(p * (n - 1), 9);
        expect(quantileInPlace(organ.slice(), p)).toBeCloseTo(p * (n - 1), 9);
      }
    }
  });
});

describe("quantile, median, mad", () => {
  it("median of odd and even lengths", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([10])).toBe(10);
  });

  it("non-finite values are left out; none finite gives undefined", () => {
    expect(median([NaN, 3, Infinity, 1, -Infinity])).toBe(2);
    expect(quantile([NaN, 8, NaN, 2], 0.25)).toBe(3.5);
    expect(median([NaN, Infinity])).toBeUndefined();
    expect(median([])).toBeUndefined();
    expect(quantile([1, 2], NaN)).toBeUndefined();
  });

  it("quantile does not reorder its input", () => {
    const vs = [5, 3, 9, 1];
    expect(quantile(vs, 0.5)).toBe(4);
    expect(vs).toEqual([5, 3, 9, 1]);
  });

  it("reads typed arrays as well", () => {
    expect(median(Float64Array.from([6, 2, 4]))).toBe(4);
  });

  it("mad: 1.4826 × the median absolute deviation from the median", () => {
    expect(MAD_SCALE).toBe(1.4826);
    // median 3; deviations 2, 1, 0, 1, 97 → median 1
    expect(mad([1, 2, 3, 4, 100])).toBe(1.4826);
    // median 2.5; deviations 1.5, 0.5, 0.5, 1.5 → median 1
    expect(mad([1, 2, 3, 4])).toBe(1.4826);
    // non-finite values are left out of both medians
    expect(mad([NaN, 1, Infinity, 2, 3, 4, 100, -Infinity])).toBe(1.4826);
    expect(mad([5, 5, 5])).toBe(0);
    expect(mad([7])).toBe(0);
    expect(mad([])).toBeUndefined();
    expect(mad([NaN])).toBeUndefined();
  });

  it("mad of values near ±MAX saturates at MAX instead of reaching Infinity", () => {
    // median 0; deviations MAX, MAX, 0 → median MAX; × 1.4826 overflows, saturated back to MAX
    expect(mad([-MAX, 0, MAX])).toBe(MAX);
    // median −MAX/2 … a deviation MAX − (−MAX) would overflow: saturated
    expect(mad([-MAX, MAX])).toBe(MAX);
  });
});
