/** Turning assessments into the numbers a finding shows, and confidence values. */
import type { Assessment } from "./assess.js";
import { phrase, type Phrase } from "./phrases.js";

export function trendEvidence(a: Assessment, prefix = ""): Record<string, number | string> {
  const e: Record<string, number | string> = {
    [`${prefix}start`]: Math.round(a.start),
    [`${prefix}end`]: Math.round(a.end),
    [`${prefix}peak`]: Math.round(a.peak),
    [`${prefix}growth`]: Math.round(a.growth),
    [`${prefix}slopeBytesPerSecond`]: Number(a.rate.bytesPerSecond.toFixed(1)),
    [`${prefix}pValue`]: Number(a.p.toPrecision(3)),
    [`${prefix}windowSeconds`]: Number((a.to - a.from).toFixed(1)),
    // When the window began: classify.ts keeps it only where that is later than the report's judged start.
    ...(prefix === "" && { windowFromSeconds: Number(a.from.toFixed(1)) }),
    [`${prefix}samples`]: a.samples,
  };
  if (a.plateau) e[`${prefix}noise`] = Math.round(a.plateau.noise);
  // The growth was seen in the lows between swings only (stats/envelope.ts): start, end and rate are the lows'.
  if (a.envelope) e[`${prefix}trendOn`] = "lows";
  // Called by the early test on a window too short for the shape rules (stats/sequential.ts).
  if (a.early)
    Object.assign(e, {
      [`${prefix}calledEarly`]: "sequential",
      [`${prefix}earlyAlpha`]: Number(a.early.alpha.toPrecision(2)),
    });
  return e;
}

/**
 * An early call (stats/sequential.ts) says "growing" before anything can say "and it will not level off": at most
 * this confident, whatever its p. Below the 0.8 of a fragmentation reading, above the two-thirds of a trend just
 * past the level.
 */
export const EARLY_CONFIDENCE_MAX = 0.75;

/** Confidence of a "growing" assessment: from its p, capped for an early call. */
export function growthConfidence(a: Assessment): number {
  const c = confidenceFromP(a.p);
  return a.early ? Math.min(EARLY_CONFIDENCE_MAX, c) : c;
}

/** What an early call cannot know, for the caveats of a finding whose evidence says it was called early. */
export function earlyCaveat(evidence: Record<string, unknown>): Phrase | undefined {
  if (evidence.calledEarly === undefined) return undefined;
  return phrase("leak.early", { seconds: Number(evidence.windowSeconds), alpha: String(evidence.earlyAlpha) });
}

/**
 * 0.5 at p = 1, 0.66 at the significance level (p = 0.01), 0.99 at p ≤ 1e-6: linear in −log10 p over six decades.
 * A wording scale, not a probability: 12 ordered block means give p ≈ 8e-6 (stats/trend.ts), so a clean trend over
 * a whole window reads 0.9 or more, and one just past the level reads two-thirds sure.
 */
export function confidenceFromP(p: number): number {
  const strength = Math.min(1, Math.max(0, -Math.log10(Math.max(p, 1e-300)) / 6));
  return Number((0.5 + 0.49 * strength).toFixed(2));
}

/**
 * How sure "no growth" is: grows with the length of the watch, from 0.5 to 0.95 at 10 minutes. Linear, because a
 * leak below the floor grows past it in proportion to time: after 10 minutes, a leak still unseen is under
 * 2 MiB / 600 s ≈ 3.5 KiB/s (12 MiB an hour), which few users need to hear about.
 */
export function stableConfidence(seconds: number): number {
  return Number(Math.min(0.95, 0.5 + (0.45 * seconds) / 600).toFixed(2));
}
