/**
 * stats/step.ts by the numbers it reports, on quiet hand-made series (100 s at 1 Hz, a deterministic wobble of 0–10),
 * and the drift rule at its threshold.
 */
import { describe, expect, it } from "vitest";
import { detectStep, levelChangeFit, runningAbsoluteDeviations } from "../../../../src/analysis/stats/step.js";
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

  it("a jump clear of the noise but under 5 standard errors of the sides' medians (few points) is not a step", () => {
    // 60 points, each side a palindrome of the wobble (so each side's Theil–Sen slope is exactly 0, no drift): the
    // noise is 1.4826 × 3 = 4.45, 5 standard errors of the medians' difference 7.2. A jump of 7 is 1.57 noise
    // widths and 0.97 of 5 standard errors; a jump of 8 clears both.
    const x60 = xs.slice(0, 60);
    const palindromic = (jump: number) =>
      x60.map((t) => (t < 30 ? 1000 + wobble(Math.min(t, 29 - t)) : 1000 + jump + wobble(Math.min(t - 30, 59 - t))));
    const under = detectStep(x60, palindromic(7));
    const over = detectStep(x60, palindromic(8));
    expect(under).toMatchObject({ ok: true, isStep: false, jump: 7, drift: 0, noise: 4.4478 });
    expect(over).toMatchObject({ ok: true, isStep: true, jump: 8, drift: 0 });
  });

  it("a jump past 5 standard errors (many points) but under one noise width is not a step", () => {
    // 300 points: 5 standard errors of the medians' difference are 3.2, the noise 4.45. A jump of 4 clears the
    // first only; 5 clears both.
    const x300 = Array.from({ length: 300 }, (_, i) => i);
    const step = (jump: number) => x300.map((t) => 1000 + wobble(t) + (t >= 150 ? jump : 0));
    expect(detectStep(x300, step(4))).toMatchObject({ ok: true, isStep: false, jump: 4, noise: 4.4478 });
    expect(detectStep(x300, step(5))).toMatchObject({ ok: true, isStep: true, jump: 5, drift: 0, at: 154.5 });
  });

  it("each side keeps 5% of the points when that is more than 5: a jump at 10 of 300 is split at 15", () => {
    const x300 = Array.from({ length: 300 }, (_, i) => i);
    const s = detectStep(
      x300,
      x300.map((t) => (t < 10 ? 1000 : 1500) + wobble(t)),
    );
    expect(s).toMatchObject({ ok: true, at: 14.5 });
  });

  it("the last split allowed is tried: a jump 5 points before the end", () => {
    const s = detectStep(
      xs,
      xs.map((t) => (t < 95 ? 1000 : 1500) + wobble(t)),
    );
    expect(s).toMatchObject({ ok: true, at: 94.5, jump: 497 });
  });

  it("of equal costs the first split wins: a flat series is split after its first 5 points", () => {
    expect(detectStep(xs.slice(0, 40), new Array<number>(40).fill(7))).toEqual({
      ok: true,
      isStep: false,
      at: 4.5,
      jump: 0,
      beforeSlope: 0,
      afterSlope: 0,
      drift: 0,
      noise: 0,
    });
  });

  it("a side whose samples all share one time cannot be judged", () => {
    // the first 10 samples at t = 0, the jump after 7 of them
    const tied = xs.map((t) => (t < 10 ? 0 : t));
    expect(
      detectStep(
        tied,
        xs.map((t) => (t < 7 ? 1000 : 1500) + wobble(t)),
      ),
    ).toEqual({ ok: false, n: 100, reason: "a side of the split has no time span" });
  });

  it("20 points are enough, each side 5 at least", () => {
    const x20 = xs.slice(0, 20);
    const s = detectStep(
      x20,
      x20.map((t) => (t < 3 ? 1000 : 1500) + wobble(t)),
    );
    expect(s).toMatchObject({ ok: true, isStep: false, at: 4.5, jump: 495 });
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

describe("levelChangeFit: the best one change of level", () => {
  it("a level that came down and stayed: where, both sides' medians, and the noise left around them", () => {
    const ys = [10, 11, 9, 10, 10, 4, 5, 4, 3, 4];
    // residuals 0,1,1,0,0 | 0,1,0,1,0: their median 0
    expect(levelChangeFit(ys, 3)).toEqual({ at: 5, before: 10, after: 4, noise: 0 });
  });

  it("a swing around one level leaves its width in the noise, wherever the change is put", () => {
    const ys = [1, 5, 9, 1, 5, 9, 1, 5, 9, 1, 5, 9];
    const fit = levelChangeFit(ys, 3);
    expect(fit.before - fit.after).toBeLessThan(fit.noise);
    // two readings in three 4 away from their side's median (5): the noise is 4 × 1.4826
    expect(fit.noise).toBeCloseTo(4 * 1.4826, 6);
  });

  it("each side keeps at least minSide values: a change in the first two readings is put at the third", () => {
    expect(levelChangeFit([50, 50, 1, 1, 1, 1, 1, 1], 3).at).toBe(3);
  });
});
