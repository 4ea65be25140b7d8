/**
 * series/column.ts by exact points on small capacities: a column keeps its points as pushed until it is full, then
 * halves its resolution by averaging neighbours and from then on stores the mean of `stride` raw points; the peak is
 * of the raw values; the coarse twin; the pending partial point; a column rebuilt from its points. And
 * series/enough-samples.ts's floor at its boundaries.
 */
import { describe, expect, it } from "vitest";
import { Column, DEFAULT_CAPACITY } from "../../../src/series/column.js";
import { MIN_SAMPLES, MIN_SECONDS, tooShortForShapes } from "../../../src/series/enough-samples.js";

function filled(c: Column, points: [number, number][]): Column {
  for (const [x, y] of points) c.push(x, y);
  return c;
}

describe("Column", () => {
  it("empty: no points, no first, last or peak", () => {
    const c = new Column();
    expect(c.length).toBe(0);
    expect(c.first()).toBeUndefined();
    expect(c.last()).toBeUndefined();
    expect(c.max()).toBeUndefined();
    expect(c.coarse).toBeUndefined();
    expect(DEFAULT_CAPACITY).toBe(20_000);
  });

  it("below its capacity it keeps the points as pushed", () => {
    const c = filled(new Column(4), [
      [0, 5],
      [1, -2],
      [2, 7],
    ]);
    expect(c.xs).toEqual([0, 1, 2]);
    expect(c.ys).toEqual([5, -2, 7]);
    expect(c.length).toBe(3);
    expect(c.first()).toBe(5);
    expect(c.last()).toBe(7);
    expect(c.max()).toBe(7);
  });

  it("a point with a non-finite time or value is not stored, nor counted in the peak", () => {
    const c = filled(new Column(8), [
      [0, 1],
      [NaN, 100],
      [1, Infinity],
      [-Infinity, 50],
      [2, NaN],
      [3, 2],
    ]);
    expect(c.xs).toEqual([0, 3]);
    expect(c.ys).toEqual([1, 2]);
    expect(c.max()).toBe(2);
  });

  it("the peak is the largest raw value, negative ones included", () => {
    expect(filled(new Column(8), [[0, -5]]).max()).toBe(-5);
    expect(
      filled(new Column(8), [
        [0, -5],
        [1, -9],
        [2, -3],
        [3, -4],
      ]).max(),
    ).toBe(-3);
  });

  it("at its capacity it averages neighbouring pairs, then stores the mean of two raw points each", () => {
    const c = filled(new Column(4), [
      [0, 10],
      [1, 20],
      [2, 30],
      [3, 50],
    ]);
    // full at 4: compacted to 2 points, the means of (0, 1) and (2, 3)
    expect(c.xs).toEqual([0.5, 2.5]);
    expect(c.ys).toEqual([15, 40]);
    // one more raw point is pending (half of a stored point): not stored yet
    c.push(4, 60);
    expect(c.xs).toEqual([0.5, 2.5]);
    c.push(5, 80);
    expect(c.xs).toEqual([0.5, 2.5, 4.5]);
    expect(c.ys).toEqual([15, 40, 70]);
    // the fourth stored point fills it again: stride 4 from now on
    c.push(6, 0);
    c.push(7, 100);
    expect(c.xs).toEqual([1.5, 5.5]);
    expect(c.ys).toEqual([27.5, 60]);
    for (let x = 8; x < 12; x++) c.push(x, 1);
    expect(c.xs).toEqual([1.5, 5.5, 9.5]);
    expect(c.ys).toEqual([27.5, 60, 1]);
    // the peak is the raw 100, not an average
    expect(c.max()).toBe(100);
  });

  it("setCapacity: a lower one compacts at once, as often as it takes; a higher one is grown into", () => {
    const c = filled(
      new Column(100),
      Array.from({ length: 9 }, (_, i) => [i, i * 10] as [number, number]),
    );
    c.setCapacity(4);
    // 9 points → 4 (stride 2) → 2 (stride 4); the odd ninth waits as pending, as the raw point it is
    expect(c.xs).toEqual([1.5, 5.5]);
    expect(c.ys).toEqual([15, 55]);
    expect(c.withPending().xs).toEqual([1.5, 5.5, 8]);
    expect(c.withPending().ys).toEqual([15, 55, 80]);
    // stride 4 from now on: with the ninth, three more raw points make the next stored one
    c.push(9, 0);
    c.push(10, 0);
    expect(c.xs).toEqual([1.5, 5.5]);
    c.push(11, 0);
    expect(c.xs).toEqual([1.5, 5.5, 9.5]);
    expect(c.ys).toEqual([15, 55, 20]);
    // raised: it grows past the old capacity without compacting
    c.setCapacity(100);
    for (let x = 12; x < 28; x++) c.push(x, 1);
    expect(c.length).toBe(7);
    // the peak is the raw maximum still
    expect(c.max()).toBe(80);
  });

  it("setCapacity: an odd last point met at a stride of 2 waits as the two raw points it stands for", () => {
    const c = filled(new Column(4), [
      [0, 10],
      [1, 20],
      [2, 30],
      [3, 50],
    ]);
    // stride 2: (0.5, 15), (2.5, 40); two more raw points make a third stored one
    c.push(4, 60);
    c.push(5, 80);
    expect(c.xs).toEqual([0.5, 2.5, 4.5]);
    c.setCapacity(3);
    // (0.5, 15) and (2.5, 40) → (1.5, 27.5); (4.5, 70) is pending as 2 of the 4 raw points a stored one now takes
    expect(c.xs).toEqual([1.5]);
    c.push(6, 0);
    expect(c.xs).toEqual([1.5]);
    c.push(7, 100);
    expect(c.xs).toEqual([1.5, 5.5]);
    expect(c.ys).toEqual([27.5, (60 + 80 + 0 + 100) / 4]);
  });

  it("setCapacity(1) keeps a single point: there is no pair to average", () => {
    const c = filled(new Column(10), [[3, 7]]);
    c.setCapacity(1);
    expect(c.xs).toEqual([3]);
    expect(c.ys).toEqual([7]);
  });

  it("withPending: itself with nothing pending, else its points and the mean of the raw points pending", () => {
    const c = filled(new Column(4), [
      [0, 10],
      [1, 20],
      [2, 30],
      [3, 50],
    ]);
    expect(c.withPending()).toBe(c);
    c.push(4, 90);
    const w = c.withPending();
    expect(w).not.toBe(c);
    expect(w.xs).toEqual([0.5, 2.5, 4]);
    expect(w.ys).toEqual([15, 40, 90]);
    expect(w.max()).toBe(90);
    // c itself is unchanged
    expect(c.xs).toEqual([0.5, 2.5]);
    // three raw points pending at stride 4: their mean
    const d = filled(new Column(2), [
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 3],
      [5, 6],
      [6, 9],
    ]);
    expect(d.withPending().xs.at(-1)).toBe(5);
    expect(d.withPending().ys.at(-1)).toBe(6);
  });

  it("a coarse twin only when its capacity is smaller; it is pushed the same raw points", () => {
    expect(new Column(8, 8).coarse).toBeUndefined();
    expect(new Column(8, 16).coarse).toBeUndefined();
    const c = new Column(8, 2);
    expect(c.coarse).toBeInstanceOf(Column);
    filled(c, [
      [0, 1],
      [1, 3],
      [2, 5],
    ]);
    expect(c.xs).toEqual([0, 1, 2]);
    // the twin at capacity 2: full at 2 points, compacted to their mean, the third pending
    expect(c.coarse!.xs).toEqual([0.5]);
    expect(c.coarse!.withPending().xs).toEqual([0.5, 2]);
    expect(c.coarse!.max()).toBe(5);
    // non-finite points reach neither
    c.push(NaN, 1);
    expect(c.coarse!.withPending().xs).toEqual([0.5, 2]);
  });

  it("Column.of holds the points as given, with room for one more before it compacts", () => {
    const c = Column.of([0, 1, 2], [4, 5, 6], 9);
    expect(c.xs).toEqual([0, 1, 2]);
    expect(c.ys).toEqual([4, 5, 6]);
    expect(c.max()).toBe(9);
    expect(c.coarse).toBeUndefined();
    c.push(3, 7);
    // capacity 4 reached: compacted
    expect(c.xs).toEqual([0.5, 2.5]);
    expect(c.ys).toEqual([4.5, 6.5]);
    expect(c.max()).toBe(9);
    // at capacity 4 and stride 2 now: two more raw points make a third point, no compaction yet
    c.push(4, 8);
    c.push(5, 9);
    expect(c.xs).toEqual([0.5, 2.5, 4.5]);
    expect(c.ys).toEqual([4.5, 6.5, 8.5]);
    // no points: capacity 2
    const e = Column.of([], [], undefined);
    e.push(0, 1);
    expect(e.xs).toEqual([0]);
    e.push(1, 3);
    expect(e.xs).toEqual([0.5]);
    expect(e.ys).toEqual([2]);
    expect(e.max()).toBe(3);
  });
});

describe("tooShortForShapes", () => {
  it("needs MIN_SAMPLES samples over MIN_SECONDS seconds, both", () => {
    expect(MIN_SAMPLES).toBe(20);
    expect(MIN_SECONDS).toBe(10);
    expect(tooShortForShapes(20, 10)).toBe(false);
    expect(tooShortForShapes(19, 10)).toBe(true);
    expect(tooShortForShapes(20, 9.99)).toBe(true);
    expect(tooShortForShapes(19, 9)).toBe(true);
    expect(tooShortForShapes(1000, 1000)).toBe(false);
  });
});
