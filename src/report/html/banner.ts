/**
 * The top of the HTML report, as markup: what was watched, the verdict with its one-sentence reason, the evidence,
 * the advice, what could not be decided, the other findings and the gates. Every string goes through escapeHtml
 * (the advice through the markdown subset, which escapes first): summaries and evidence quote the target.
 */
import type { Finding, VerdictDocument } from "../../analysis/types.js";
import { formatRate } from "../wording/numbers.js";
import { formatBytes } from "../../base/units.js";
import { observedText } from "../observed.js";
import { evidenceValue, KIND_LABEL, subjectText } from "../vocabulary.js";
import { evidenceLabel } from "../evidence-labels.js";
import { rateShown } from "../rate-shown.js";
import { escapeHtml as h } from "./escape.js";
import { shortCommand } from "../../base/command-text.js";
import { safeText } from "../../base/safe-text.js";
import { markdownToHtml } from "./markdown.js";
import { testsSection } from "./pytest-section.js";
import { everyFinding } from "../../analysis/every-finding.js";
import { nativeSection } from "./native-section.js";
import { holderPanel } from "./holder-panel.js";
import { copiedPanel } from "./copied-panel.js";
import { gpuHistoryCost, traceWindowCost } from "../holder-lines.js";

/** CSS class of a kind; kinds are a closed set, but the class name is checked anyway as it lands in an attribute. */
export function kindClass(kind: string): string {
  return /^[a-z-]+$/.test(kind) ? `kind-${kind}` : "kind-unknown";
}

function targetList(doc: VerdictDocument): string {
  const t = doc.target;
  const rows: [string, string][] = [];
  if (t.command?.length) rows.push(["command", `<code>${h(t.command.join(" "))}</code>`]);
  rows.push(["pid", h(t.pid)]);
  if (t.cgroup) {
    rows.push([
      "cgroup",
      "error" in t.cgroup
        ? `not read: ${h(t.cgroup.error)}`
        : `<code>${h(t.cgroup.path)}</code> (v${h(t.cgroup.version)}${t.cgroup.isolated ? ", created for this run" : ""})`,
    ]);
  }
  const end: string[] = [];
  if (t.stopReason) end.push(h(t.stopReason));
  if (t.exitCode !== undefined && t.exitCode !== null) end.push(`exit code ${h(t.exitCode)}`);
  if (t.signal) end.push(`signal ${h(t.signal)}`);
  if (end.length) rows.push(["stopped", end.join(", ")]);
  const w = doc.window;
  const observed = observedText(w, (warmup) => `the first ${warmup} left out as warm-up`, h);
  rows.push(["observed", observed]);
  return `<dl class="target">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("")}</dl>`;
}

/**
 * The verdict's process as it was started: the finding's command is cut at 80 characters for the terminal and the
 * JSON (classify.ts commandText), where a page has the room for the whole command line, when it is known.
 */
function wholeCommand(v: Finding, commands: Map<number, string[]> | undefined): string | undefined {
  if (v.subject.type !== "process") return undefined;
  const argv = commands?.get(v.subject.pid);
  return argv?.length ? safeText(shortCommand({ cmdline: argv, comm: v.subject.command })) : v.subject.command;
}

function verdictBox(v: Finding, commands: Map<number, string[]> | undefined): string {
  const command = wholeCommand(v, commands);
  const rate = v.rate && rateShown(v.kind) ? `<p class="rate">rate: ${h(v.metric)} ${h(formatRate(v.rate))}</p>` : "";
  return `<section class="banner ${kindClass(v.kind)}" id="verdict" aria-label="verdict">
<div class="kind">${h(KIND_LABEL[v.kind] ?? v.kind)}</div>
<div class="subject">${h(subjectText(v))} · confidence ${h(Math.round(v.confidence * 100))}%${command !== undefined ? ` · <code>${h(command)}</code>` : ""}</div>
<p class="summary">${h(v.summary)}</p>
${rate}
${v.timeToLimit ? `<p class="rate">time to the limit: ${h(v.timeToLimit.summary)}</p>` : ""}
</section>`;
}

function evidenceTable(v: Finding): string {
  // The label a person reads; the key the JSON document uses on hover, for whoever scripts against it.
  const rows = Object.entries(v.evidence).map(
    ([k, val]) =>
      `<tr><th scope="row" title="${h(k)}">${h(evidenceLabel(k))}</th><td>${h(evidenceValue(k, val))}</td></tr>`,
  );
  return `<section class="evidence"><h2>Evidence</h2><table>${rows.join("")}</table></section>`;
}

