/**
 * The HTML report's part of the pytest plugin's results: a table of the tests by growth (every test with one, up to
 * MAX_HTML_TESTS), and the test boundaries the charts draw on the timeline. Test ids come from the user's suite:
 * they reach the page escaped, or as JSON data the client puts on the canvas.
 */
import { signedBytes } from "../../base/units.js";
import type { VerdictDocument } from "../../analysis/types.js";
import type { TestResult } from "../../agent/pytest-results.js";
import { kindWord, limitWord, perCallText, repeatsText, testHolderText, testsCensus } from "../pytest/rows.js";
import { escapeHtml as h } from "./escape.js";

export const MAX_HTML_TESTS = 200;
/** Boundaries drawn on each chart: beyond this many, a chart is all lines. */
export const MAX_DRAWN_TESTS = 400;

/** What a chart draws of a test: where it ran, and whether to shade it (it grew, failed or crashed). */
export interface ChartTest {
  start: number;
  end?: number;
  label: string;
  kind: string;
  shaded: boolean;
}

/** "test_growth.py::test_leaks_per_call" → "test_leaks_per_call": the name fits on a chart, the path does not. */
const shortName = (nodeid: string) => nodeid.slice(nodeid.lastIndexOf("::") + 2) || nodeid;

export function chartTests(tests: readonly TestResult[] | undefined): ChartTest[] | undefined {
  if (!tests?.length) return undefined;
  return tests.slice(0, MAX_DRAWN_TESTS).map((t) => ({
    start: t.start,
    ...(t.end !== undefined && { end: t.end }),
    label: shortName(t.nodeid),
    kind: t.result === "crashed" ? "crashed" : t.kind,
    shaded:
      t.kind === "leak" ||
      t.kind === "one-off" ||
      t.kind === "fragmentation" ||
      t.result === "fail" ||
      t.result === "crashed",
  }));
}

const byGrowth = (a: TestResult, b: TestResult) => (b.growthBytes ?? -Infinity) - (a.growthBytes ?? -Infinity);

export function testsSection(doc: VerdictDocument): string {
  const tests = doc.tests;
  if (!tests?.length) return "";
  const sorted = [...tests].sort(byGrowth);
  const rows = sorted.slice(0, MAX_HTML_TESTS).map((t) => {
    const cls = t.result === "fail" || t.result === "crashed" ? "fail" : t.kind === "leak" ? "leak" : "";
    const holder = testHolderText(t);
    return `<tr class="${cls}"><td><code>${h(t.nodeid)}</code>${holder ? `<br><span class="note">${h(holder)}</span>` : ""}</td><td>${h(kindWord(t))}</td><td>${h(signedBytes(t.growthBytes))}</td><td>${h(perCallText(t))}</td><td>${h(signedBytes(t.growth?.mallocInUse))}</td><td>${h(t.growth ? `${t.growth.allocatedBlocks > 0 ? "+" : ""}${t.growth.allocatedBlocks}` : "–")}</td><td>${h(signedBytes(t.growth?.rssAnon))}</td><td>${h(t.calls)}</td><td>${h(limitWord(t))}</td></tr>`;
  });
  const more =
    tests.length > MAX_HTML_TESTS
      ? `<p>… and ${h(tests.length - MAX_HTML_TESTS)} more (the JSON document lists every test).</p>`
      : "";
  const repeats = repeatsText(tests);
  return `<section class="tests" id="tests"><h2>Tests by growth</h2><p>${h(testsCensus(tests))}${repeats ? `; ${h(repeats)}` : ""}.</p>
<table><thead><tr><th>test</th><th>kind</th><th>growth</th><th>per call</th><th>malloc</th><th>blocks</th><th>RSS anon</th><th>calls</th><th>limit</th></tr></thead><tbody>${rows.join("")}</tbody></table>${more}</section>`;
}
