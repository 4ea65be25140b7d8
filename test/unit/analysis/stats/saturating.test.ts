/**
 * stats/saturating.ts: arithmetic on memory sizes and slopes that saturates at ±Number.MAX_VALUE instead of
 * overflowing to Infinity and then to NaN (a hostile or broken reading can be any finite double).
 */
import { describe, expect, it } from "vitest";
import { lerp, saturate, slopeBetween } from "../../../../src/analysis/stats/saturating.js";

const MAX = Number.MAX_VALUE;

describe("saturate", () => {
  it("keeps finite values and clamps the infinities", () => {
    expect(saturate(5)).toBe(5);
    expect(saturate(-MAX)).toBe(-MAX);
    expect(saturate(MAX)).toBe(MAX);
    expect(saturate(Infinity)).toBe(MAX);
    expect(saturate(-Infinity)).toBe(-MAX);
  });
});

describe("lerp", () => {
  it("interpolates", () => {
    expect(lerp(1, 3, 0.5)).toBe(2);
    expect(lerp(1, 3, 0.25)).toBe(1.5);
  });

  it("is a when a = b or f = 0, even where the formula would give NaN or overflow", () => {
    // ∞·(1 − 1) is NaN; ∞·1 + 5·0 is ∞, saturated to MAX
    expect(lerp(Infinity, Infinity, 1)).toBe(Infinity);
    expect(lerp(Infinity, 5, 0)).toBe(Infinity);
  });

  it("does not overflow between the extremes, and saturates past them", () => {
    expect(lerp(-MAX, MAX, 0.5)).toBe(0);
    expect(lerp(0, MAX, 2)).toBe(MAX);
  });
});

describe("slopeBetween", () => {
  it("is the slope", () => expect(slopeBetween(1, 2, 3, 8)).toBe(3));

  it("halves both differences when one would overflow", () => {
    // dy = MAX − (−MAX) overflows; halved: (MAX/2 + MAX/2) / (4/2) = MAX / 2
    expect(slopeBetween(0, -MAX, 4, MAX)).toBe(MAX / 2);
    // dx overflows: (1/2 − 0) / (−MAX/2 − MAX/2)
    expect(slopeBetween(MAX, 0, -MAX, 1)).toBe(0.5 / -MAX);
  });

  it("halves only then: halving the smallest time step would underflow it to 0 (and the slope to ∞)", () => {
    expect(slopeBetween(0, 0, Number.MIN_VALUE, 1e-300)).toBe(1e-300 / Number.MIN_VALUE);
  });

  it("saturates a slope that overflows", () => expect(slopeBetween(0, 0, 1e-300, MAX)).toBe(MAX));
});