function adviceBlock(v: Finding): string {
  // Caveats of a verdict that was reached qualify it; only with no verdict are they what kept memleak from one.
  const heading = v.kind === "insufficient-data" ? "Could not decide" : "Caveats";
  const caveats = v.caveats.length
    ? `<h3>${heading}</h3><ul class="caveats">${v.caveats.map((c) => `<li>${h(c)}</li>`).join("")}</ul>`
    : "";
  const advice = v.advice ? markdownToHtml(v.advice) : "<p>Nothing to do.</p>";
  return `<section class="advice"><h2>What to do</h2>${advice}${caveats}</section>`;
}

function otherFindings(doc: VerdictDocument): string {
  const v = doc.verdict;
  const others = everyFinding([v, ...doc.findings.filter((f) => f !== v && f.summary !== v.summary)]).slice(1);
  if (!others.length) return "";
  const rows = others.map(
    (f) =>
      `<tr><td><span class="badge ${kindClass(f.kind)}">${h(f.kind)}</span></td><td>${h(subjectText(f))}</td><td>${h(f.metric)}</td><td class="num">${h(f.rate && rateShown(f.kind) ? formatRate(f.rate) : "–")}</td><td class="num">${h(Math.round(f.confidence * 100))}%</td><td>${h(f.summary)}</td></tr>`,
  );
  return `<section class="others"><h2>Other findings</h2><table><thead><tr><th>kind</th><th>subject</th><th>metric</th><th class="num">rate</th><th class="num">confidence</th><th>why</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

function gatesTable(doc: VerdictDocument): string {
  if (!doc.gates?.length) return "";
  const cell = (g: (typeof doc.gates)[number]) =>
    g.result === "pass"
      ? ["pass", "pass"]
      : g.passed
        ? ["inconclusive", "inconclusive"]
        : ["fail", g.result === "fail" ? "FAIL" : "FAIL (inconclusive, --strict)"];
  const rows = doc.gates.map(
    (g) => `<tr class="${cell(g)[0]}"><td>${cell(g)[1]}</td><td>${h(g.name)}</td><td>${h(g.message)}</td></tr>`,
  );
  return `<section class="gates"><h2>Gates</h2><table>${rows.join("")}</table></section>`;
}

/** With --trace-python: the Python lines whose allocations grew most after warm-up (tracemalloc), as a table. */
function sitesTable(v: Finding): string {
  if (!v.sites?.length) return "";
  const rows = v.sites
    .slice(0, 20)
    .map(
      (s) =>
        `<tr><td class="num">+${h(formatBytes(s.sizeDiff))}</td><td class="num">${s.countDiff >= 0 ? "+" : ""}${h(s.countDiff)}</td><td class="num">${h(formatBytes(s.size))}</td><td><code>${h(s.file)}:${h(s.line)}</code>${s.function ? ` ${h(s.function)}` : ""}${s.via ? ` <span class="note">via ${h(s.via)}</span>` : ""}</td></tr>`,
    );
  const { heading, note, bytes } = sitesCaption(v);
  return `<section class="sites" id="sites"><h2>${heading}</h2><p class="note">${note}</p><table><thead><tr><th class="num">${bytes}</th><th class="num">blocks</th><th class="num">now</th><th>where</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

/** What the sites table is headed and noted with, by where its sites come from (HTML-escaped already). */
function sitesCaption(v: Finding): { heading: string; note: string; bytes: string } {
  const gpu = gpuHistoryCost(v);
  if (gpu)
    return {
      heading: "CUDA allocation sites still held at the end of the history window",
      note: `${h(gpu)}.`,
      bytes: "held",
    };
  const window = traceWindowCost(v);
  const until = v.sitesInterim
    ? "the agent's last periodic report (the process ended without its final one)"
    : "the end of the run";
  return {
    heading: window ? "Allocation sites that grew during the trace window" : "Allocation sites that grew since warm-up",
    note: window
      ? `From tracemalloc (watch --trace-python): the lines of Python whose live allocations grew most during the window. ${h(window)}.`
      : `From tracemalloc (--trace-python): the lines of Python whose live allocations grew most between the end of warm-up and ${until}.`,
    bytes: "grew by",
  };
}

/** @param commands command lines by pid, when known: the verdict's process is shown with its whole command line */
export function bannerHtml(doc: VerdictDocument, title: string, commands?: Map<number, string[]>): string {
  return `<header class="top"><h1>memleak report <span class="title">${h(title)}</span></h1>${targetList(doc)}</header>
${verdictBox(doc.verdict, commands)}
<div class="columns">${evidenceTable(doc.verdict)}${adviceBlock(doc.verdict)}</div>
${holderPanel(doc.verdict)}
${copiedPanel(doc.verdict)}
${sitesTable(doc.verdict)}
${nativeSection(doc.nativeTrace)}
${otherFindings(doc)}
${gatesTable(doc)}
${testsSection(doc)}`;
}
