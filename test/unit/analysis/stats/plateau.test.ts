/**
 * stats/plateau.ts by the numbers it reports, on a quiet hand-made fill (1,000 + 10 per second for 100 s, then flat,
 * to 300 s, with a deterministic wobble of 0–10), and its options at their thresholds.
 */
import { describe, expect, it } from "vitest";
import { detectPlateau } from "../../../../src/analysis/stats/plateau.js";
import { median } from "../../../../src/analysis/stats/quantiles.js";

const wobble = (t: number) => (t * 7919) % 11;
const times = (n: number, hz = 1) => Array.from({ length: n }, (_, i) => i / hz);
const fill = (xs: number[]) => xs.map((t) => 1000 + Math.min(t, 100) * 10 + wobble(t));

describe("a fill that levelled off", () => {
  const xs = times(300);
  const ys = fill(xs);
  const p = detectPlateau(xs, ys);

  it("is a plateau from where the fill ended", () => {
    if (!p.ok) throw new Error(p.reason);
    expect(p.state).toBe("plateau");
    expect(p.plateaued).toBe(true);
    expect(p.levelFrom).toBeGreaterThanOrEqual(97);
    expect(p.levelFrom).toBeLessThanOrEqual(101);
  });

  it("rise and rate between the thirds, the slopes of the first and last thirds, the whole window's p", () => {
    if (!p.ok) throw new Error(p.reason);
    // first third: t < 99.67 (0..99), last third: t ≥ 199.33 (200..299)
    const rise = median(ys.slice(200))! - median(ys.slice(0, 100))!;
    expect(p.rise).toBe(rise);
    expect(p.growthRate).toBeCloseTo(rise / (249.5 - 49.5), 12);
    expect(p.earlySlope).toBeCloseTo(10, 1);
    expect(p.tailSlope).toBe(0);
    expect(p.tailSlopeHigh).toBeGreaterThan(0);
    expect(p.tailSlopeHigh).toBeLessThan(0.02);
    expect(p.tailP).toBeGreaterThan(0.1);
    expect(p.p).toBeLessThan(1e-40);
    // the spread around the whole window's line, which a fill's knee bends away from: some 120
    expect(p.noise).toBeGreaterThan(100);
    expect(p.noise).toBeLessThan(140);
  });

  it("the same when thinned from 900 points to 300", () => {
    const xs3 = times(900, 3);
    const q = detectPlateau(xs3, fill(xs3));
    if (!q.ok) throw new Error(q.reason);
    expect(q.state).toBe("plateau");
    expect(q.levelFrom).toBeGreaterThanOrEqual(97);
    expect(q.levelFrom).toBeLessThanOrEqual(101);
    expect(q.growthRate).toBeCloseTo(p.ok ? p.growthRate : NaN, 1);
  });
});

describe("a fill that levelled off and ends on a move", () => {
  it("a late step of 6% of the rise in the last 8 s: still a plateau, but not dated at its last sample", () => {
    const xs = times(300);
    const ys = fill(xs).map((y, i) => y + (xs[i]! >= 292 ? 60 : 0));
    const p = detectPlateau(xs, ys);
    if (!p.ok) throw new Error(p.reason);
    expect(p.state).toBe("plateau");
    expect(p.levelFrom).toBeUndefined();
  });
});

describe("options at their thresholds", () => {
  const xs = times(300);
  const ys = fill(xs);
  const base = detectPlateau(xs, ys);
  if (!base.ok) throw new Error(base.reason);

  it("minRise: growth under it is flat", () => {
    expect(detectPlateau(xs, ys, { minRise: base.rise - 1 })).toMatchObject({ state: "plateau" });
    expect(detectPlateau(xs, ys, { minRise: base.rise })).toMatchObject({ state: "flat", levelFrom: undefined });
  });

  it("ratio: a tail rate over ratio × the overall rate is still growing", () => {
    const ratio = base.tailSlopeHigh / base.growthRate;
    expect(detectPlateau(xs, ys, { ratio: ratio * 1.01 })).toMatchObject({ state: "plateau" });
    expect(detectPlateau(xs, ys, { ratio: ratio * 0.99 })).toMatchObject({ state: "growing", plateaued: false });
    // 0 is a ratio, not "the default"
    expect(detectPlateau(xs, ys, { ratio: 0 })).toMatchObject({ state: "growing", levelFrom: undefined });
  });

  it("alpha: a whole-window trend not significant at it is flat", () => {
    expect(detectPlateau(xs, ys, { alpha: base.p * 1.01 })).toMatchObject({ state: "plateau" });
    expect(detectPlateau(xs, ys, { alpha: base.p })).toMatchObject({ state: "flat" });
  });
});

describe("other shapes", () => {
  const xs = times(300);

  it("a leak is growing, with no level", () => {
    const p = detectPlateau(
      xs,
      xs.map((t) => 1000 + 10 * t + wobble(t)),
    );
    expect(p).toMatchObject({ ok: true, state: "growing", plateaued: false, levelFrom: undefined });
  });

  it("a fall is flat", () => {
    const p = detectPlateau(
      xs,
      xs.map((t) => 5000 - Math.min(t, 100) * 10 + wobble(t)),
    );
    expect(p).toMatchObject({ ok: true, state: "flat" });
  });

  it("fewer than 20 points is not enough data", () => {
    expect(detectPlateau(times(19), fill(times(19)))).toEqual({
      ok: false,
      n: 19,
      reason: "needs at least 20 samples",
    });
  });

  it("a first or last third with fewer than 3 points is not enough data", () => {
    const reason = "too few samples in the first or last third";
    // one point at 0 s, nineteen from 100 s: the first third of 0–118 s holds one
    const lateStart = [0, ...times(19).map((t) => t + 100)];
    expect(detectPlateau(lateStart, fill(lateStart))).toEqual({ ok: false, n: 20, reason });
    // nineteen from 0 s, one at 118 s: the last third holds one
    const earlyEnd = [...times(19), 118];
    expect(detectPlateau(earlyEnd, fill(earlyEnd))).toEqual({ ok: false, n: 20, reason });
  });
});

describe("where a quiet approach levels off", () => {
  // 500·(1 − e^(−t/20)) over 300 s: the thirds' medians rise by 41 (most of the approach is in the first third), 1% of
  // it is 0.41, reached at 20·ln(500 / 0.41) = 142 s; the tail's own noise (3 × ~0.003) would put it past 200 s
  it("within 1% of the rise of its level, however small the noise", () => {
    const xs = times(300);
    const p = detectPlateau(
      xs,
      xs.map((t) => 1000 + 500 * (1 - Math.exp(-t / 20))),
    );
    expect(p).toMatchObject({ ok: true, state: "plateau" });
    expect(p.ok && p.levelFrom).toBeGreaterThanOrEqual(135);
    expect(p.ok && p.levelFrom).toBeLessThanOrEqual(150);
  });
});
