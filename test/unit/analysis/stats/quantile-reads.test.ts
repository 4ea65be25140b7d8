/**
 * The work stats/quantiles.ts does, counted: every element read and written through a Proxy over the array it is
 * given. The answers are pinned by quantiles.test.ts; these pin what a selection costs (one partition pass where the
 * median of three is the value sought, one pass over a large array and its probes where the band holds the
 * quantiles) and that nothing is read outside the array. A selection that gets the same answer by more work (a
 * pivot that is not the median of three, a pass over a range that no longer holds k, a scan for a next value that
 * is not interpolated to, one band per quantile) fails them.
 */
import { describe, expect, it } from "vitest";
import {
  mad,
  median,
  quantile,
  quantileInPlace,
  quantileOfSorted,
  quantilesInPlace,
} from "../../../../src/analysis/stats/quantiles.js";

/** The count of element reads and writes of a watched array, and every index read outside [0, length). */
interface Tally {
  reads: number;
  writes: number;
  outside: number[];
}

/**
 * `values` in a Float64Array behind a Proxy that counts element reads and writes. The code under test takes a
 * Float64Array and only indexes it and reads its length; a typed array's length is a getter that needs the array
 * itself as `this`, so every other property is read from the target.
 */
function watched(values: ArrayLike<number>): { array: Float64Array; tally: Tally } {
  const target = Float64Array.from(values);
  const tally: Tally = { reads: 0, writes: 0, outside: [] };
  const indexOf = (key: string | symbol): number | undefined =>
    typeof key === "string" && /^-?\d+$/.test(key) ? Number(key) : undefined;
  const array = new Proxy(target, {
    get(t, key) {
      const i = indexOf(key);
      if (i === undefined) return Reflect.get(t, key, t) as unknown;
      tally.reads++;
      if (i < 0 || i >= t.length) tally.outside.push(i);
      return t[i];
    },
    set(t, key, v: number) {
      const i = indexOf(key);
      if (i === undefined) return Reflect.set(t, key, v, t);
      tally.writes++;
      t[i] = v;
      return true;
    },
  });
  return { array, tally };
}

/** Every ordering of `vs`. */
function permutations(vs: readonly number[]): number[][] {
  if (vs.length <= 1) return [vs.slice()];
  const out: number[][] = [];
  for (let i = 0; i < vs.length; i++) {
    const rest = [...vs.slice(0, i), ...vs.slice(i + 1)];
    for (const p of permutations(rest)) out.push([vs[i]!, ...p]);
  }
  return out;
}

// Under 8,192 values quantileInPlace selects in the array itself (select's three-way partition). One partition pass
// over m values reads the three pivot candidates, then takes m steps (each moves i up or gt down, until they cross),
// and each step reads the value it looks at and at most one it swaps it with: at most 2m + 3 reads. A range of one
// value needs no pass: it is the answer, read once.
const onePass = (m: number) => 2 * m + 3;

