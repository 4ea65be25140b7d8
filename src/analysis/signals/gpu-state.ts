/**
 * What the CUDA caching allocator holds that live tensors do not, read off the agent's per-device numbers
 * (memleak_readings.py `_cuda_stats`) — pure numbers from columns, no verdict. signals/gpu.ts decides on them.
 *
 *   held  = reserved − allocated at the end (medians of the last tenth, assess.ts `levels`): freed blocks the
 *           allocator keeps for this process's next allocations
 *   split = the inactive-split bytes at the end: the part of held inside segments that also hold live blocks, which
 *           empty_cache() cannot give back and a larger request cannot use (fragmentation)
 *   fell  = how far allocated's level came down from its highest: the highest median of a tenth of the window
 *           minus the end level. A steady training loop's allocated swings inside every tenth alike (fell ≈ 0, or
 *           within its noise when few readings make a tenth) and its reserve is its own working set; a program that
 *           once held more and let go leaves the reserve behind.
 *   drop  = the best one change of allocated's level over the window (stats/step.ts levelChangeFit): how far it came
 *           down and the noise it leaves. With 3 readings a tenth, the highest of nine tenths' medians of a loop
 *           swinging between 1 and 3 GiB stands ~1 GiB above the last one a third of the time (a stand-in loop
 *           read at random phases under load, CI 2026-12-02: "came down from 2.86 GiB to 1.74 GiB"): fell alone
 *           cannot tell that from a level that came down. One change fitted to the whole window can: the swing's
 *           width stays in its noise, where a real fall leaves only the noise of each side.
 *   peak  = what the allocator's own peak counter (AllocatedPeak) says happened between readings: a working set far
 *           larger than the loop's, which came and went within a few milliseconds (an evaluation pass on an H100,
 *           fixtures/gpu/cuda_eval_retained.py), is in no allocated reading, only in the peak's rise (peakRise).
 */
import { endLevel, levels, levelPoints } from "../assess.js";
import { minGrowth } from "../growth-floor.js";
import type { Column } from "../../series/column.js";
import { MAD_SCALE, median } from "../stats/quantiles.js";
import { levelChangeFit } from "../stats/step.js";
import { sliceByTime } from "../stats/window.js";

export interface GpuColumns {
  allocated: Column;
  allocatedPeak: Column | undefined;
  reserved: Column | undefined;
  active: Column | undefined;
  inactiveSplit: Column | undefined;
  allocRetries: Column | undefined;
  ooms: Column | undefined;
}

export interface GpuState {
  allocated: number;
  reserved: number | undefined;
  held: number | undefined;
  split: number | undefined;
  active: number | undefined;
  /** Allocated's highest level over the window, how far its end level is below it, and its noise (highestLevel). */
  highest: number;
  fell: number;
  noise: number;
  /** The best one change of allocated's level: how far it came down (≤ 0 when it rose) and the noise around it. */
  drop: { by: number; noise: number };
  /** cudaMalloc retries after freeing the cache, and out-of-memory errors, in the window (counter growth). */
  retries: number | undefined;
  ooms: number | undefined;
  readings: number;
  /** The allocator's peak rising in the window after a stretch of a running loop (peakRise); undefined otherwise. */
  peak: PeakRise | undefined;
  /** Allocated's highest reading in the window: a peak no higher than a reading came with the loop's own steps. */
  highestReading: number;
}

/**
 * The allocator's peak counter rose, in the analysis window, from the level a running loop had kept it at to a much
 * higher one: the stretch before the rise (the readings before the peak first crossed halfway from its first reading
 * to its highest) is at least a tenth of the window (levelPoints readings), and in it the peak stood above allocated's
 * level by more than the growth floor: steps with tensors that lived and died between readings had run. A steady loop
 * that starts late in the window (a model built, data loaded, then the first step) has no such stretch: before its
 * first step its peak is its allocated level.
 */
