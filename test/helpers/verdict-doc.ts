/** The verdict document a `--json` run printed, and what a failed expectation on it should show. */
import { expect } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";

/** The document on stdout; an empty stdout fails with memleak's stderr, which says why. */
export function verdictOf(stdout: string, stderr: string): VerdictDocument {
  expect(stdout, stderr).not.toBe("");
  return JSON.parse(stdout) as VerdictDocument;
}

/** Everything a failed expectation should show: each finding's kind, summary, holder, notes and what is beside it. */
export const shownFindings = (doc: VerdictDocument) =>
  JSON.stringify(
    doc.findings.map((f) => [f.kind, f.summary, f.holder, f.caveats, f.alsoFound?.map((x) => x.kind)]),
    null,
    1,
  );
