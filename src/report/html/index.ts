/**
 * The HTML report: one self-contained file (uPlot and every byte of data inline, no network) that shows the verdict
 * and charts the memory of each process, the tree and the cgroup over time.
 *
 * Safety: text from the target reaches the page only escaped (banner.ts) or as JSON data read with textContent
 * (client.ts). A Content-Security-Policy allows only the two inline scripts, by hash, and no network at all, so even
 * a tag that slipped through could neither run a handler nor load anything.
 */
import { createHash } from "node:crypto";
import type { SeriesSet } from "../../series/series.js";
import type { SamplingFacts, VerdictDocument } from "../../analysis/types.js";
import { samplingText } from "../wording/numbers.js";
import { KIND_LABEL } from "../vocabulary.js";
import { uplotAssets } from "./assets.js";
import { bannerHtml } from "./banner.js";
import { buildCharts, type ChartPayload } from "./chart-data.js";
import { CLIENT_SCRIPT } from "./client.js";
import { escapeHtml as h, inlineSafe, scriptJson } from "./escape.js";
import { PAGE_CSS } from "./styles.js";
import { VERSION } from "../../base/version.js";

export interface HtmlMeta {
  /** Shown at the top and in the tab; the target's command line by default. */
  title?: string;
  /** Command lines by pid (from the sampler or the recording's process-start events), for chart captions. */
  commands?: Map<number, string[]>;
  /** Seconds since the start at which the verdict settled: drawn as a line on every chart. */
  settledAt?: number;
  /** Where and when the readings were taken, and by which memleak, for the footer. */
  about?: ReportAbout;
}

export interface ReportAbout {
  hostname?: string | undefined;
  kernel?: string | undefined;
  /** When sampling started (ms since the epoch). */
  startedAt?: number | undefined;
  /** The memleak that took the readings, when it is not this one (a recording made by another version). */
  recordedBy?: string | undefined;
  /** When this page was written (ms since the epoch); now by default. */
  writtenAt?: number | undefined;
}

/**
 * One line at the bottom: which memleak wrote the page, when, and on which machine the readings were taken; and, for
 * a session's own report, how they were taken (how old PSS/USS were, what memleak took).
 */
export function footer(a: ReportAbout = {}, sampling?: SamplingFacts): string {
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
  const parts = [`memleak ${h(VERSION)}`, `written ${h(iso(a.writtenAt ?? Date.now()))}`];
  if (a.startedAt !== undefined) parts.push(`readings from ${h(iso(a.startedAt))}`);
  if (a.hostname) parts.push(`on ${h(a.hostname)}${a.kernel ? ` (Linux ${h(a.kernel)})` : ""}`);
  if (a.recordedBy && a.recordedBy !== VERSION) parts.push(`recorded by memleak ${h(a.recordedBy)}`);
  if (sampling) parts.push(h(samplingText(sampling)));
  return `<footer class="about">${parts.join(" · ")}</footer>`;
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

export function renderHtml(doc: VerdictDocument, set: SeriesSet, meta: HtmlMeta = {}): string {
  const title = meta.title ?? (doc.target.command?.length ? doc.target.command.join(" ") : `PID ${doc.target.pid}`);
  return htmlPage({
    tabTitle: `memleak: ${KIND_LABEL[doc.verdict.kind] ?? doc.verdict.kind} — ${title}`,
    top: bannerHtml(doc, title, meta.commands),
    payload: buildCharts(doc, set, meta.commands, meta.settledAt),
    bottom: footer(meta.about, doc.sampling),
  });
}

/**
 * The page around a report: uPlot and the client inline, allowed by hash and nothing else, the top (escaped HTML)
 * and the charts' data. `run --try`'s comparison (trials-page.ts) is drawn in the same page.
 */
export function htmlPage(p: { tabTitle: string; top: string; payload: ChartPayload; bottom: string }): string {
  const { js, css } = uplotAssets();
  const uplotJs = inlineSafe(js, "script");
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(uplotJs)} ${sha256(CLIENT_SCRIPT)}`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${h(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="memleak">
<title>${h(p.tabTitle)}</title>
<style>${inlineSafe(css, "style")}</style>
<style>${PAGE_CSS}</style>
</head>
<body>
<main>
${p.top}
<div id="charts"></div>
${p.bottom}
</main>
<script type="application/json" id="memleak-data">${scriptJson(p.payload)}</script>
<script>${uplotJs}</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}
