/** `run --trace-native` in the GitHub step summary: the leaking C/C++ stacks as a table, and that the run was traced. */
import type { VerdictDocument } from "../../analysis/types.js";
import { markdownText } from "../github.js";
import { amountText, frameText, noStacksText, siteText, tracedText } from "./wording.js";

export function nativeStepSummary(doc: VerdictDocument): string {
  const t = doc.nativeTrace;
  if (!t) return "";
  const out = ["", "#### Native stacks that leaked (heaptrack)", ""];
  if (t.stacks.length === 0) out.push(markdownText(noStacksText(t)));
  else {
    out.push("| site | never freed | frames |", "| --- | --- | --- |");
    for (const s of t.stacks)
      out.push(
        `| ${markdownText(siteText(s))} | ${markdownText(amountText(s))} | ${s.frames.map((f) => markdownText(frameText(f), 120)).join(" ← ")} |`,
      );
  }
  out.push("", `_${markdownText(tracedText(t), 600)}_`);
  return out.join("\n") + "\n";
}
