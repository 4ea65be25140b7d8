/** `run --try`'s comparison as markdown for $GITHUB_STEP_SUMMARY: the table, the recommendation, the gate. */
import { formatBytes } from "../../base/units.js";
import { safeText } from "../../base/safe-text.js";
import type { Comparison } from "../../trial/compare.js";
import { cutsText, signedChange } from "../../trial/compare.js";
import type { TrialsDocument } from "../../trial/trials-document.js";
import { effectWord, measuredWhat } from "./trials-words.js";

/** A table cell: no pipe or line break may end it early. */
const cell = (s: string) =>
  safeText(s)
    .replace(/\|/g, "\\|")
    .replace(/[\r\n]+/g, " ");

export function trialsStepSummary(cmp: Comparison, doc: TrialsDocument, command: string): string {
  const rows = cmp.trials.map((t) => {
    const m = t.measures;
    const change = t.effect === "helps" ? cutsText(t.vsBaseline!, t.noise!) : "";
    const seen = t.inEffect ? (t.inEffect.seen ? t.inEffect.how : `not in effect: ${t.inEffect.why}`) : "";
    return `| ${cell(t.setting.text)} | ${m.verdict.kind} ${Math.round(m.verdict.confidence * 100)}% | ${formatBytes(m.tree?.peak)} | ${formatBytes(m.tree?.end)} | ${signedChange(m.tree?.growth)} | ${formatBytes(m.cgroup?.end)} | ${effectWord(t.effect)}${change ? `: ${cell(change)}` : ""} | ${cell(seen)} |`;
  });
  const gates = (doc.gates ?? []).map((g) => `- gate ${g.name}: **${g.result}**: ${cell(g.message)}`);
  return [
    "### memleak: allocator settings tried",
    "",
    cell(measuredWhat(cmp, command)),
    "",
    "| setting | verdict | peak | end | growth | cgroup end | effect | in effect |",
    "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ...rows,
    "",
    `**${cmp.recommendation.setting ? "Use " : ""}${cell(cmp.recommendation.text)}**`,
    ...(cmp.recommendation.also ?? []).map((a) => `- also helps: ${cell(a)}`),
    ...(gates.length ? ["", ...gates] : []),
    "",
  ].join("\n");
}
