import { minGrowth } from "../analysis/growth-floor.js";

/** A series as one line of block characters, scaled to its own min..max (or an ASCII ramp for terminals without Unicode). */
const BLOCKS = "▁▂▃▄▅▆▇█";
const ASCII = "_.-~=*#@";

/**
 * Averages `values` down to `width` buckets, then maps each bucket to a character.
 * `minSpan` (same unit as the values) is the smallest range the height stands for: with it, a flat series with a
 * little noise stays low and flat instead of being stretched to fill the whole height.
 */
export function sparkline(values: readonly number[], width = 24, ascii = false, minSpan = 0): string {
  const chars = ascii ? ASCII : BLOCKS;
  const n = Math.min(Math.max(0, Math.floor(width)), values.length);
  if (n === 0) return "";
  const buckets: number[] = [];
  const per = values.length / n;
  for (let b = 0; b < n; b++) {
    const from = Math.floor(b * per);
    const to = Math.max(from + 1, Math.floor((b + 1) * per));
    let sum = 0;
    for (let i = from; i < to; i++) sum += values[i]!;
    buckets.push(sum / (to - from));
  }
  let min = Infinity;
  let max = -Infinity;
  for (const v of buckets) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const span = Math.max(max - min, minSpan);
  return buckets
    .map((v) => chars[span === 0 ? 0 : Math.min(chars.length - 1, Math.floor(((v - min) / span) * chars.length))])
    .join("");
}

/**
 * The smallest range a memory sparkline's height stands for: the growth floor at the series' peak (analysis/growth-floor.ts,
 * 2 MiB or 2% of the level). Growth the analysis would not call growth stays on the bottom row: scaled to its own
 * min..max, or to 4% of a 4 MiB level, 76 KiB of noise on a process judged stable drew a hill.
 */
export function memorySpan(values: readonly number[]): number {
  return minGrowth(values.reduce((m, v) => Math.max(m, Math.abs(v)), 0));
}
