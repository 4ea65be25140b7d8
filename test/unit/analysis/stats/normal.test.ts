/**
 * stats/normal.ts at the edges stats.test.ts leaves: Φ⁻¹ in both tails and at its limits, Φ's symmetry, and the
 * confidence level that falls back to 95%. Reference values: R's qnorm / pnorm.
 */
import { describe, expect, it } from "vitest";
import {
  confidenceLevel,
  DEFAULT_CONFIDENCE,
  erfc,
  normalCdf,
  normalQuantile,
  twoSidedZ,
} from "../../../../src/analysis/stats/normal.js";

describe("Φ⁻¹", () => {
  it.each([
    // central region, both sides of the median
    [0.3, -0.5244005127080407],
    [0.7, 0.5244005127080407],
    // lower tail (p < 0.02425) and upper tail (p > 0.97575)
    [0.01, -2.326347874040841],
    [0.99, 2.326347874040841],
    [1e-6, -4.753424308822899],
    [1 - 1e-6, 4.753424308822899],
    // just inside the central region on both sides
    [0.025, -1.959963984540054],
    [0.975, 1.959963984540054],
  ])("Φ⁻¹(%d) = %d to 1e-8 relative", (p, z) => {
    expect(normalQuantile(p) / z).toBeCloseTo(1, 8);
  });

  it("±Infinity at 0 and 1, NaN outside [0, 1] and for NaN", () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(-0.1)).toBeNaN();
    expect(normalQuantile(1.1)).toBeNaN();
    expect(normalQuantile(NaN)).toBeNaN();
  });

  it("is continuous where the tails meet the central region (p = 0.02425 and 1 − 0.02425)", () => {
    for (const p of [0.02425, 1 - 0.02425]) {
      expect(Math.abs(normalQuantile(p - 1e-12) - normalQuantile(p + 1e-12))).toBeLessThan(1e-8);
      expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 8);
    }
  });
});

describe("Φ and erfc", () => {
  it("erfc(−x) = 2 − erfc(x), and Φ(−z) = 1 − Φ(z)", () => {
    expect(erfc(-1)).toBeCloseTo(2 - 0.157299207050285, 7);
    expect(erfc(1)).toBeCloseTo(0.157299207050285, 7);
    expect(normalCdf(-2) + normalCdf(2)).toBeCloseTo(1, 12);
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
  });
});

describe("the confidence level", () => {
  it("is the one asked for when strictly between 0 and 1, else 95%", () => {
    expect(confidenceLevel(0.9)).toBe(0.9);
    expect(confidenceLevel(0)).toBe(DEFAULT_CONFIDENCE);
    expect(confidenceLevel(1)).toBe(DEFAULT_CONFIDENCE);
    expect(confidenceLevel(-0.5)).toBe(DEFAULT_CONFIDENCE);
    expect(confidenceLevel(1.5)).toBe(DEFAULT_CONFIDENCE);
    expect(confidenceLevel(NaN)).toBe(DEFAULT_CONFIDENCE);
  });

  it("z of a two-sided interval: 1.96 at 95%, 1.645 at 90%, and 95%'s for an unusable level", () => {
    expect(twoSidedZ(0.95)).toBeCloseTo(1.959963984540054, 8);
    expect(twoSidedZ(0.9)).toBeCloseTo(1.644853626951472, 8);
    expect(twoSidedZ(0.99)).toBeCloseTo(2.575829303548901, 8);
    expect(twoSidedZ(1)).toBeCloseTo(1.959963984540054, 8);
  });
});
