/**
 * The smallest growth worth a verdict, shared by the analysis (which judges by it) and the report (whose sparklines
 * are scaled to at least it, so noise under it draws flat): at the bottom of the house so the report need not
 * import the analysis for it.
 *
 * Smallest growth worth a verdict over the analyzed window: 2 MiB, or 2% of the level, whichever is larger. A trend
 * of a few hundred KiB is real but nobody's problem; a 1 MB/hour leak shows up once the watch is long enough for it
 * to pass this floor. Measured by scripts/threshold-margins.mjs on fixtures/recordings and
 * fixtures/calibration/recordings: tiny_growth (a memo table, +1.1 MiB in 90 s) is stable and slow_leak (+4.4 MiB in
 * 90 s) a leak; 2% keeps page-rounding and allocator wobble of big processes out (torch_losses_item moves 0.6 MiB at
 * 135 MiB after start-up). Boundary tests: rules/growth.test.ts (1.8 / 2.3 MiB; 1.8% / 2.2%).
 */
export const MIN_GROWTH_BYTES = 2 * 2 ** 20;
export const MIN_GROWTH_FRACTION = 0.02;

/** The growth floor for a series at `level` bytes. */
export function minGrowth(level: number): number {
  return Math.max(MIN_GROWTH_BYTES, MIN_GROWTH_FRACTION * Math.abs(level));
}
