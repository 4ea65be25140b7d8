/**
 * growth-floor.ts: the growth floor, max(2 MiB, 2% of the level), by exact values (the rules' boundaries on it are
 * in rules/growth.test.ts).
 */
import { describe, expect, it } from "vitest";
import { MIN_GROWTH_BYTES, MIN_GROWTH_FRACTION, minGrowth } from "../../../src/analysis/growth-floor.js";

const MiB = 2 ** 20;

describe("minGrowth", () => {
  it("2 MiB up to a level of 100 MiB, 2% of the level above it, of its size whatever its sign", () => {
    expect(MIN_GROWTH_BYTES).toBe(2 * MiB);
    expect(MIN_GROWTH_FRACTION).toBe(0.02);
    expect(minGrowth(0)).toBe(2 * MiB);
    expect(minGrowth(50 * MiB)).toBe(2 * MiB);
    expect(minGrowth(100 * MiB)).toBe(2 * MiB);
    expect(minGrowth(500 * MiB)).toBe(10 * MiB);
    expect(minGrowth(-500 * MiB)).toBe(10 * MiB);
  });
});
