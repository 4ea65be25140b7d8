/**
 * Big periodic temporaries (a batch, an evaluation pass, a large intermediate held part of the time): the series
 * swings by far more than a leak grows between swings. Issue 11: a 1.5 MB/s leak under ±100 MB swings every 2.5 s
 * was `stable` at 40 s, because block means alias the period. The lows (stats/envelope.ts) must find it, and the
 * same swings with nothing kept must never be a leak, a plateau or a step (stats/shape.ts lowsFollow), whatever the
 * period, the phase, or when the analysis looks.
 */
import { describe, expect, it } from "vitest";
import { assess } from "../../../../src/analysis/assess.js";
import { Column } from "../../../../src/series/column.js";
import { blockMinima, ENVELOPE_ALPHA, lowerEnvelope } from "../../../../src/analysis/stats/envelope.js";
import { mulberry32 } from "../../../../src/analysis/stats/random.js";
import { gaussian } from "../../../helpers/synthetic.js";
import { MB } from "./judge.js";

interface Swings {
  seconds: number;
  /** Seconds between the starts of two swings, and the share of it the temporaries are held. */
  period?: number;
  duty?: number;
  swing?: number;
  /** Bytes per second kept. */
  leak?: number;
  hz?: number;
  phase?: number;
  seed?: number;
}

/** A 30 MB program that holds `swing` bytes of temporaries for `duty` of every `period`, sampled at `hz`. */
function swings(o: Swings): Column {
  const { period = 2.5, duty = 0.4, swing = 100 * MB, leak = 0, hz = 1, phase = 0, seed = 1 } = o;
  const g = gaussian(mulberry32(seed));
  const col = new Column();
  for (let i = 0; i < o.seconds * hz; i++) {
    const t = i / hz;
    const held = ((t + phase) % period) / period < duty;
    col.push(t, 30 * MB + leak * t + (held ? swing : 0) + 0.3 * MB * g());
  }
  return col;
}

