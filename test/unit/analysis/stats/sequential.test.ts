/**
 * stats/sequential.ts: the early growth test's looks and level, and each reason it gives for not calling growth, on
 * hand-made series (a deterministic wobble of 0–10 on a level of 1,000).
 */
import { describe, expect, it } from "vitest";
import { earlyGrowth, EARLY_ALPHA } from "../../../../src/analysis/stats/sequential.js";

const wobble = (t: number) => (t * 7919) % 11;
const times = (n: number, dt = 1) => Array.from({ length: n }, (_, i) => i * dt);

describe("earlyGrowth", () => {
  it("a clean leak is called, with the whole window's and the last third's slopes", () => {
    const xs = times(12);
    const g = earlyGrowth(
      xs,
      xs.map((t) => 1000 + 100 * t + wobble(t)),
      20,
      10,
    );
    expect(g).toMatchObject({ called: true, looks: 20, alpha: EARLY_ALPHA / 20, slope: 99, tailSlope: 99 });
    expect(g.reason).toBeUndefined();
    expect(g.p).toBeLessThan(g.alpha);
  });

  it("its level is spent over one look per sample until the shape rules take over: max(samples, seconds / dt)", () => {
    const xs = times(40, 0.25);
    const g = earlyGrowth(
      xs,
      xs.map((t) => 1000 + 100 * t + wobble(4 * t)),
      20,
      10,
    );
    expect(g).toMatchObject({ called: true, looks: 40, alpha: EARLY_ALPHA / 40 });
    expect(earlyGrowth(times(12, 2), times(12, 2), 20, 10)).toMatchObject({ looks: 20 });
    expect(earlyGrowth(times(12, 2), times(12, 2), 30, 10)).toMatchObject({ looks: 30 });
    // one sample: no interval, taken as 1 s
    expect(earlyGrowth([0], [1], 5, 10)).toMatchObject({ looks: 10 });
  });

  it("too few samples or seconds", () => {
    expect(earlyGrowth(times(7), times(7), 20, 10)).toMatchObject({
      called: false,
      p: 1,
      slope: 0,
      reason: "7 samples (the early test needs 8)",
    });
    expect(earlyGrowth(times(8, 0.5), times(8, 0.5), 20, 10)).toMatchObject({
      called: false,
      reason: "4 s (the early test needs 5 s)",
    });
    expect(earlyGrowth(times(8, 5 / 7), times(8), 20, 10).reason).not.toMatch(/needs 5 s/);
    // the seconds it covers, not its end time
    const late = times(8, 0.5).map((t) => t + 100);
    expect(earlyGrowth(late, late, 20, 10).reason).toBe("4 s (the early test needs 5 s)");
  });

  it("no significant rise", () => {
    const xs = times(12);
    const g = earlyGrowth(
      xs,
      xs.map((t) => 1000 + wobble(t)),
      20,
      10,
    );
    expect(g).toMatchObject({ called: false, alpha: 0.0005 });
    expect(g.reason).toBe(`no significant rise yet (p = ${g.p.toPrecision(2)}, needs ≤ 0.00050 at this look)`);
    const down = earlyGrowth(
      xs,
      xs.map((t) => 5000 - 100 * t),
      20,
      10,
    );
    expect(down.called).toBe(false);
    expect(down.reason).toMatch(/^no significant rise yet/);
  });

  it("a rise that slowed down at the end", () => {
    const xs = times(24);
    const g = earlyGrowth(
      xs,
      xs.map((t) => 1000 + 100 * Math.min(t, 17) + wobble(t)),
      20,
      10,
    );
    expect(g.p).toBeLessThan(g.alpha);
    expect(g.tailSlope).toBeLessThan(0.5 * g.slope);
    expect(g).toMatchObject({ called: false, reason: "the rise has slowed down at the end" });
  });

  it("a rise not far above the scatter around it", () => {
    // +1 per second under ±5 from one sample to the next: block means rise in order, the rise is 23 against ~11
    const xs = times(24);
    const g = earlyGrowth(
      xs,
      xs.map((t) => 1000 + t + (t % 2 ? 5 : -5)),
      20,
      10,
    );
    expect(g.p).toBeLessThan(g.alpha);
    expect(g).toMatchObject({ called: false, slope: 1, reason: "the rise is not far above the scatter around it" });
    // the same rise under ±1 is called
    expect(
      earlyGrowth(
        xs,
        xs.map((t) => 1000 + t + (t % 2 ? 1 : -1)),
        20,
        10,
      ).called,
    ).toBe(true);
  });

  it("the end is its last third, not its last three samples", () => {
    // +100 a second for 21 s, then 3 s level: the last third (8 samples) still rises at over half the rate
    const xs = times(24);
    const g = earlyGrowth(
      xs,
      xs.map((t) => 1000 + 100 * Math.min(t, 21) + wobble(t)),
      20,
      10,
    );
    expect(g.tailSlope).toBeGreaterThan(0.5 * g.slope);
    expect(g.called).toBe(true);
  });
});