export interface PeakRise {
  /** The peak's highest in the window, and its highest in the stretch before the rise. */
  highest: number;
  before: number;
  /** Allocated's level (median) over the stretch before the rise. */
  allocatedBefore: number;
  /** When the peak crossed halfway (seconds). */
  at: number;
}

export function peakRise(peak: Column | undefined, allocated: Column, from: number): PeakRise | undefined {
  if (!peak) return undefined;
  const w = sliceByTime({ xs: peak.xs, ys: peak.ys }, from);
  if (w.ys.length === 0) return undefined;
  const highest = w.ys.reduce((m, y) => (y > m ? y : m), -Infinity);
  const halfway = (w.ys[0]! + highest) / 2;
  const j = w.ys.findIndex((y) => y > halfway);
  if (j < levelPoints(w.ys.length)) return undefined;
  const before = w.ys.slice(0, j).reduce((m, y) => (y > m ? y : m), -Infinity);
  const a = sliceByTime({ xs: allocated.xs, ys: allocated.ys }, from, w.xs[j]!);
  const allocatedBefore = median(a.ys);
  if (allocatedBefore === undefined || before - allocatedBefore <= minGrowth(allocatedBefore)) return undefined;
  return { highest, before, allocatedBefore, at: w.xs[j]! };
}

/**
 * The highest of the medians of consecutive tenths (levelPoints readings each) of ys, and the noise around them: the
 * scaled MAD of every reading from its own tenth's median. A loop's swings are noise by this measure, however its
 * phases fall into the tenths; a level that came down and stayed is not.
 */
function highestLevel(ys: readonly number[]): { highest: number; noise: number } {
  const k = levelPoints(ys.length);
  let best = -Infinity;
  const residuals: number[] = [];
  for (let i = 0; i + k <= ys.length; i += k) {
    const block = ys.slice(i, i + k);
    const m = median(block) ?? 0;
    best = Math.max(best, m);
    for (const y of block) residuals.push(Math.abs(y - m));
  }
  return { highest: Number.isFinite(best) ? best : (median(ys) ?? 0), noise: MAD_SCALE * (median(residuals) ?? 0) };
}

/**
 * The best one change of level over ys, each side at least a tenth (levelPoints): how far it came down and the noise
 * around the two sides. Fewer than two tenths of readings: no change, and no noise to measure one by.
 */
function levelDrop(ys: readonly number[]): { by: number; noise: number } {
  const k = levelPoints(ys.length);
  if (ys.length < 2 * k) return { by: 0, noise: 0 };
  const fit = levelChangeFit(ys, k);
  return { by: fit.before - fit.after, noise: fit.noise };
}

/** How much a counter rose over [from, end]; undefined without readings. */
function counterRise(col: Column | undefined, from: number): number | undefined {
  if (!col || col.length === 0) return undefined;
  const w = sliceByTime({ xs: col.xs, ys: col.ys }, from);
  const ys = w.ys.length > 0 ? w.ys : col.ys;
  return Math.max(0, ys[ys.length - 1]! - ys[0]!);
}

export function gpuState(c: GpuColumns, from: number): GpuState {
  const w = sliceByTime({ xs: c.allocated.xs, ys: c.allocated.ys }, from);
  const ys = w.ys.length >= 3 ? w.ys : c.allocated.ys;
  const allocated = levels(ys).end;
  const reserved = endLevel(c.reserved);
  const { highest, noise } = highestLevel(ys);
  return {
    allocated,
    reserved,
    held: reserved === undefined ? undefined : Math.max(0, reserved - allocated),
    split: endLevel(c.inactiveSplit),
    active: endLevel(c.active),
    highest,
    fell: Math.max(0, highest - allocated),
    noise,
    drop: levelDrop(ys),
    retries: counterRise(c.allocRetries, from),
    ooms: c.ooms && c.ooms.length > 0 ? c.ooms.ys[c.ooms.length - 1] : undefined,
    readings: ys.length,
    peak: peakRise(c.allocatedPeak, c.allocated, from),
    highestReading: ys.reduce((m, y) => (y > m ? y : m), -Infinity),
  };
}
