/**
 * GitHub Actions: an ::error annotation per failed gate and a ::warning per inconclusive one (shown on the run's
 * summary page), and a markdown summary appended to $GITHUB_STEP_SUMMARY. Messages are escaped as the
 * workflow-command syntax requires.
 */
import type { VerdictDocument } from "../analysis/types.js";
import { formatRate } from "./wording/numbers.js";
import { formatBytes, formatDuration } from "../base/units.js";
import { truncate } from "./style.js";
import { safeText } from "../base/safe-text.js";
import { everyFinding } from "../analysis/every-finding.js";
import { subjectLabel } from "./vocabulary.js";
import { holderCost, holderHeadline, holderHops, holderWhere } from "./holder-lines.js";
import { copiedCost, copiedHeadline, copiedObjectLine } from "./copied-lines.js";

/** %, CR and LF must be escaped in workflow command messages (actions/toolkit command.ts escapeData). */
export function escapeData(s: string): string {
  // Other control characters (ESC…) would reach the log raw: shown escaped, as everywhere else.
  return safeText(s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A"));
}

/**
 * Where an annotation points: the allocation site --trace-python found (the top one), as a path relative to the
 * checkout — GitHub attaches file= only to files of the repository, so a site in site-packages gets none.
 */
export function siteProperties(doc: VerdictDocument, workspace: string | undefined): string {
  return placeProperties(doc.verdict.sites?.[0], workspace);
}

/** file= and line= of a place in the checkout, or nothing for a place outside it. */
function placeProperties(place: { file: string; line: number } | undefined, workspace: string | undefined): string {
  if (!place || !workspace) return "";
  const root = workspace.endsWith("/") ? workspace : `${workspace}/`;
  if (!place.file.startsWith(root)) return "";
  return `file=${escapeProperty(place.file.slice(root.length))},line=${place.line},`;
}

/** Where the holder's root is assigned (a module global, a class attribute), when it is in the checkout. */
export function holderProperties(doc: VerdictDocument, workspace: string | undefined): string {
  const holder = doc.verdict.holder;
  return holder?.found ? placeProperties(holder.where, workspace) : "";
}

/** Properties (title=, file=) escape ',' and ':' as well (actions/toolkit command.ts escapeProperty). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * ::error per gate that fails the step, ::warning per gate left inconclusive (and for a leak no gate judged), each
 * at the allocation site when --trace-python found one in the checkout, else where the holder's root is assigned;
 * and, when they point at the site, a ::notice where the holder's root is assigned, naming it.
 */
/**
 * An `::error` per gate that fails the step (at `at`: a file and line where one is known), a `::warning` per
 * inconclusive one that does not: `run`'s and `watch`'s gates, and `run --try`'s (--fail-unless-helps).
 */
export function gateAnnotations(
  gates: readonly Pick<NonNullable<VerdictDocument["gates"]>[number], "name" | "result" | "passed" | "message">[],
  at = "",
): string[] {
  return [
    ...gates
      .filter((g) => !g.passed)
      .map((g) => `::error ${at}title=${escapeProperty(`memleak ${g.name}`)}::${escapeData(g.message)}`),
    ...gates
      .filter((g) => g.passed && g.result === "inconclusive")
      .map((g) => `::warning title=${escapeProperty(`memleak ${g.name} inconclusive`)}::${escapeData(g.message)}`),
  ];
}

export function annotations(doc: VerdictDocument, workspace?: string): string {
  const site = siteProperties(doc, workspace);
  const held = holderProperties(doc, workspace);
  const at = site || held;
  const gates = doc.gates ?? [];
  const lines = gateAnnotations(gates, at);
  if (!gates.some((g) => !g.passed) && doc.verdict.kind === "leak")
    lines.push(`::warning ${at}title=memleak::${escapeData(doc.verdict.summary)}`);
  if (held && held !== at && doc.verdict.holder)
    lines.push(
      `::notice ${held}title=${escapeProperty("memleak: what holds the leak")}::${escapeData(holderHeadline(doc.verdict.holder))}`,
    );
  return lines.length ? lines.join("\n") + "\n" : "";
}

const RESULT_CELL = { pass: "pass", fail: "**FAIL**", inconclusive: "inconclusive ⚠️" } as const;

/**
 * Text from the target (argv, names) and from recordings CI did not make, made inert for markdown: newlines made
 * spaces (a table cell is one line), other control characters shown escaped, HTML and backticks escaped (a backtick would close a code span and let `<img …>` or a
 * link through as live markup), pipes escaped so the table holds, and cut at `max` characters.
 */
export function markdownText(s: string, max = 300): string {
  return safeText(truncate(s, max).replace(/\r?\n/g, " ")).replace(/[&<>`|\\[\]]/g, (c) => MARKDOWN_ESCAPES[c]!);
}
const MARKDOWN_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "`": "&#96;",
  "|": "\\|",
  "\\": "&#92;",
  "[": "&#91;",
  "]": "&#93;",
};

const cell = (s: string) => markdownText(s);

/** The allocation sites a step summary lists (the report and the JSON have them all). */
const SUMMARY_SITES = 3;

export function stepSummary(doc: VerdictDocument): string {
  const v = doc.verdict;
  const cmd = doc.target.command
    ? `<code>${markdownText(doc.target.command.join(" "), 200)}</code>`
    : `PID ${doc.target.pid}`;
  const out = [
    `### memleak: ${v.kind} — ${cmd}`,
    "",
    `**${cell(v.summary)}**`,
    "",
    ...(v.timeToLimit ? [`Time to the memory limit: ${cell(v.timeToLimit.summary)}`, ""] : []),
    `Observed ${formatDuration(doc.window.end - doc.window.start)}, ${doc.window.samples} samples.`,
    "",
    "| finding | subject | metric | rate | confidence |",
    "| --- | --- | --- | --- | --- |",
    ...everyFinding(doc.findings).map(
      (f) =>
        `| ${f.kind} | ${subjectLabel(f)} | ${f.metric} | ${cell(f.rate ? formatRate(f.rate) : "–")} | ${Math.round(f.confidence * 100)}% |`,
    ),
  ];
  if (doc.gates?.length) {
    out.push("", "| gate | result | detail |", "| --- | --- | --- |");
    for (const g of doc.gates)
      out.push(
        `| ${g.name} | ${g.passed || g.result !== "inconclusive" ? RESULT_CELL[g.result] : "**inconclusive (strict)**"} | ${cell(g.message)} |`,
      );
  }
  if (v.holder) {
    const hops = holderHops(v.holder);
    const where = holderWhere(v.holder);
    out.push(
      "",
      `**What holds it:** ${cell(holderHeadline(v.holder))}`,
      "",
      ...(hops ? [cell(hops), ""] : []),
      ...(where ? [cell(where), ""] : []),
      `<sub>${cell(holderCost(v.holder))}</sub>`,
    );
  }
  if (v.sites?.length) {
    // The lines the report's sites table starts with: where a reader of the step looks first.
    const from = v.sitesFrom === "cuda-history" ? "CUDA memory still held, allocated at" : "Allocated at";
    out.push(
      "",
      `**${from}:**`,
      "",
      ...v.sites
        .slice(0, SUMMARY_SITES)
        .map(
          (s) =>
            `- ${cell(`${s.file}:${s.line}${s.function ? ` ${s.function}` : ""}`)}: +${formatBytes(s.sizeDiff)} in ${s.countDiff} block${s.countDiff === 1 ? "" : "s"}`,
        ),
    );
  }
  if (v.copied) {
    const cost = copiedCost(v.copied);
    out.push(
      "",
      `**What it copied:** ${cell(copiedHeadline(v.copied))}`,
      "",
      ...v.copied.objects.map((o) => `- ${cell(copiedObjectLine(o))}`),
      ...(cost ? ["", `<sub>${cell(cost)}</sub>`] : []),
    );
  }
  if (v.advice) out.push("", "<details><summary>What to do</summary>", "", v.advice, "", "</details>");
  return out.join("\n") + "\n";
}
