/** The shortest series the shape rules judge, which the series also use to say when a process came and went too fast. */
/**
 * Below these there is no verdict, only insufficient-data. 20 samples: the shape detectors' own minimum
 * (analysis/stats/shape.ts MIN_SHAPE_POINTS: a third of fewer points cannot be tested). 10 s, a trade-off: at a fast
 * --interval, 20 samples can cover a single GC cycle or one batch, whose rise is no trend; the synthetic 1 MB/s
 * leak of BENCHMARKS.md is first called at 17–23 s, so the floor rarely delays a verdict at the default interval.
 * Boundary tests: rules/growth.test.ts (19 / 21 samples; 9 / 11 s).
 */
export const MIN_SAMPLES = 20;
export const MIN_SECONDS = 10;

/** Whether `samples` over `seconds` are too few for the shape rules (the early test, or nothing, decides then). */
export const tooShortForShapes = (samples: number, seconds: number) => samples < MIN_SAMPLES || seconds < MIN_SECONDS;

/**
 * Seconds that fall short of `needs`, as a reason says them: whole seconds, but never rounded up to what is needed —
 * 9.7 s said "10 s after warm-up (needs 10 s)", a reason that contradicts itself (ci.test's 10 s fork_cow step, on a
 * machine fast enough that its workers lived ~10.2 s). Tenths then, as the evidence's window says them, at most a
 * tenth under what is needed.
 */
export function secondsShort(seconds: number, needs = MIN_SECONDS): string {
  const whole = seconds.toFixed(0);
  if (!(seconds < needs) || Number(whole) < needs) return whole;
  return Math.min(Number(seconds.toFixed(1)), needs - 0.1).toFixed(1);
}
