/**
 * The "observed" line of the terminal and the HTML reports: how long, how many samples, how often, the warm-up left
 * out. One sample has no interval and no duration ("1 sample", not "0ms, 1 samples every 0ms").
 */
import { formatDuration } from "../base/units.js";
import type { VerdictDocument } from "../analysis/types.js";

/** @param h escapes each value for the page it goes into (the HTML's); the terminal passes text through. */
export function observedText(
  w: VerdictDocument["window"],
  warmupWords: (warmup: string) => string,
  h: (s: string | number) => string = String,
): string {
  if (w.samples === 1) return `1 sample`;
  const warmup = w.warmup > 0 ? `, ${warmupWords(h(formatDuration(w.warmup)))}` : "";
  return `${h(formatDuration(w.end - w.start))}, ${h(w.samples)} samples every ${h(formatDuration(w.interval))}${warmup}`;
}
