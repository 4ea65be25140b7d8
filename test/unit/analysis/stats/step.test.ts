/**
 * stats/step.ts by the numbers it reports, on quiet hand-made series (100 s at 1 Hz, a deterministic wobble of 0–10),
 * and the drift rule at its threshold.
 */
import { describe, expect, it } from "vitest";
import { detectStep, runningAbsoluteDeviations } from "../../../../src/analysis/stats/step.js";
import { median } from "../../../../src/analysis/stats/quantiles.js";
import { mulberry32 } from "../../../../src/analysis/stats/random.js";

const wobble = (t: number) => (t * 7919) % 11;
const xs = Array.from({ length: 100 }, (_, i) => i);
/** `before` until 60 s, then `after(t)`. */
const stepSeries = (before: number, after: (t: number) => number) =>
  xs.map((t) => (t < 60 ? before : after(t)) + wobble(t));

describe("a step", () => {
  it("up: split midway between the last sample before and the first after, jump between the sides' medians", () => {
    const ys = stepSeries(1000, () => 1500);
    const s = detectStep(xs, ys);
    if (!s.ok) throw new Error(s.reason);
    expect(s.isStep).toBe(true);
    expect(s.at).toBe(59.5);
    expect(s.jump).toBe(median(ys.slice(60))! - median(ys.slice(0, 60))!);
    expect(s.beforeSlope).toBe(0);
    expect(Math.abs(s.afterSlope)).toBeLessThan(0.1);
    expect(s.drift).toBeCloseTo(Math.abs(s.afterSlope) * 39, 9);
    // the wobble's MAD around each side's median: 1.4826 × 3
    expect(s.noise).toBeCloseTo(4.4478, 9);
  });

  it("down is a step too, with a negative jump", () => {
    const s = detectStep(
      xs,
      stepSeries(1000, () => 500),
    );
    expect(s).toMatchObject({ ok: true, isStep: true, at: 59.5 });
    expect(s.ok && s.jump).toBeCloseTo(-500.5, 9);
  });

  it("times that are not whole seconds: the split is midway between them", () => {
    const half = xs.map((t) => t / 2);
    const s = detectStep(
      half,
      stepSeries(1000, () => 1500),
    );
    expect(s).toMatchObject({ ok: true, isStep: true, at: 29.75 });
  });
});

describe("not a step", () => {
  it("a side that drifts by a quarter of the jump or more (here the side after it: 3.2 vs 4.2 per second)", () => {
    const under = detectStep(
      xs,
      stepSeries(1000, (t) => 1500 + (t - 60) * 3.2),
    );
    const over = detectStep(
      xs,
      stepSeries(1000, (t) => 1500 + (t - 60) * 4.2),
    );
    if (!under.ok || !over.ok) throw new Error("enough data");
    expect(under.drift / Math.abs(under.jump)).toBeLessThan(0.25);
    expect(under.isStep).toBe(true);
    expect(over.drift / Math.abs(over.jump)).toBeGreaterThanOrEqual(0.25);
    expect(over.isStep).toBe(false);
  });

  it("a jump in the first 5 samples: each side keeps at least 5% of the points, 5 at least", () => {
    const s = detectStep(
      xs,
      xs.map((t) => (t < 2 ? 1000 : 1500) + wobble(t)),
    );
    if (!s.ok) throw new Error(s.reason);
    expect(s.isStep).toBe(false);
    expect(s.at).toBeGreaterThanOrEqual(4.5);
  });

  it("fewer than 20 points is not enough data", () => {
    expect(detectStep(xs.slice(0, 19), xs.slice(0, 19))).toEqual({
      ok: false,
      n: 19,
      reason: "needs at least 20 samples",
    });
  });
});

describe("runningAbsoluteDeviations", () => {
  it("Σ|y − median| of every prefix", () => {
    // prefixes of 5, 1, 9, 3, 3: medians 5, 3, 5, 4, 3
    expect([...runningAbsoluteDeviations([5, 1, 9, 3, 3])]).toEqual([0, 0, 4, 8, 10, 10]);
  });

  it("is the sum afresh for every prefix of 300 values with repeats (the two heaps' pushes and pops)", () => {
    const random = mulberry32(7);
    const ys = Array.from({ length: 300 }, () => Math.floor(random() * 50));
    const out = runningAbsoluteDeviations(ys);
    for (let k = 1; k <= ys.length; k++) {
      const prefix = ys.slice(0, k);
      const m = median(prefix)!;
      expect(out[k], `prefix of ${k}`).toBe(prefix.reduce((sum, y) => sum + Math.abs(y - m), 0));
    }
  });

  it("saturates instead of overflowing", () => {
    const max = Number.MAX_VALUE;
    const out = runningAbsoluteDeviations([-max, max, -max, max]);
    expect(out.every((v) => Number.isFinite(v) && v >= 0)).toBe(true);
    expect(out[2]).toBe(max);
  });
});
