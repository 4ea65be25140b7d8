/**
 * stats/warmup.ts by its options and the numbers it reports, on quiet hand-made series: 200 s at 1 Hz of 1,000 with
 * a deterministic wobble of 0–10 (noise 1.4826 × 3 = 4.45), whose first `until` seconds sit `by` below the level.
 */
import { describe, expect, it } from "vitest";
import { detectWarmup } from "../../../../src/analysis/stats/warmup.js";

const wobble = (t: number) => (t * 7919) % 11;
const xs = Array.from({ length: 200 }, (_, i) => i);
const lowStart = (until: number, by: number, slope = 0) =>
  xs.map((t) => 1000 + slope * t + wobble(t) - (t < until ? by : 0));

describe("detectWarmup", () => {
  it("a start 100 below the level for 30 s: 30 s of warm-up, to about a block", () => {
    const w = detectWarmup(xs, lowStart(30, 100));
    if (!w.ok) throw new Error(w.reason);
    expect(w.seconds).toBeGreaterThanOrEqual(29);
    expect(w.seconds).toBeLessThanOrEqual(32);
    expect(w.until).toBe(w.seconds);
    expect(w.capped).toBe(false);
    expect(w.steadySlope).toBeCloseTo(0, 1);
    expect(w.noise).toBeGreaterThan(3);
    expect(w.noise).toBeLessThan(6);
  });

  it("the second half's slope is the steady line the start is compared with", () => {
    const w = detectWarmup(xs, lowStart(30, 100, 5));
    if (!w.ok) throw new Error(w.reason);
    expect(w.steadySlope).toBeCloseTo(5, 1);
    expect(w.seconds).toBeGreaterThanOrEqual(29);
    expect(w.seconds).toBeLessThanOrEqual(32);
  });

  it("a start off for longer than the cap is cut at the cap, and says so", () => {
    const w = detectWarmup(xs, lowStart(80, 100));
    expect(w).toMatchObject({ ok: true, capped: true });
    expect(w.ok && w.seconds).toBeCloseTo(199 * 0.25, 9);
    const wide = detectWarmup(xs, lowStart(80, 100), { maxFraction: 0.45 });
    expect(wide).toMatchObject({ ok: true, capped: false });
    expect(wide.ok && wide.seconds).toBeGreaterThanOrEqual(77);
    expect(wide.ok && wide.seconds).toBeLessThanOrEqual(82);
  });

  it("maxFraction is clamped to [0, 1], and an unusable one is the default", () => {
    const ys = lowStart(80, 100);
    expect(detectWarmup(xs, ys, { maxFraction: -1 })).toMatchObject({ seconds: 0, until: 0, capped: true });
    expect(detectWarmup(xs, ys, { maxFraction: NaN })).toMatchObject({ seconds: 199 * 0.25, capped: true });
    expect(detectWarmup(xs, ys, { maxFraction: Infinity })).toMatchObject({ seconds: 199 * 0.25, capped: true });
    const all = detectWarmup(xs, ys, { maxFraction: 5 });
    expect(all).toMatchObject({ capped: false });
    expect(all.ok && all.seconds).toBeLessThanOrEqual(82);
  });

  it("noiseMultiple and minOffset: an offset under either is no warm-up", () => {
    // 30 below: ~6.7 noise widths
    const ys = lowStart(30, 30);
    expect(detectWarmup(xs, ys).ok && detectWarmup(xs, ys)).toMatchObject({ capped: false });
    expect((detectWarmup(xs, ys) as { seconds: number }).seconds).toBeGreaterThanOrEqual(29);
    expect(detectWarmup(xs, ys, { noiseMultiple: 8 })).toMatchObject({ seconds: 0 });
    expect(detectWarmup(xs, ys, { minOffset: 35 })).toMatchObject({ seconds: 0 });
    expect((detectWarmup(xs, ys, { minOffset: 20 }) as { seconds: number }).seconds).toBeGreaterThanOrEqual(29);
  });

  it("a start above the line is warm-up too", () => {
    const w = detectWarmup(xs, lowStart(30, -100));
    expect(w.ok && w.seconds).toBeGreaterThanOrEqual(29);
  });

  it("a sampling gap inside the warm-up neither ends nor extends it", () => {
    const gapped = xs.filter((t) => t < 10 || t >= 20);
    const ys = gapped.map((t) => 1000 + wobble(t) - (t < 30 ? 100 : 0));
    const w = detectWarmup(gapped, ys);
    expect(w.ok && w.seconds).toBeGreaterThanOrEqual(27);
    expect(w.ok && w.seconds).toBeLessThanOrEqual(32);
  });

  it("not enough data: under 20 points, or a second half with one time", () => {
    expect(detectWarmup(xs.slice(0, 19), xs.slice(0, 19))).toEqual({
      ok: false,
      n: 19,
      reason: "needs at least 20 samples",
    });
    expect(detectWarmup(xs.slice(0, 20), lowStart(30, 100).slice(0, 20))).toMatchObject({ ok: true });
    const oneTime = [...xs.slice(0, 20), 100, 100, 100];
    expect(detectWarmup(oneTime, oneTime)).toMatchObject({ ok: false, reason: "too few samples in the second half" });
  });
});
