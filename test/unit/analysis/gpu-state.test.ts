/**
 * signals/gpu-state.ts by exact values on hand-made allocator columns: allocated's end level (median of the last
 * tenth, 3 readings at least) from the window's start, its highest tenth and the noise around the tenths' medians,
 * how far it fell, what the allocator holds beyond it, and the counters' rise in the window.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../src/series/column.js";
import { gpuState, peakRise, type GpuColumns } from "../../../src/analysis/signals/gpu-state.js";

const xs = Array.from({ length: 20 }, (_, i) => i);
const col = (ys: number[], times = xs) => Column.of(times.slice(0, ys.length), ys, Math.max(...ys));

// 150 for 3 readings, then ~100, then ~40 from the 11th: tenths of 3 readings.
const allocated = [150, 152, 148, 101, 99, 100, 100, 104, 100, 100, 40, 42, 41, 39, 40, 40, 44, 40, 41, 39];
const reserved = [...new Array<number>(17).fill(300), 310, 305, 300];

function columns(extra: Partial<GpuColumns> = {}): GpuColumns {
  return {
    allocated: col(allocated),
    allocatedPeak: undefined,
    reserved: col(reserved),
    active: undefined,
    inactiveSplit: undefined,
    allocRetries: undefined,
    ooms: undefined,
    ...extra,
  };
}

describe("gpuState", () => {
  it("over the whole series: end level, highest tenth, noise, fall, and what is held beyond allocated", () => {
    expect(gpuState(columns(), 0)).toEqual({
      allocated: 40,
      reserved: 305,
      held: 265,
      split: undefined,
      active: undefined,
      // the tenths' medians: 150, 100, 100, 40 (100, 40, 42), 40, 40; their residuals' median 1 → × 1.4826
      highest: 150,
      fell: 110,
      noise: 1.4826,
      // one change of level: the first 10 readings (median 100.5) to the last 10 (40), their residuals' median 1
      drop: { by: 60.5, noise: 1.4826 },
      retries: undefined,
      ooms: undefined,
      readings: 20,
      peak: undefined,
      highestReading: 152, // the readings of the highest tenth: 150 ± 2
    });
  });

  it("from the window's start: only its readings (the 150 before it is not the highest)", () => {
    expect(gpuState(columns(), 5)).toMatchObject({ allocated: 40, highest: 100, fell: 60, noise: 0, readings: 15 });
  });

  it("a window of fewer than 3 readings: the whole series instead", () => {
    expect(gpuState(columns(), 18.5)).toMatchObject({ highest: 150, fell: 110, readings: 20 });
    expect(gpuState(columns(), 17)).toMatchObject({ highest: 40, fell: 0, readings: 3 });
  });

  it("fewer readings than a tenth: the median of them all is the highest, and no fall", () => {
    const s = gpuState(columns({ allocated: col([10, 20]), reserved: undefined }), 0);
    expect(s).toMatchObject({ allocated: 15, highest: 15, fell: 0, noise: 0, readings: 2 });
    expect(s.reserved).toBeUndefined();
    expect(s.held).toBeUndefined();
  });

  it("drop: none measured from fewer than two tenths of readings; a change that rose is a negative drop", () => {
    expect(gpuState(columns({ allocated: col([10, 20, 30, 40, 50]) }), 0).drop).toEqual({ by: 0, noise: 0 });
    const up = columns({ allocated: col([10, 10, 10, 10, 10, 10, 50, 50, 50]) });
    expect(gpuState(up, 0).drop).toEqual({ by: -40, noise: 0 });
  });

  it("held is never negative: a reserve read below allocated holds 0", () => {
    expect(gpuState(columns({ reserved: col([30, 30, 30]) }), 0)).toMatchObject({ reserved: 30, held: 0 });
  });

  it("allocated that rose: no fall (never negative)", () => {
    const up = columns({ allocated: col([10, 10, 10, 10, 10, 10, 50, 50, 50]) });
    expect(gpuState(up, 0)).toMatchObject({ allocated: 50, highest: 50, fell: 0 });
  });

  it("split and active at their end levels; empty columns read as none", () => {
    const s = gpuState(
      columns({ inactiveSplit: col([5, 6, 7, 200, 210, 220]), active: col([1, 2, 3]), ooms: col([]) }),
      0,
    );
    expect(s.split).toBe(210);
    expect(s.active).toBe(2);
    expect(s.ooms).toBeUndefined();
    expect(gpuState(columns({ inactiveSplit: col([]), active: col([]) }), 0)).toMatchObject({
      split: undefined,
      active: undefined,
    });
  });

  it("retries: the counter's rise from the window's start; the last reading of out-of-memory errors", () => {
    const retries = col([0, 0, 1, 1, 1, 1, 4, 4, 9, 9]);
    const ooms = col([0, 0, 0, 2, 2, 3]);
    expect(gpuState(columns({ allocRetries: retries, ooms }), 0)).toMatchObject({ retries: 9, ooms: 3 });
    expect(gpuState(columns({ allocRetries: retries, ooms }), 5)).toMatchObject({ retries: 8 });
    // no reading in the window: the whole column's rise
    expect(gpuState(columns({ allocRetries: retries }), 15)).toMatchObject({ retries: 9 });
    // a counter that went down (a restart) rose by 0; an empty one has no rise
    expect(gpuState(columns({ allocRetries: col([5, 5, 2]) }), 0)).toMatchObject({ retries: 0 });
    expect(gpuState(columns({ allocRetries: col([]) }), 0).retries).toBeUndefined();
  });
});

describe("peakRise: the allocator's peak rising after a stretch of a running loop", () => {
  // allocated 100 MiB throughout; the peak 130 MiB (steps' transient tensors) for 8 readings, then 900 MiB
  const MiB = 2 ** 20;
  const flat100 = col(new Array<number>(20).fill(100 * MiB));
  const peak = (ys: number[]) => col(ys.map((y) => y * MiB));
  const evalAt = (j: number, before = 130) => [
    ...new Array<number>(j).fill(before),
    ...new Array<number>(20 - j).fill(900),
  ];

  it("the highest, the stretch's highest, allocated's median over the stretch, and when the peak crossed halfway", () => {
    expect(peakRise(peak(evalAt(8)), flat100, 0)).toEqual({
      highest: 900 * MiB,
      before: 130 * MiB,
      allocatedBefore: 100 * MiB,
      at: 8,
    });
  });

  it("halfway from the window's first reading: a rise in steps crosses at the step past the middle", () => {
    const steps = [...new Array<number>(5).fill(130), 300, 400, 600, 700, 900, ...new Array<number>(10).fill(900)];
    // halfway between 130 and 900 is 515: first crossed by 600 at 7
    expect(peakRise(peak(steps), flat100, 0)).toMatchObject({ before: 400 * MiB, at: 7 });
  });

  it("a stretch of exactly a tenth of the window (3 readings at least) is enough; one less is not", () => {
    expect(peakRise(peak(evalAt(3)), flat100, 0)).toBeDefined();
    expect(peakRise(peak(evalAt(2)), flat100, 0)).toBeUndefined();
    // from 10: 10 readings in the window, a tenth is still 3
    expect(peakRise(peak(evalAt(13)), flat100, 10)).toMatchObject({ at: 13 });
    expect(peakRise(peak(evalAt(12)), flat100, 10)).toBeUndefined();
  });

  it("no loop before the rise (the peak within the growth floor of allocated: 2 MiB) is not one", () => {
    expect(peakRise(peak(evalAt(8, 102)), flat100, 0)).toBeUndefined();
    expect(peakRise(peak(evalAt(8, 102.1)), flat100, 0)).toBeDefined();
  });

  it("the highest and the stretch's highest are maxima, not last readings: a program that resets its peak", () => {
    // reset_peak_memory_stats() at 7 (the loop's 130 reads 110 until its next step) and after the evaluation
    const resets = [130, 130, 130, 130, 130, 130, 130, 110, 900, 900, 400, ...new Array<number>(9).fill(400)];
    expect(peakRise(peak(resets), flat100, 0)).toMatchObject({ highest: 900 * MiB, before: 130 * MiB, at: 8 });
  });

  it("a reading exactly halfway has not crossed it", () => {
    // from 130 to 900: halfway 515
    const steps = [...new Array<number>(5).fill(130), 515, 600, ...new Array<number>(13).fill(900)];
    expect(peakRise(peak(steps), flat100, 0)).toMatchObject({ at: 6, before: 515 * MiB });
  });

  it("no allocated reading in the stretch before the rise: none (nothing says a loop ran)", () => {
    const late = Column.of(xs.slice(10), new Array<number>(10).fill(100 * MiB), 100 * MiB);
    expect(peakRise(peak(evalAt(8)), late, 0)).toBeUndefined();
  });

  it("a flat peak, no peak column, or no reading in the window: none", () => {
    expect(peakRise(peak(new Array<number>(20).fill(130)), flat100, 0)).toBeUndefined();
    expect(peakRise(undefined, flat100, 0)).toBeUndefined();
    expect(peakRise(col([]), flat100, 0)).toBeUndefined();
    expect(peakRise(peak(evalAt(8)), flat100, 25)).toBeUndefined();
  });

  it("gpuState carries it", () => {
    expect(gpuState(columns({ allocatedPeak: peak(evalAt(8)) }), 0).peak).toMatchObject({ highest: 900 * MiB, at: 8 });
  });
});
