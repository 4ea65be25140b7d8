/**
 * The band stats/quantiles.ts selects in on arrays of 8,192 values and more (bandOf), value by value. Its width is
 * what a large quantile costs (a selection on ~1/16 of the values instead of all of them) and cannot be seen in the
 * quantiles, which are the same on any band that holds them: so the band is checked here against the one its doc
 * describes, found the slow way (sorting the probes). Then two arrays built so that the band's upper edge falls just
 * under the order statistic asked for: the band must be refused there, or a value outside it would be taken.
 */
import { describe, expect, it } from "vitest";
import {
  bandOf,
  quantileInPlace,
  quantileOfSorted,
  quantilesInPlace,
} from "../../../../src/analysis/stats/quantiles.js";
import { mulberry32 } from "../../../../src/analysis/stats/random.js";

const PROBES = 4096;
const HALF_WIDTH = 128;

/**
 * The band bandOf's doc describes: the probes are the values at ⌊(i + ½)·n / 4,096⌋ (i < 4,096); among them sorted,
 * the band's lower edge is the one 128 ranks under where the `first`-th value is expected (rank ⌊first·4,096/n⌋) and
 * its upper edge the one 128 ranks over `last`'s, open-ended where that rank is off the probes. The band is every
 * value between its edges (both included), in the array's order, and `below` counts the values under it; there is no
 * band when it does not hold the `first`-th to the `last`-th values.
 */
function bandTheSlowWay(a: Float64Array, first: number, last: number): { values: number[]; below: number } | undefined {
  const n = a.length;
  const probes = Float64Array.from({ length: PROBES }, (_, i) => a[Math.floor(((i + 0.5) * n) / PROBES)]!).sort();
  const lowRank = Math.floor((first * PROBES) / n) - HALF_WIDTH;
  const highRank = Math.floor((last * PROBES) / n) + HALF_WIDTH;
  const low = lowRank < 0 ? -Infinity : probes[lowRank]!;
  const high = highRank >= PROBES ? Infinity : probes[highRank]!;
  const values = Array.from(a).filter((v) => v >= low && v <= high);
  const below = Array.from(a).filter((v) => v < low).length;
  return first < below || last >= below + values.length ? undefined : { values, below };
}

/** The first rank whose probe rank, ⌊rank·4,096/n⌋, is `probeRank`: where a band edge lands exactly on a probe. */
const rankAtProbe = (n: number, probeRank: number) => Math.ceil((probeRank * n) / PROBES);

describe("bandOf: the band its doc describes", () => {
  const n = 10_000;
  const scrambled = Float64Array.from({ length: n }, (_, i) => (i * 7919) % n);
  const rnd = mulberry32(31);
  const ties = Float64Array.from({ length: n }, () => Math.floor(rnd() * 40));
  const noisy = Float64Array.from({ length: n }, () => (rnd() - 0.5) * 1e6);

  // Ranks where the edges fall inside the probes, on their first or last one, and one rank off either end (the
  // band then open-ended there).
  const ranks: [number, number][] = [
    [5000, 5000],
    [4999, 5001],
    [2500, 7500],
    [0, 0],
    [rankAtProbe(n, HALF_WIDTH - 1), rankAtProbe(n, HALF_WIDTH - 1)],
    [rankAtProbe(n, HALF_WIDTH), rankAtProbe(n, HALF_WIDTH)],
    [rankAtProbe(n, PROBES - HALF_WIDTH - 1), rankAtProbe(n, PROBES - HALF_WIDTH - 1)],
    [rankAtProbe(n, PROBES - HALF_WIDTH), rankAtProbe(n, PROBES - HALF_WIDTH)],
    [n - 1, n - 1],
    [300, 9700],
  ];

  it.each([
    ["a permutation of 0..9,999", scrambled],
    ["40 values, tied in runs across the edges", ties],
    ["random values", noisy],
  ] as const)("%s: the same values, in the same order, the same count below; the array untouched", (_, a) => {
    const before = a.slice();
    for (const [first, last] of ranks) {
      const want = bandTheSlowWay(a, first, last);
      const band = bandOf(a, first, last);
      const got = band && { values: Array.from(band.values), below: band.below };
      expect(got, `ranks ${first}..${last}`).toEqual(want);
    }
    expect(a).toEqual(before);
  });

  it("a band around one rank holds about 1/16 of the values: 256 of the 4,096 probe ranks", () => {
    // The cost a large quantile pays after the pass: a selection on this many values, not on all n.
    for (const k of [2500, 5000, 7500]) {
      const band = bandOf(scrambled, k, k)!;
      // in a permutation the band is the values low..high: probes 256 ranks apart are ~n/16 apart
      expect(band.values.length, `k=${k}`).toBeGreaterThan(n / 16 - n / 64);
      expect(band.values.length, `k=${k}`).toBeLessThan(n / 16 + n / 64);
      expect(band.below).toBeLessThanOrEqual(k);
      expect(band.below + band.values.length).toBeGreaterThan(k);
    }
  });

  it("no band for a NaN rank, or with a NaN among the values (select answers those)", () => {
    expect(bandOf(scrambled, NaN, NaN)).toBeUndefined();
    expect(bandOf(scrambled, NaN, 5000)).toBeUndefined();
    expect(bandOf(scrambled, 5000, NaN)).toBeUndefined();
    expect(bandOf(scrambled, 5, NaN)).toBeUndefined();
    const withNaN = scrambled.slice();
    withNaN[1234] = NaN;
    expect(bandOf(withNaN, 5000, 5000)).toBeUndefined();
  });
});