describe("a leak under big swings is found on its lows", () => {
  it("1.5 MB/s under ±100 MB every 2.5 s, sampled at 1 Hz: growing 40 s after start-up, at the leak's rate, on the lows", () => {
    const used: boolean[] = [];
    for (const phase of [0, 0.6, 1.2, 1.9]) {
      // the trend leaves out the series' first 3 s (assess.ts afterStartup)
      const a = assess(swings({ seconds: 43, leak: 1.5 * MB, phase }), 0);
      expect(a.shape, `phase ${phase}`).toBe("growing");
      expect(a.rate.bytesPerSecond / (1.5 * MB)).toBeGreaterThan(0.8);
      expect(a.rate.bytesPerSecond / (1.5 * MB)).toBeLessThan(1.2);
      // Found on the lows, the end is the lows' level (~30 + 1.5 × 36 MB), not somewhere in a swing.
      if (a.envelope) expect(a.end / MB).toBeGreaterThan(75);
      if (a.envelope) expect(a.end / MB).toBeLessThan(95);
      used.push(a.envelope !== undefined);
    }
    // At some phases the block means see it too; at others only the lows do (the case of issue 11).
    expect(used).toContain(true);
  });

  it("block means rising while the levels fell (a high at the start, a low at the end): the lows decide, growing", () => {
    // 43 s read at 0.5-1.5 s intervals, as on a loaded machine (swing_leak under `run` in CI, 2026-12-02: "stable",
    // the block means rising at p 0.0049, the levels 113 MiB → 64.5 MiB). The levels' growth is under the floor, so
    // the block means alone are no growth; the lows were not looked at while the means were rising.
    const r = mulberry32(88);
    const col = new Column();
    for (let t = 0; t < 43; t += 0.5 + r()) {
      const held = ((t + 1.9) % 2.5) / 2.5 < 0.4;
      col.push(t, 30 * MB + 1.5 * MB * t + (held ? 100 * MB : 0) + 0.3 * MB * (r() - 0.5));
    }
    const a = assess(col, 0);
    expect(a.trend?.direction).toBe("increasing");
    expect(a.shape).toBe("growing");
    expect(a.envelope?.increasing).toBe(true);
    expect(a.rate.bytesPerSecond / (1.5 * MB)).toBeGreaterThan(0.8);
    expect(a.rate.bytesPerSecond / (1.5 * MB)).toBeLessThan(1.2);
  });

  it("the lows are a second look: a leak the block means already see keeps their p, and no envelope", () => {
    const a = assess(swings({ seconds: 60, leak: 1.5 * MB, swing: 0 }), 0);
    expect(a.shape).toBe("growing");
    expect(a.envelope).toBeUndefined();
  });

  it("blocks shorter than the period miss lows: the minima are then as ragged as the swings, and decide nothing", () => {
    // 12 blocks of 1.5 s under a 5 s period: most blocks hold no low.
    const col = swings({ seconds: 18, leak: 0, period: 5, duty: 0.7 });
    const minima = blockMinima({ xs: col.xs, ys: col.ys }, 12);
    expect(Math.max(...minima.ys) - Math.min(...minima.ys)).toBeGreaterThan(90 * MB);
    expect(lowerEnvelope(col.xs, col.ys)?.increasing).toBe(false);
  });

  it(`is judged at p < ${ENVELOPE_ALPHA}: 12 ordered minima pass, one pair swapped in three passes, a shuffle does not`, () => {
    const xs = Array.from({ length: 120 }, (_, i) => i);
    const ranked = (ranks: number[]) => xs.map((x) => ranks[Math.floor(x / 10)]! * MB + (x % 10 === 5 ? 0 : 50 * MB));
    expect(lowerEnvelope(xs, ranked([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]))?.increasing).toBe(true);
    expect(lowerEnvelope(xs, ranked([2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12]))?.increasing).toBe(true);
    expect(lowerEnvelope(xs, ranked([5, 1, 9, 3, 12, 2, 7, 11, 4, 8, 6, 10]))?.increasing).toBe(false);
    // Around the level: 8 pairs out of order (S = 50, p = 0.00078) pass, 9 (S = 48, p = 0.0013) do not.
    expect(lowerEnvelope(xs, ranked([2, 3, 4, 5, 6, 7, 8, 9, 1, 10, 11, 12]))?.mannKendall.p).toBeCloseTo(0.00078, 5);
    expect(lowerEnvelope(xs, ranked([2, 3, 4, 5, 6, 7, 8, 9, 1, 10, 11, 12]))?.increasing).toBe(true);
    expect(lowerEnvelope(xs, ranked([2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 11, 12]))?.mannKendall.p).toBeCloseTo(0.00127, 5);
    expect(lowerEnvelope(xs, ranked([2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 11, 12]))?.increasing).toBe(false);
  });
});

describe("the same swings with nothing kept are stable, looked at every 10 s for 10 minutes", () => {
  // A period that is a good part of the window is, while the window is short, truly one step up (30 s low, then
  // 15 s high): a step or a plateau is then what the data say. Never a leak.
  const SHORT = ["growing", "plateau", "step"];
  const LONG = ["growing"];
  it.each([
    [2.5, 0.4, SHORT],
    [2.7, 0.4, SHORT],
    [3.3, 0.3, SHORT],
    [7, 0.5, SHORT],
    [30, 0.2, LONG],
    [60, 0.5, LONG],
  ])("period %d s, held %d of it: never %j", (period, duty, forbidden) => {
    for (const seed of [1, 2]) {
      const col = swings({ seconds: 600, period, duty, seed, phase: seed * 0.7 });
      const shapes = new Set<string>();
      for (let end = 20; end <= 600; end += 10) {
        const part = new Column();
        for (let i = 0; i < col.length && col.xs[i]! < end; i++) part.push(col.xs[i]!, col.ys[i]!);
        shapes.add(assess(part, 0).shape);
      }
      expect(
        [...shapes].filter((s) => forbidden.includes(s)),
        `seed ${seed}`,
      ).toEqual([]);
    }
  });
});
