import { describe, expect, it } from "vitest";
import { AgeStats } from "../../../src/sampling/freshness.js";

describe("PSS age statistics", () => {
  it("median to the 100 ms bin, maximum exact", () => {
    const a = new AgeStats();
    expect(a.median()).toBeUndefined();
    for (const ms of [0, 0, 0, 1000, 1000, 2000, 9000]) a.add(ms);
    expect(a.median()).toBeCloseTo(1.05, 6);
    expect(a.max()).toBe(9);
    expect(a.count).toBe(7);
  });

  it("ignores what is not an age, and keeps ages past ten minutes in its last bin", () => {
    const a = new AgeStats();
    a.add(NaN);
    a.add(-5);
    expect(a.count).toBe(0);
    a.add(2 * 3600 * 1000);
    expect(a.max()).toBe(7200);
    expect(a.median()).toBeCloseTo(600, 0);
  });
});