describe("select's work on arrays under 8,192 values", () => {
  it("the middle of three distinct values, in each of their orders: one pass, the median of three being it", () => {
    // A pivot other than the middle value leaves two values on the middle's side: a second pass, ≥ 3 + 2 more reads.
    for (const order of permutations([1, 2, 3])) {
      const { array, tally } = watched(order);
      expect(quantileInPlace(array, 0.5), order.join(",")).toBe(2);
      expect(tally.reads, order.join(",")).toBeLessThanOrEqual(onePass(3));
      expect(tally.outside, order.join(",")).toEqual([]);
    }
  });

  it("the smallest and the largest of three, in each order: one pass, then the one value left read once", () => {
    // After the pass around the middle value the range left holds one value, which is not partitioned again (a pass
    // over it would read 3 + 1 more and return the pivot instead of reading it).
    for (const order of permutations([1, 2, 3])) {
      for (const [p, want] of [
        [0, 1],
        [1, 3],
      ] as const) {
        const { array, tally } = watched(order);
        expect(quantileInPlace(array, p), `${order.join(",")} p=${p}`).toBe(want);
        expect(tally.reads, `${order.join(",")} p=${p}`).toBeLessThanOrEqual(onePass(3) + 1);
        expect(tally.outside, `${order.join(",")} p=${p}`).toEqual([]);
      }
    }
  });

  it("the median of sorted and of reversed values: one pass over them, ending on the pivot", () => {
    // Their median of three (first, middle, last) is the median itself: the first pass puts it in place and returns
    // it. Going on with a range that leaves k out (or a scan for a next value that is not interpolated to) reads
    // about n more.
    const n = 8191;
    const sorted = Array.from({ length: n }, (_, i) => i);
    for (const [name, values] of [
      ["sorted", sorted],
      ["reversed", sorted.slice().reverse()],
    ] as const) {
      const { array, tally } = watched(values);
      expect(quantileInPlace(array, 0.5), name).toBe(4095);
      expect(tally.reads, name).toBeLessThanOrEqual(onePass(n));
      expect(tally.outside, name).toEqual([]);
    }
  });

  it("an interpolated median of sorted values: one pass, then one scan of the values past it", () => {
    // n even: the median lies halfway between the (n/2 − 1)-th and the (n/2)-th. The first pass finds the lower one
    // (the median of three); the next is the smallest of the n/2 values past it, each read once and the smallest so
    // far once more, none past the end.
    const n = 8190;
    const { array, tally } = watched(Array.from({ length: n }, (_, i) => i));
    expect(quantileInPlace(array, 0.5)).toBe(4094.5);
    expect(tally.reads).toBeLessThanOrEqual(onePass(n) + 2 * (n / 2));
    expect(tally.outside).toEqual([]);
  });

  it("interpolating from the smallest value to a run of ties: one pass, then each tie read once", () => {
    // [0, 1, 1, …, 1]: the median of three is 1, so the pass reads the 0 and the one it swaps with, and each 1 once
    // (equal to the pivot, it stays); the range left is the 0 alone, read once; then the next value is the smallest
    // of the n − 1 ties past it, each read once and the first once more (only a smaller one replaces the next).
    const n = 100;
    const { array, tally } = watched(Array.from({ length: n }, (_, i) => (i === 0 ? 0 : 1)));
    expect(quantileInPlace(array, 0.5 / (n - 1))).toBe(0.5);
    expect(tally.reads).toBeLessThanOrEqual(3 + (2 + (n - 1)) + 1 + (n - 1 + 1));
    expect(tally.outside).toEqual([]);
  });
});

describe("the band's work on arrays of 8,192 values and more", () => {
  // A band is placed by 4,096 evenly spaced probes, then one pass reads each value once and copies those inside it;
  // the selections run on that copy. So the array is read n + 4,096 times and never written. One band per quantile
  // would read it that many times over, and a selection on the array itself reads it ≥ 2n times and writes it.
  const scrambled = (n: number) => Array.from({ length: n }, (_, i) => (i * 7919) % n);
  const PROBES = 4096;
  const oneBand = (n: number) => n + PROBES;

  it.each([8192, 10_000])("three quantiles of %i values from one band: one pass and the probes", (n) => {
    const { array, tally } = watched(scrambled(n));
    const want = [0.5, 0.473, 0.527].map((p) => quantileOfSorted(Float64Array.from(scrambled(n)).sort(), p));
    expect(quantilesInPlace(array, [0.5, 0.473, 0.527])).toEqual(want);
    expect(tally.reads).toBeLessThanOrEqual(oneBand(n));
    expect(tally.writes).toBe(0);
    expect(tally.outside).toEqual([]);
  });

  it("one quantile of 8,192 values: one pass and the probes", () => {
    const { array, tally } = watched(scrambled(8192));
    expect(quantileInPlace(array, 0.25)).toBe(2047.75);
    expect(tally.reads).toBeLessThanOrEqual(oneBand(8192));
    expect(tally.writes).toBe(0);
  });

  it("several quantiles of 100 values: selected in the array itself, no probes placed", () => {
    // Under 8,192 values a band would cost more than it saves: its probes alone are 4,096 reads, where three
    // selections on 100 values read each a few times (this order: 1,429 reads in all).
    const values = scrambled(100);
    const { array, tally } = watched(values);
    const sorted = Float64Array.from(values).sort();
    expect(quantilesInPlace(array, [0.5, 0.1, 0.9])).toEqual([0.5, 0.1, 0.9].map((p) => quantileOfSorted(sorted, p)));
    expect(tally.reads).toBeLessThan(PROBES);
    expect(tally.outside).toEqual([]);
  });

  it("no quantile asked of a large array: nothing read", () => {
    const { array, tally } = watched(scrambled(10_000));
    expect(quantilesInPlace(array, [])).toEqual([]);
    expect(tally.reads).toBe(0);
  });
});

