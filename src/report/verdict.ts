/**
 * The verdict document users see: the judgement analysis makes (analysis/classify.ts `judge`), worded
 * (wording/index.ts). What every command that reports a verdict calls — run, watch, analyze, the interim verdicts.
 */
import { judge, type ClassifyInput } from "../analysis/classify.js";
import type { VerdictDocument } from "../analysis/types.js";
import { renderVerdict } from "./wording/index.js";

export type { ClassifyInput };

export function classify(input: ClassifyInput): VerdictDocument {
  return renderVerdict(judge(input));
}
