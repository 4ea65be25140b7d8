/**
 * Thinning for drawing: a 72-hour 1 Hz series (260k points) comes down to ≤ 2000 points, and no spike or dip
 * disappears (each bucket keeps its lowest and highest point). How long that takes is measured in `npm run bench`
 * (section f), not here.
 */
import { describe, expect, it } from "vitest";
import { alignForDrawing, downsample, MAX_POINTS } from "../../../src/report/html/downsample.js";

function spiky(n: number) {
  const xs: number[] = [];
  const ys: number[] = [];
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < n; i++) {
    xs.push(i);
    ys.push(500e6 + 1e6 * Math.sin(i / 5000) + 2e5 * rand());
  }
  // One-sample spikes and dips, far apart, that averaging would wipe out.
  const spikes = [1234, 77_777, 150_001, 259_998];
  spikes.forEach((i, k) => (ys[i] = k % 2 === 0 ? 900e6 + k : 100e6 - k));
  return { xs, ys, spikes };
}

/** Math.max(...ys) overflows the stack at 260k arguments. */
const maxOf = (ys: readonly (number | null)[]) => ys.reduce<number>((m, y) => (y !== null && y > m ? y : m), -Infinity);
const minOf = (ys: readonly (number | null)[]) => ys.reduce<number>((m, y) => (y !== null && y < m ? y : m), Infinity);

describe("downsample for drawing", () => {
  const N = 260_000;

  it("keeps every spike and dip of a 260k-point series, in ≤ 2000 points", () => {
    const { xs, ys, spikes } = spiky(N);
    const d = downsample({ xs, ys });
    expect(d.xs.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(d.xs.length).toBeGreaterThan(MAX_POINTS / 2);
    expect(maxOf(d.ys)).toBe(maxOf(ys));
    expect(minOf(d.ys)).toBe(minOf(ys));
    for (const i of spikes) expect(d.ys).toContain(ys[i]);
    // Each spike stays within one bucket of where it happened.
    const bucket = (N - 1) / (MAX_POINTS / 2);
    for (const i of spikes) expect(Math.abs(d.xs[d.ys.indexOf(ys[i]!)]! - i)).toBeLessThanOrEqual(bucket);
  });

  it("keeps every bucket's min and max, in time order", () => {
    const { xs, ys } = spiky(N);
    const d = downsample({ xs, ys }, 200);
    // 100 buckets of equal width over [0, N-1]; the last one also takes the last point.
    const width = (N - 1) / 100;
    const min = new Array<number>(100).fill(Infinity);
    const max = new Array<number>(100).fill(-Infinity);
    for (let i = 0; i < N; i++) {
      const b = Math.min(99, Math.floor(i / width));
      min[b] = Math.min(min[b]!, ys[i]!);
      max[b] = Math.max(max[b]!, ys[i]!);
    }
    for (let b = 0; b < 100; b++) {
      const slot = d.ys.slice(2 * b, 2 * b + 2);
      expect(Math.min(...slot)).toBe(min[b]);
      expect(Math.max(...slot)).toBe(max[b]);
    }
    for (let i = 1; i < d.xs.length; i++) expect(d.xs[i]!).toBeGreaterThan(d.xs[i - 1]!);
  });

  it("leaves short series exactly as they are", () => {
    const line = { xs: [0, 0.5, 1, 1.5], ys: [1, 5, 2, 8] };
    expect(downsample(line)).toEqual(line);
  });

  it("aligns lines with different sample times on one x array, null where a line has no point", () => {
    const a = alignForDrawing([{ xs: [0, 1, 2, 3], ys: [10, 11, 12, 13] }, { xs: [1, 3], ys: [100, 300] }, undefined]);
    expect(a.xs).toEqual([0, 1, 2, 3]);
    expect(a.ys).toEqual([
      [10, 11, 12, 13],
      [null, 100, null, 300],
      [null, null, null, null],
    ]);
  });

  it("thins several long lines onto one shared grid of at most 2000 points", () => {
    const { xs, ys } = spiky(N);
    const sparse = { xs: xs.filter((_, i) => i % 30 === 0), ys: ys.filter((_, i) => i % 30 === 0) };
    const a = alignForDrawing([{ xs, ys }, sparse]);
    expect(a.xs.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(a.ys.every((row) => row.length === a.xs.length)).toBe(true);
    expect(maxOf(a.ys[0]!)).toBe(maxOf(ys));
  });
});
