/**
 * What run and watch do with a finished analysis: print it (text or JSON) and tell GitHub Actions. The exit code
 * is exit-policy.ts's.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { hostname, release } from "node:os";
import type { SeriesSet } from "../series/series.js";
import type { VerdictDocument } from "../analysis/types.js";
import { renderHtml, type ReportAbout } from "../report/html/index.js";
import { annotations, stepSummary } from "../report/github.js";
import { renderVerdict } from "../report/terminal/verdict-text.js";
import { testsStepSummary } from "../report/pytest/summary.js";
import { nativeStepSummary } from "../report/native/summary.js";
import { safeText } from "../base/safe-text.js";
import type { CommandIO } from "../base/command-io.js";
import { EXIT, MemleakError } from "../base/errors.js";

export interface ReportExtras {
  set: SeriesSet;
  html?: string | undefined;
  commands?: Map<number, string[]>;
  /** Seconds: when the verdict so far became the final one and stayed. */
  settledAt?: number | undefined;
  /** Where and when the readings were taken (a recording's header); this machine, now, by default. */
  about?: ReportAbout | undefined;
}

export function report(doc: VerdictDocument, json: boolean, io: CommandIO, extras: ReportExtras): void {
  if (extras.html) writeHtml(extras.html, doc, extras);
  if (json) io.stdout(jsonText(doc) + "\n");
  else io.stdout(renderVerdict(doc, io.color, extras.set, Math.max(60, io.columns ?? 80), io.ascii));
  // The one line a CI log reader needs, on stderr so --json stdout stays one document.
  for (const g of doc.gates ?? []) {
    if (g.result === "fail") io.stderr(`memleak: gate ${g.name} failed: ${safeText(g.message)}\n`);
    if (g.result === "inconclusive") {
      io.stderr(
        `memleak: warning: gate ${g.name} inconclusive: ${safeText(g.message)}; ${g.passed ? "not failing the step (--strict would)" : "failing the step (--strict)"}\n`,
      );
    }
  }
  if (io.env.GITHUB_ACTIONS === "true") {
    // The runner reads workflow commands from stderr too: with --json, stdout carries the document and nothing else.
    const notes = annotations(doc, io.env.GITHUB_WORKSPACE);
    if (json) io.stderr(notes);
    else io.stdout(notes);
    appendStepSummary(io, () => stepSummary(doc) + testsStepSummary(doc) + nativeStepSummary(doc));
  }
}

/** On GitHub Actions, markdown appended to $GITHUB_STEP_SUMMARY (written only when there is one); a failure is one warning. */
export function appendStepSummary(io: CommandIO, text: () => string): void {
  const file = io.env.GITHUB_ACTIONS === "true" ? io.env.GITHUB_STEP_SUMMARY : undefined;
  if (!file) return;
  try {
    appendFileSync(file, text());
  } catch (err) {
    io.stderr(`memleak: cannot append to GITHUB_STEP_SUMMARY (${(err as Error).message})\n`);
  }
}

/** The page written to --html's path; a path that cannot be written is a usage error (exit 2), as it was checked. */
export function writeHtmlFile(path: string, render: () => string): void {
  try {
    writeFileSync(path, render());
  } catch (err) {
    throw new MemleakError(`cannot write the HTML report ${path}: ${(err as Error).message}`, EXIT.usage);
  }
}

/**
 * The document as JSON, with DEL and the C1 controls (U+007F–U+009F) escaped as well: JSON.stringify escapes only
 * U+0000–U+001F, and a name from the target holding U+009B (CSI) would reach a terminal that shows the output raw.
 */
export function jsonText(doc: object): string {
  return JSON.stringify(doc).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function writeHtml(path: string, doc: VerdictDocument, extras: ReportExtras): void {
  writeHtmlFile(path, () => {
    const meta = {
      ...(extras.commands && { commands: extras.commands }),
      ...(extras.settledAt !== undefined && { settledAt: extras.settledAt }),
      about: extras.about ?? { hostname: hostname(), kernel: release() },
    };
    return renderHtml(doc, extras.set, meta);
  });
}
