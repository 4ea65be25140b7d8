/**
 * GitHub Actions: an ::error annotation per failed gate (shown on the run's summary page), and a markdown summary
 * appended to $GITHUB_STEP_SUMMARY. Messages are escaped as the workflow-command syntax requires.
 */
import type { VerdictDocument } from "../analysis/types.js";
import { formatRate } from "../analysis/evidence.js";
import { formatDuration } from "../units.js";

/** %, CR and LF must be escaped in workflow command messages (actions/toolkit command.ts escapeData). */
export function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

export function annotations(doc: VerdictDocument): string {
  const failed = (doc.gates ?? []).filter((g) => !g.passed);
  const lines = failed.map((g) => `::error title=memleak ${g.name}::${escapeData(g.message)}`);
  if (failed.length === 0 && doc.verdict.kind === "leak") lines.push(`::warning title=memleak::${escapeData(doc.verdict.summary)}`);
  return lines.length ? lines.join("\n") + "\n" : "";
}

/** Markdown table cells: pipes and newlines would break the table. */
function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

export function stepSummary(doc: VerdictDocument): string {
  const v = doc.verdict;
  const cmd = doc.target.command ? `\`${cell(doc.target.command.join(" "))}\`` : `PID ${doc.target.pid}`;
  const out = [
    `### memleak: ${v.kind} — ${cmd}`,
    "",
    `**${cell(v.summary)}**`,
    "",
    `Observed ${formatDuration(doc.window.end - doc.window.start)}, ${doc.window.samples} samples.`,
    "",
    "| finding | subject | metric | rate | confidence |",
    "| --- | --- | --- | --- | --- |",
    ...doc.findings.map(
      (f) =>
        `| ${f.kind} | ${f.subject.type === "process" ? `PID ${f.subject.pid}` : f.subject.type} | ${f.metric} | ${cell(f.rate ? formatRate(f.rate) : "–")} | ${Math.round(f.confidence * 100)}% |`,
    ),
  ];
  if (doc.gates?.length) {
    out.push("", "| gate | result | detail |", "| --- | --- | --- |");
    for (const g of doc.gates) out.push(`| ${g.name} | ${g.passed ? "pass" : "**FAIL**"} | ${cell(g.message)} |`);
  }
  if (v.advice) out.push("", "<details><summary>What to do</summary>", "", v.advice, "", "</details>");
  return out.join("\n") + "\n";
}
