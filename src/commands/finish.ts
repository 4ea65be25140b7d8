/**
 * What run and watch do with a finished analysis: print it (text or JSON), tell GitHub Actions, and work out the
 * exit code from the gates.
 */
import { appendFileSync } from "node:fs";
import type { VerdictDocument } from "../analysis/types.js";
import { annotations, stepSummary } from "../report/github.js";
import { renderVerdict } from "../report/verdict-text.js";
import { EXIT, type CommandIO, type ExitCode } from "./io.js";

export function report(doc: VerdictDocument, json: boolean, io: CommandIO): void {
  if (json) io.stdout(JSON.stringify(doc) + "\n");
  else io.stdout(renderVerdict(doc, io.color));
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

export function gatesExitCode(doc: VerdictDocument): ExitCode {
  return (doc.gates ?? []).some((g) => !g.passed) ? EXIT.gateFailed : EXIT.ok;
}
