/**
 * quantileInPlace and quantilesInPlace on large arrays (8,192 values and more: Theil–Sen's 200,000 slopes) narrows to a band placed by
 * probes before it selects. Whatever the order and ties of the values, and where the probes mislead (the band then
 * misses and the whole array is selected), the answer is the sorted array's quantile.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quantileInPlace, quantileOfSorted, quantilesInPlace } from "../../../src/analysis/stats/quantiles.js";
import { mulberry32 } from "../../../src/analysis/stats/random.js";

const sortedQuantile = (vs: Float64Array, p: number) => quantileOfSorted(Float64Array.from(vs).sort(), p);

/** Arrays of n values laid out as a shape: the orders select and the probes find hardest. */
function shaped(shape: string, n: number, seed: number): Float64Array {
  const rnd = mulberry32(seed);
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (shape === "random") a[i] = (rnd() - 0.5) * 1e9;
    else if (shape === "few values") a[i] = Math.floor(rnd() * 5);
    else if (shape === "sorted") a[i] = i;
    else if (shape === "reversed") a[i] = n - i;
    else if (shape === "constant") a[i] = 7;
    else if (shape === "organ pipe") a[i] = Math.min(i, n - i);
    // Every value a probe reads (evenly spaced) is 0 and the rest large: the probes place the band wrongly.
    else if (shape === "probes mislead") a[i] = i % Math.floor(n / 4096) === Math.floor(n / 8192) ? 0 : 1e6 + rnd();
    else if (shape === "mostly zero slopes") a[i] = rnd() < 0.6 ? 0 : (rnd() - 0.5) * 1e3;
  }
  return a;
}

const SHAPES = [
  "random",
  "few values",
  "sorted",
  "reversed",
  "constant",
  "organ pipe",
  "probes mislead",
  "mostly zero slopes",
];

describe("quantileInPlace on large arrays", () => {
  it.each(SHAPES)("%s: the sorted array's quantile at every p", (shape) => {
    for (const n of [8192, 32768, 200_000]) {
      const a = shaped(shape, n, n);
      for (const p of [0, 1e-6, 0.025, 0.25, 0.5, 0.5 + 1e-7, 0.975, 1]) {
        const want = sortedQuantile(a, p);
        expect(quantileInPlace(a.slice(), p), `${shape} n=${n} p=${p}`).toBe(want);
      }
    }
  });

  it("random arrays and quantiles: the sorted array's", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8192, max: 40_000 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, seed, distinct, p) => {
          const rnd = mulberry32(seed);
          const a = Float64Array.from({ length: n }, () => Math.floor(rnd() * distinct) * 1.5);
          expect(quantileInPlace(a.slice(), p)).toBe(sortedQuantile(a, p));
        },
      ),
      { numRuns: 60 },
    );
  });

  it.each(SHAPES)("%s: several quantiles from one band, each the sorted array's", (shape) => {
    for (const n of [100, 8192, 44_850, 200_000]) {
      const a = shaped(shape, n, n + 1);
      // Theil–Sen's median and Sen's bounds, close together; and quantiles far apart, or out of order.
      for (const ps of [[0.5, 0.473, 0.527], [0.5, 0, 1], [0.9, 0.1], [0.5]]) {
        const got = quantilesInPlace(a.slice(), ps);
        expect(got, `${shape} n=${n} ${ps.join(",")}`).toEqual(ps.map((p) => sortedQuantile(a, p)));
      }
    }
  });

  it("with a NaN among the values, or a NaN p: what one quantileInPlace after another on the same array gives", () => {
    // The selections in turn rely on every value comparing one way or the other; where one does not, each quantile is
    // selected over the whole array as before, in the order asked.
    for (const n of [100, 8192]) {
      const a = shaped("random", n, 5);
      a[17] = NaN;
      for (const ps of [
        [0.5, 0.473, 0.527],
        [0.9, 0.1],
      ]) {
        const one = a.slice();
        expect(quantilesInPlace(a.slice(), ps), `n=${n} ${ps.join(",")}`).toEqual(
          ps.map((p) => quantileInPlace(one, p)),
        );
      }
      const b = shaped("random", n, 6);
      const one = b.slice();
      expect(quantilesInPlace(b.slice(), [0.5, NaN, 0.4])).toEqual([0.5, NaN, 0.4].map((p) => quantileInPlace(one, p)));
    }
  });

  it("with ±Infinity among the values: the sorted array's quantiles (the whole array selected)", () => {
    for (const n of [8192, 200_000]) {
      const a = shaped("random", n, 9);
      a[3] = Infinity;
      a[n - 5] = -Infinity;
      for (const ps of [
        [0.5, 0.473, 0.527],
        [0, 1],
      ]) {
        expect(quantilesInPlace(a.slice(), ps), `n=${n}`).toEqual(ps.map((p) => sortedQuantile(a, p)));
        for (const p of ps) expect(quantileInPlace(a.slice(), p)).toBe(sortedQuantile(a, p));
      }
    }
  });
});
