/**
 * stats/envelope.ts: block minima and the lows' trend, on hand-made series whose lows are known: 120 s at 1 Hz of a
 * level that holds +50 for 4 s of every 5 (a swing), over a rise of `rate` per second.
 */
import { describe, expect, it } from "vitest";
import { blockMinima, ENVELOPE_ALPHA, lowerEnvelope } from "../../../../src/analysis/stats/envelope.js";

const xs = Array.from({ length: 120 }, (_, i) => i);
const swinging = (rate: number) => xs.map((t) => 1000 + rate * t + (t % 5 === 0 ? 0 : 50));

describe("blockMinima", () => {
  it("the time and value of each stretch's minimum, the first one on ties, gaps skipped", () => {
    // three stretches of 11/3 s over 0..5 and 9..11: [0, 3.67) [3.67, 7.33) [7.33, 11]
    const s = { xs: [0, 1, 2, 3, 4, 5, 9, 10, 11], ys: [5, 3, 3, 7, 2, 9, 4, 1, 1] };
    expect(blockMinima(s, 3)).toEqual({ xs: [1, 4, 10], ys: [3, 2, 1] });
    // stretches hold 0..3, 4..5 and 9..11: a lower value just before a stretch is the stretch before's
    const t = { xs: s.xs, ys: [5, 3, 3, 0, 2, 9, 4, 1, 1] };
    expect(blockMinima(t, 3)).toEqual({ xs: [3, 4, 10], ys: [0, 2, 1] });
  });
});

describe("lowerEnvelope", () => {
  it("rising lows under swings: increasing, with the lows' start, end, rise and slope", () => {
    const e = lowerEnvelope(xs, swinging(1));
    if (!e) throw new Error("enough points");
    expect(e.ok).toBe(true);
    expect(e.increasing).toBe(true);
    // block minima sit on the multiples of 5 (the lows): 1,000 + t
    expect(e.theilSen.slope).toBeCloseTo(1, 9);
    expect(e.start).toBe(1010);
    expect(e.end).toBe(1100);
    expect(e.rise).toBe(90);
    expect(e.mannKendall.s).toBe(66);
    expect(e.mannKendall.p).toBeLessThan(ENVELOPE_ALPHA);
  });

  it("minSlope and minRise at their thresholds", () => {
    expect(lowerEnvelope(xs, swinging(1), 1)?.increasing).toBe(true);
    expect(lowerEnvelope(xs, swinging(1), 1.01)?.increasing).toBe(false);
    expect(lowerEnvelope(xs, swinging(1), 0, 90)?.increasing).toBe(true);
    expect(lowerEnvelope(xs, swinging(1), 0, 90.5)?.increasing).toBe(false);
  });

  it("falling or flat lows are not increasing", () => {
    expect(lowerEnvelope(xs, swinging(-1))?.increasing).toBe(false);
    expect(lowerEnvelope(xs, swinging(0))?.increasing).toBe(false);
  });

  it("a trend not significant at 0.1% is not increasing", () => {
    // 12 block minima rising in groups of three, each group out of order: S = 50, p = 0.00078; S = 48, p = 0.0013
    const lows = [2, 0, 1, 5, 3, 4, 8, 6, 7, 11, 9, 10];
    const ragged = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10];
    const series = (mins: number[]) => xs.map((t) => 100 * mins[Math.floor(t / 10)]! + (t % 10 === 0 ? 0 : 1000));
    const a = lowerEnvelope(xs, series(lows));
    const b = lowerEnvelope(xs, series(ragged));
    if (!a || !b) throw new Error("enough points");
    expect(a.mannKendall.p).toBeLessThan(ENVELOPE_ALPHA);
    expect(a.increasing).toBe(true);
    expect(b.mannKendall.p).toBeGreaterThan(ENVELOPE_ALPHA);
    expect(b.theilSen.slope).toBeGreaterThan(0);
    expect(b.increasing).toBe(false);
  });

  it("undefined with fewer than 12 blocks to test", () => {
    // up to 12 points are their own minima
    expect(lowerEnvelope(xs.slice(0, 11), swinging(1).slice(0, 11))).toBeUndefined();
    expect(lowerEnvelope(xs.slice(0, 12), swinging(1).slice(0, 12))).toBeDefined();
    // 20 points with a gap: fewer than 12 blocks hold one
    const gapped = [...xs.slice(0, 10), ...xs.slice(110)];
    expect(lowerEnvelope(gapped, gapped)).toBeUndefined();
  });
});
