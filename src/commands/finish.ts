/**
 * What run and watch do with a finished analysis: print it (text or JSON), tell GitHub Actions, and work out the
 * exit code from the gates.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import type { SeriesSet } from "../analysis/series.js";
import type { VerdictDocument } from "../analysis/types.js";
import { renderHtml } from "../report/html/index.js";
import { annotations, stepSummary } from "../report/github.js";
import { renderVerdict } from "../report/verdict-text.js";
import { EXIT, MemleakError, type CommandIO, type ExitCode } from "./io.js";

export interface ReportExtras {
  set: SeriesSet;
  html?: string | undefined;
  commands?: Map<number, string[]>;
  /** Seconds: when the verdict so far became the final one and stayed. */
  settledAt?: number | undefined;
}

export function report(doc: VerdictDocument, json: boolean, io: CommandIO, extras: ReportExtras): void {
  if (extras.html) writeHtml(extras.html, doc, extras, io);
  if (json) io.stdout(JSON.stringify(doc) + "\n");
  else io.stdout(renderVerdict(doc, io.color, extras.set, Math.max(60, io.columns ?? 80)));
  const failed = (doc.gates ?? []).filter((g) => !g.passed);
  // The one line a CI log reader needs, on stderr so --json stdout stays one document.
  for (const g of failed) io.stderr(`memleak: gate ${g.name} failed: ${g.message}\n`);
  if (io.env.GITHUB_ACTIONS === "true") {
    io.stdout(annotations(doc));
    const file = io.env.GITHUB_STEP_SUMMARY;
    if (file) {
      try {
        appendFileSync(file, stepSummary(doc));
      } catch (err) {
        io.stderr(`memleak: cannot append to GITHUB_STEP_SUMMARY (${(err as Error).message})\n`);
      }
    }
  }
}

function writeHtml(path: string, doc: VerdictDocument, extras: ReportExtras, io: CommandIO): void {
  try {
    const meta = { ...(extras.commands && { commands: extras.commands }), ...(extras.settledAt !== undefined && { settledAt: extras.settledAt }) };
    writeFileSync(path, renderHtml(doc, extras.set, meta));
  } catch (err) {
    throw new MemleakError(`cannot write the HTML report ${path}: ${(err as Error).message}`, EXIT.usage);
  }
}

export function gatesExitCode(doc: VerdictDocument): ExitCode {
  return (doc.gates ?? []).some((g) => !g.passed) ? EXIT.gateFailed : EXIT.ok;
}
