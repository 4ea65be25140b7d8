/**
 * The GitHub step summary's part of the pytest plugin's results: the tests that grew, failed their limit or crashed,
 * as a markdown table (the first MAX_SUMMARY_TESTS), appended after the run's summary.
 */
import { signedBytes } from "../../base/units.js";
import type { VerdictDocument } from "../../analysis/types.js";
import { markdownText } from "../github.js";
import { kindWord, limitWord, notableTests, perCallText, repeatsText, testHolderText, testsCensus } from "./rows.js";

export const MAX_SUMMARY_TESTS = 50;

export function testsStepSummary(doc: VerdictDocument): string {
  const tests = doc.tests;
  if (!tests?.length) return "";
  const rows = notableTests(tests);
  const repeats = repeatsText(tests);
  const out = ["", `#### Tests (${testsCensus(tests)}${repeats ? `; ${repeats}` : ""})`];
  if (rows.length > 0) {
    out.push("", "| test | kind | growth | per call | calls | limit |", "| --- | --- | --- | --- | --- | --- |");
    for (const t of rows.slice(0, MAX_SUMMARY_TESTS)) {
      const limit = limitWord(t);
      const holder = testHolderText(t);
      out.push(
        `| <code>${markdownText(t.nodeid, 200)}</code>${holder ? `<br>${markdownText(holder, 300)}` : ""} | ${t.kind === "leak" || t.result === "crashed" ? `**${kindWord(t)}**` : kindWord(t)} | ${signedBytes(t.growthBytes)} | ${perCallText(t)} | ${t.calls} | ${limit === "FAIL" ? "**FAIL**" : limit} |`,
      );
    }
    if (rows.length > MAX_SUMMARY_TESTS)
      out.push("", `… and ${rows.length - MAX_SUMMARY_TESTS} more (the JSON document lists every test).`);
  }
  return out.join("\n") + "\n";
}
