/**
 * The verdict document users see: the judgement analysis makes (analysis/classify.ts `judge`), worded
 * (wording/index.ts). What every command that reports a verdict calls — run and watch (session/session.ts), their
 * interim verdicts (session/interim/job.ts), analyze of a recording (recording/replay.ts) and analyze --prometheus
 * (prometheus/verdicts.ts). The gates are then checked on it in one place, gates/gate-verdict.ts.
 */
import { judge, type ClassifyInput } from "../analysis/classify.js";
import type { JudgedFinding } from "../analysis/judgement.js";
import type { VerdictDocument } from "../analysis/types.js";
import { renderVerdict } from "./wording/index.js";

export type { ClassifyInput };

/** The worded document, and the verdict as facts (the live view words those its own, shorter way). */
export function classifyWithFacts(input: ClassifyInput): { doc: VerdictDocument; verdict: JudgedFinding } {
  const judgement = judge(input);
  return { doc: renderVerdict(judgement), verdict: judgement.verdict };
}

export function classify(input: ClassifyInput): VerdictDocument {
  return classifyWithFacts(input).doc;
}