/**
 * 8,192 values whose probes (the odd places: ⌊(i + ½)·8,192/4,096⌋ = 2i + 1) are 10r + 5 for the r-th smallest of
 * them, laid out scrambled, and whose other values (10j + 1, at the even places) are placed so that exactly `count`
 * values are at most the probe of rank `edge`: the band whose upper edge is that probe ends just under the
 * `count`-th value (counting from 0).
 */
function edgeJustUnder(edge: number, count: number): Float64Array {
  const n = 8192;
  const a = new Float64Array(n);
  for (let i = 0; i < PROBES; i++) a[2 * i + 1] = 10 * ((i * 1031) % PROBES) + 5;
  // `count − edge − 1` of the others at or under probe `edge`, the rest over it
  const under = count - edge - 1;
  const others = [
    ...Array.from({ length: under }, (_, j) => j),
    ...Array.from({ length: PROBES - under }, (_, j) => edge + 1 + j),
  ];
  for (let i = 0; i < PROBES; i++) a[2 * i] = 10 * others[(i * 2053) % PROBES]! + 1;
  expect(a.filter((v) => v <= 10 * edge + 5).length).toBe(count);
  return a;
}

describe("a band that ends just under the order statistic asked for is refused", () => {
  const n = 8192;

  it("one order statistic, the band's upper edge just under it: the whole array is selected", () => {
    // p = 4,100/8,191 asks for the 4,100th value (0-based), no interpolation: ranks 4,100..4,100, so the band's upper
    // edge is probe ⌊4,100·4,096/8,192⌋ + 128 = 2,178, and exactly 4,100 values are at most it. The band holds the
    // 0th..4,099th at most: the 4,100th is the smallest value over it, which only the whole array has.
    const k = 4100;
    const a = edgeJustUnder(Math.floor((k * PROBES) / n) + HALF_WIDTH, k);
    const p = k / (n - 1);
    const want = quantileOfSorted(a.slice().sort(), p);
    expect(bandOf(a, k, k)).toBeUndefined();
    expect(quantileInPlace(a.slice(), p)).toBe(want);
    expect(quantilesInPlace(a.slice(), [p])).toEqual([want]);
  });

  it("an interpolated quantile: the band must reach the next order statistic too", () => {
    // p between the 4,101st and 4,102nd values (0-based 4,101 and 4,102): the band must hold both. Built so that
    // the probe one rank under the right upper edge (⌊4,100·4,096/8,192⌋ + 128 = 2,178, the edge for ranks ending at
    // 4,100) has exactly 4,102 values at or under it: a band ending there holds the 4,101st but not the next. The
    // right band (ending at probe ⌊4,102/2⌋ + 128 = 2,179) holds both.
    const k = 4101;
    const a = edgeJustUnder(Math.floor(((k - 1) * PROBES) / n) + HALF_WIDTH, k + 1);
    const p = (k + 0.25) / (n - 1);
    const sorted = a.slice().sort();
    const want = quantileOfSorted(sorted, p);
    expect(want).toBeCloseTo(sorted[k]! + 0.25 * (sorted[k + 1]! - sorted[k]!), 9);
    // the band placed for ranks k..k − 1 ends right after the k-th (a band for the k-th alone, not for p)
    const short = bandOf(a, k, k - 1)!;
    expect(short.below + short.values.length).toBe(k + 1);
    const right = bandOf(a, k, k + 1)!;
    expect(right.below + right.values.length).toBeGreaterThan(k + 1);
    expect(quantileInPlace(a.slice(), p)).toBe(want);
    expect(quantilesInPlace(a.slice(), [p, 0.5])).toEqual([want, quantileOfSorted(sorted, 0.5)]);
  });
});
