import { describe, expect, it } from "vitest";
import { levelMeasures } from "../../../src/trial/measures.js";
import { Column } from "../../../src/series/column.js";

const MiB = 1024 * 1024;
function column(f: (t: number) => number, seconds: number): Column {
  const c = new Column();
  for (let t = 0; t <= seconds; t++) c.push(t, f(t));
  return c;
}

describe("levelMeasures: peak, end level, growth and spread after a second", () => {
  it("a step down (trim giving memory back) is no noise: the noise is the flat readings' wobble", () => {
    const step = column((t) => (t < 50 ? 300 : 30) * MiB + (t % 2) * 0.5 * MiB, 100);
    const m = levelMeasures(step, 0)!;
    expect(m.growth! / MiB).toBeCloseTo(-270, 0);
    expect(m.spread! / MiB).toBeLessThan(1);
  });

  it("a sawtooth's end is its tenth's median, not wherever the last reading fell on a tooth", () => {
    const saw = column((t) => (100 + (t % 5) * 10) * MiB, 100);
    const m = levelMeasures(saw, 0)!;
    expect(m.peak).toBe(140 * MiB);
    expect(m.end).toBe(120 * MiB);
    expect(Math.abs(m.growth!)).toBeLessThan(10 * MiB);
    expect(m.spread!).toBeGreaterThan(10 * MiB);
  });

  it("a steady rise: the growth between the first and last tenths after `from`; its noise the last tenth's spread", () => {
    const rise = column((t) => (t < 10 ? 0 : 50 + t) * MiB, 110);
    const m = levelMeasures(rise, 10)!;
    expect(m.growth! / MiB).toBeCloseTo(90, 0);
    expect(m.end / MiB).toBeCloseTo(155, 0);
    // Successive differences are all 1 MiB (no wobble); the last tenth is 11 readings a MiB apart (MAD 3 MiB).
    expect(m.spread! / MiB).toBeCloseTo(1.4826 * 3, 1);
    // the start-up (0 before 10 s) is left out of the growth, not of the peak
    expect(m.peak).toBe(160 * MiB);
  });

  it("too few readings for two tenths: an end and a peak, no growth; none at all: undefined", () => {
    const m = levelMeasures(
      column((t) => t * MiB, 4),
      0,
    )!;
    expect(m.growth).toBeUndefined();
    expect(m.end).toBe(3 * MiB);
    expect(levelMeasures(undefined, 0)).toBeUndefined();
    expect(levelMeasures(new Column(), 0)).toBeUndefined();
  });
});
