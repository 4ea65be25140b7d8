/**
 * stats/shape.ts: the helpers the plateau, warm-up and step detectors share, by exact values.
 */
import { describe, expect, it } from "vitest";
import {
  blockOffset,
  lowsFollow,
  residuals,
  roundingFloor,
  scanBlockCount,
} from "../../../../src/analysis/stats/shape.js";

describe("the block scan", () => {
  it("about 3 samples a block, 4 to 100 blocks", () => {
    expect(scanBlockCount(3)).toBe(4);
    expect(scanBlockCount(14)).toBe(4);
    expect(scanBlockCount(15)).toBe(5);
    expect(scanBlockCount(299)).toBe(99);
    expect(scanBlockCount(300)).toBe(100);
    expect(scanBlockCount(10_000)).toBe(100);
  });

  it("a block's median offset; the last block runs to the end; an empty block has none", () => {
    // 0..5 then 9..11: four blocks of 11/4 s: [0, 2.75) [2.75, 5.5) [5.5, 8.25) [8.25, 11]
    const s = { xs: [0, 1, 2, 3, 4, 5, 9, 10, 11], ys: [0, 0, 0, 0, 0, 0, 0, 0, 0] };
    const offsets = [1, 2, 30, 4, 5, 6, 7, 8, 90];
    expect([0, 1, 2, 3].map((b) => blockOffset(s, offsets, b, 4))).toEqual([2, 5, undefined, 8]);
  });

  it("rounding is a billionth of the largest |y|", () => {
    expect(roundingFloor([3e9, -5e9, 1])).toBe(5);
    expect(roundingFloor([])).toBe(0);
  });

  it("residuals from a line, saturated", () => {
    const s = { xs: [0, 1, 2], ys: [10, 13, 20] };
    expect(residuals(s, { slope: 2, intercept: 10 })).toEqual([0, 1, 6]);
    const max = Number.MAX_VALUE;
    expect(residuals({ xs: [1], ys: [max] }, { slope: -max, intercept: 0 })).toEqual([max]);
    expect(residuals({ xs: [2], ys: [0] }, { slope: max, intercept: max })).toEqual([-max]);
  });
});

describe("lowsFollow", () => {
  // lows are each side's 10% quantile: of 0, 1, …, 10, 1
  const before = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const up = (by: number) => before.map((v) => v + by);

  it("a rise: the lows rose by a quarter of it or more", () => {
    expect(lowsFollow(before, up(2.5), 10)).toBe(true);
    expect(lowsFollow(before, up(2.4), 10)).toBe(false);
    // no change is a rise of 0: any lows that did not fall follow it
    expect(lowsFollow(before, before, 0)).toBe(true);
    expect(lowsFollow(before, up(1), 0)).toBe(true);
    expect(lowsFollow(before, up(-1), 0)).toBe(false);
  });

  it("a fall: the lows fell by a quarter of it or more", () => {
    expect(lowsFollow(before, up(-2.5), -10)).toBe(true);
    expect(lowsFollow(before, up(-2.4), -10)).toBe(false);
    expect(lowsFollow(before, up(1), -10)).toBe(false);
  });
});
