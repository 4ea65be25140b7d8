/**
 * Which of the pytest plugin's tests the reports show, in which order, and the words for them: shared by the terminal
 * table, the step summary and the HTML, so that all three name the same tests the same way.
 */
import type { TestKind, TestResult } from "../../agent/pytest-results.js";
import { signedBytes } from "../../base/units.js";

/** Most serious first: a leak before retention, retention before a cache filled once. */
const KIND_ORDER: Record<TestKind, number> = {
  leak: 0,
  fragmentation: 1,
  "one-off": 2,
  "insufficient-data": 3,
  stable: 4,
};
const RESULT_ORDER = { crashed: 0, fail: 1, error: 2, pass: 3, unmeasured: 4 } as const;

/** Tests worth a row: what grew, what failed its limit, and what crashed. Stable tests that passed are counted only. */
export function notableTests(tests: readonly TestResult[]): TestResult[] {
  // A test that errored, skipped or was not measured says nothing of memory (its kind is insufficient-data).
  const shown = (t: TestResult) =>
    t.result === "fail" || t.result === "crashed" || (t.result === "pass" && t.kind !== "stable");
  return tests
    .filter(shown)
    .sort(
      (a, b) =>
        RESULT_ORDER[a.result] - RESULT_ORDER[b.result] ||
        KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
        (b.growthBytes ?? 0) - (a.growthBytes ?? 0),
    );
}

/** The word in a table's kind column: "grew" for growth in one call, which a repeat would classify. */
export function kindWord(t: TestResult): string {
  if (t.result === "crashed") return "crashed";
  return t.kind === "insufficient-data" ? "grew once" : t.kind;
}

/** The limit column: pass, FAIL, or – when the test had no limit. */
export function limitWord(t: TestResult): string {
  if (t.result === "fail") return "FAIL";
  return t.limit ? "pass" : "–";
}

/** "held by app.CACHE (dict of str, 300 items)", for a leaking test whose holder the plugin looked for. */
export function testHolderText(t: TestResult): string | undefined {
  const h = t.holder;
  if (!h) return undefined;
  const what = `${h.container}, ${Math.round(h.length).toLocaleString("en-US")} items`;
  return h.found
    ? `held by ${h.path} (${what})`
    : `holder not found (${what}): ${h.why ?? "no root within the search's bounds"}`;
}

/** Per call: only a leak has one worth stating; otherwise the mean says little. */
export function perCallText(t: TestResult): string {
  return t.kind === "leak" ? `${signedBytes(t.perCallBytes)}` : "–";
}

/** "10 tests: 1 leak, 1 one-off, 8 stable" */
export function testsCensus(tests: readonly TestResult[]): string {
  const counts = new Map<string, number>();
  for (const t of tests) counts.set(kindWord(t), (counts.get(kindWord(t)) ?? 0) + 1);
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`);
  return `${tests.length} test${tests.length === 1 ? "" : "s"}: ${parts.join(", ")}`;
}

/** "after 2 warm-up calls, 5 measured" for the heading, from the first measured test. */
export function repeatsText(tests: readonly TestResult[]): string {
  const t = tests.find((x) => x.calls > 0 && x.result !== "error");
  if (!t) return "";
  const measured = t.calls - t.warmupCalls;
  if (t.warmupCalls === 0) return `${t.calls} call${t.calls === 1 ? "" : "s"} each`;
  return `${measured} measured call${measured === 1 ? "" : "s"} after ${t.warmupCalls} warm-up`;
}
