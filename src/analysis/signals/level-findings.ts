/**
 * What a plateau and a stable finding hold whichever subject levelled off or held still — a process, the tree, the
 * cgroup, a GPU device: the confidence, the advice and where the level began come from one builder each, so every
 * subject is judged and advised alike; each words its own summary (its facts differ).
 */
import { minGrowth, stoppedAt, stoppedGrowth, type Assessment } from "../assess.js";
import { confidenceFromP, stableConfidence } from "../evidence.js";
import { phrase, type Phrase } from "../phrases.js";
import type { MetricName, Subject } from "../types.js";

export interface PlateauParts {
  kind: "plateau";
  confidence: number;
  advice: Phrase[];
  /** How much the growth that stopped grew (the thirds' rise, or the step's jump). */
  growth: number;
  /** Seconds at which the level began, when the shape says (evidence.levelFromSeconds). */
  levelFromSeconds?: number;
}

/** A plateau or one step: the confidence is the level's own test where it has one, else the trend's. */
export function plateauParts(a: Assessment): PlateauParts {
  const levelFrom = stoppedAt(a);
  const growth = stoppedGrowth(a);
  return {
    kind: "plateau",
    confidence: confidenceFromP(a.plateau?.p ?? a.p),
    advice: [phrase("advice.plateau", { growth, level: a.end, levelFrom })],
    growth,
    ...(levelFrom !== undefined && { levelFromSeconds: Number(levelFrom.toFixed(1)) }),
  };
}

/** Held still: the longer it was watched, the surer; the advice says how little it moved and over how long. */
export function stableParts(
  a: Assessment,
  subject: Subject["type"],
  metric: MetricName,
): { kind: "stable"; confidence: number; advice: Phrase[] } {
  const confidence = stableConfidence(a.to - a.from);
  const facts = {
    subject,
    metric,
    growth: a.growth,
    seconds: a.to - a.from,
    noise: a.plateau?.noise,
    ...(a.own !== undefined && { own: a.own }),
  };
  return {
    kind: "stable",
    confidence,
    advice: [phrase("advice.stable", { ...facts, p: a.p, floor: minGrowth(a.start), confidence })],
  };
}
