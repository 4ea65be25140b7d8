/** Words the terminal and the step summary share for `run --try`'s comparison. */
import { formatDuration } from "../../base/units.js";
import type { Comparison, Effect } from "../../trial/compare.js";
import { treeMetricLabel } from "../../trial/measures.js";

const EFFECT_WORDS: Record<Effect, string> = {
  baseline: "baseline",
  helps: "helps",
  "no-difference": "no difference",
  worse: "worse",
  "not-in-effect": "not in effect",
  failed: "failed",
};

export function effectWord(e: Effect): string {
  return EFFECT_WORDS[e];
}

/** "3 runs of python3 x.py, 30 s each; the tree's Σ anonymous PSS, its growth after 5.0 s of warm-up" */
export function measuredWhat(cmp: Comparison, command: string): string {
  const seconds = cmp.trials.map((t) => t.measures.seconds);
  const lo = Math.min(...seconds);
  const hi = Math.max(...seconds);
  const each = hi - lo < 1 ? `${formatDuration(hi)} each` : `${formatDuration(lo)} to ${formatDuration(hi)}`;
  const metric = treeMetricLabel(cmp.trials[0]?.measures.metric ?? "pss-anon");
  const from =
    cmp.measuredFrom > 0 ? `after ${formatDuration(cmp.measuredFrom)} of warm-up` : "from the start (no warm-up found)";
  return `${cmp.trials.length} runs of ${command}, ${each}: the tree's ${metric}, its growth ${from}`;
}
