/**
 * `analyze --prometheus`: one line per subject (pod, container, watched process) with its verdict, the most serious
 * first, before the headline verdict's full report. A fleet has hundreds of stable pods: they are counted, not listed.
 */
import type { Finding } from "../../analysis/types.js";
import { compareFindings } from "../../analysis/classify.js";
import { formatBytes } from "../../base/units.js";
import { safeText } from "../../base/safe-text.js";
import { palette } from "../style.js";
import { clip } from "../text-width.js";
import { kindColour } from "../vocabulary.js";

/** Subjects listed by name; the rest are counted by kind. */
export const MAX_LISTED = 20;

export interface SubjectLine {
  name: string;
  verdict: Finding;
}

const growthOf = (f: Finding) => {
  const g = Number(f.evidence.usageGrowth ?? f.evidence.growth);
  return Number.isFinite(g) ? `${g >= 0 ? "+" : ""}${formatBytes(g)}` : "–";
};

export function renderSeriesVerdicts(subjects: SubjectLine[], color: boolean, columns: number): string {
  const c = palette(color);
  const sorted = [...subjects].sort((a, b) => compareFindings(a.verdict, b.verdict));
  const listed = sorted.filter((s, i) => i < MAX_LISTED && (s.verdict.kind !== "stable" || i < 5));
  const rest = sorted.slice(listed.length);
  const kindW = Math.max(4, ...listed.map((s) => s.verdict.kind.length));
  const out = [c.dim(`${"verdict".padEnd(kindW)}  conf.    growth  subject`)];
  for (const s of listed) {
    const f = s.verdict;
    const head = `${f.kind.padEnd(kindW)}  ${`${Math.round(f.confidence * 100)}%`.padStart(5)}  ${growthOf(f).padStart(8)}  `;
    out.push(
      kindColour(c, f.kind)(head.slice(0, kindW)) +
        head.slice(kindW) +
        clip(safeText(s.name), Math.max(10, columns - head.length)),
    );
  }
  if (rest.length > 0) {
    const counts = new Map<string, number>();
    for (const s of rest) counts.set(s.verdict.kind, (counts.get(s.verdict.kind) ?? 0) + 1);
    out.push(
      c.dim(
        `… and ${rest.length} more: ${[...counts].map(([k, n]) => `${n} ${k}`).join(", ")} (--json lists every one)`,
      ),
    );
  }
  return out.join("\n") + "\n\n";
}