describe("nothing is read outside the array", () => {
  // An index past the end of a typed array reads undefined, which these functions would then skip or weigh by 0:
  // the answers hide such a read, the Proxy does not.
  it("quantileOfSorted at every p, up to 1 (the last value has no next one)", () => {
    for (const n of [1, 2, 5]) {
      for (const p of [0, 0.3, 0.5, 1]) {
        const { array, tally } = watched(Array.from({ length: n }, (_, i) => i * 10));
        expect(quantileOfSorted(array, p), `n=${n} p=${p}`).toBeCloseTo(p * (n - 1) * 10, 9);
        expect(tally.outside, `n=${n} p=${p}`).toEqual([]);
      }
    }
  });

  it("quantile, median and mad, which copy the finite values out", () => {
    const values = [4, NaN, 1, 9, Infinity, 3];
    const q = watched(values);
    expect(quantile(q.array, 0.5)).toBe(3.5);
    expect(q.tally.outside).toEqual([]);
    // quantile copies the values: it reads each once and does not write its input
    expect(q.tally.reads).toBe(values.length);
    expect(q.tally.writes).toBe(0);
    const m = watched(values);
    expect(median(m.array)).toBe(3.5);
    expect(m.tally.outside).toEqual([]);
    // mad: the median (one read of each), then the deviations from it (a second)
    const d = watched(values);
    expect(mad(d.array)).toBeCloseTo(1.5 * 1.4826, 12);
    expect(d.tally.outside).toEqual([]);
    expect(d.tally.reads).toBe(2 * values.length);
  });
});

describe("quantilesInPlace's selections in turn, on arrays under 8,192 values", () => {
  // After select(k) no value before k is larger and none after it smaller: the next place up is selected among the
  // values from k on, and one place alone costs exactly what quantileInPlace pays for it, and one read of each value:
  // the look for a NaN first (a NaN compares neither way, and the selections in turn would not hold with one).
  const scrambled = (n: number) => Array.from({ length: n }, (_, i) => (i * 7919) % n);

  it("one place costs what quantileInPlace pays: no scan for a next value that is not interpolated to", () => {
    // 101 values, p = 0.5: the 50th exactly. A scan for the next value would read the 50 values past it again.
    for (const values of [scrambled(101), Array.from({ length: 101 }, (_, i) => i)]) {
      const one = watched(values);
      const inTurn = watched(values);
      expect(quantilesInPlace(inTurn.array, [0.5])).toEqual([quantileInPlace(one.array, 0.5)]);
      expect(inTurn.tally.reads).toBe(one.tally.reads + values.length);
    }
  });

  it("interpolating to a run of ties in turn reads each tie once, as quantileInPlace does", () => {
    const values = Array.from({ length: 100 }, (_, i) => (i === 0 ? 0 : 1));
    const one = watched(values);
    const inTurn = watched(values);
    expect(quantilesInPlace(inTurn.array, [0.5 / 99])).toEqual([quantileInPlace(one.array, 0.5 / 99)]);
    expect(inTurn.tally.reads).toBe(one.tally.reads + values.length);
  });

  it("three places in turn read less than three selections over the whole array", () => {
    // The selections one after another on the same array (what quantilesInPlace did before, and does with a NaN).
    const values = scrambled(1000);
    const ps = [0.5, 0.025, 0.975];
    const apart = watched(values);
    const want = ps.map((p) => quantileInPlace(apart.array, p));
    const inTurn = watched(values);
    expect(quantilesInPlace(inTurn.array, ps)).toEqual(want);
    expect(inTurn.tally.reads).toBeLessThan(apart.tally.reads);
  });
});
