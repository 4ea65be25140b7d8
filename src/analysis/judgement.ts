/**
 * A verdict before it is worded: the findings with their facts (phrases.ts) where the document has sentences.
 * analysis/classify.ts `judge` makes it; report/wording/ renders it into the VerdictDocument users see.
 */
import type { Phrase } from "./phrases.js";
import type { Finding, TimeToLimit, VerdictDocument } from "./types.js";

/** A finding whose summary, caveats and advice are still facts. */
export interface JudgedFinding extends Omit<Finding, "summary" | "caveats" | "advice" | "alsoFound" | "timeToLimit"> {
  /** The projection's numbers: its sentence is worded with the rest (report/wording/time-to-limit.ts). */
  timeToLimit?: Omit<TimeToLimit, "summary">;
  summary: Phrase;
  /** Sections of advice, each from src/advice/<kind>.md: worded and joined by a blank line. */
  advice: Phrase[];
  caveats: Phrase[];
  alsoFound?: JudgedFinding[];
  /**
   * The most its calibrated confidence may say, for what this run could not see (signals/unseen.ts); gone once
   * calibrated (analysis/calibration.ts), never in the document.
   */
  confidenceAtMost?: number;
}

export interface Judgement extends Omit<VerdictDocument, "verdict" | "findings" | "gates" | "sampling"> {
  /** One of `findings` (the same object), or a finding of its own when there is none. */
  verdict: JudgedFinding;
  findings: JudgedFinding[];
}
