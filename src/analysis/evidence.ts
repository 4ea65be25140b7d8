/** Turning assessments into the numbers a finding shows, and confidence values. */
import { formatBytes, formatDuration } from "../units.js";
import type { Assessment } from "./assess.js";
import type { Rate } from "./types.js";

export function trendEvidence(a: Assessment, prefix = ""): Record<string, number | string> {
  const e: Record<string, number | string> = {
    [`${prefix}start`]: Math.round(a.start),
    [`${prefix}end`]: Math.round(a.end),
    [`${prefix}peak`]: Math.round(a.peak),
    [`${prefix}growth`]: Math.round(a.growth),
    [`${prefix}slopeBytesPerSecond`]: Number(a.rate.bytesPerSecond.toFixed(1)),
    [`${prefix}pValue`]: Number(a.p.toPrecision(3)),
    [`${prefix}windowSeconds`]: Number((a.to - a.from).toFixed(1)),
    [`${prefix}samples`]: a.samples,
  };
  if (a.plateau) e[`${prefix}noise`] = Math.round(a.plateau.noise);
  return e;
}

/** 0.5 at p = alpha-ish, approaching 0.99 as the evidence piles up (p → 1e-6 and beyond). */
export function confidenceFromP(p: number): number {
  const strength = Math.min(1, Math.max(0, -Math.log10(Math.max(p, 1e-300)) / 6));
  return Number((0.5 + 0.49 * strength).toFixed(2));
}

/** How sure "no growth" is: grows with the length of the watch (10 minutes for 0.95). */
export function stableConfidence(seconds: number): number {
  return Number(Math.min(0.95, 0.5 + (0.45 * seconds) / 600).toFixed(2));
}

export function formatRate(rate: Rate | undefined): string {
  if (!rate) return "–";
  const perMin = rate.bytesPerSecond * 60;
  const abs = Math.abs(rate.bytesPerSecond);
  const text = abs >= 2 ** 20 / 10 ? `${formatBytes(rate.bytesPerSecond)}/s` : perMin >= 2 ** 20 / 10 || perMin <= -(2 ** 20) / 10 ? `${formatBytes(perMin)}/min` : `${formatBytes(perMin * 60)}/h`;
  const pct = rate.percentPerHour;
  // Past 1000%/h the percentage says nothing more than "fast" (a process that started near zero).
  const pctText = Math.abs(pct) >= 1000 ? `${pct > 0 ? ">+" : "<-"}1000%/h` : `${pct >= 0 ? "+" : ""}${pct.toFixed(Math.abs(pct) < 10 ? 1 : 0)}%/h`;
  return `${text} (${pctText})`;
}

export { formatBytes, formatDuration };
