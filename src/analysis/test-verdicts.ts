/**
 * The pytest plugin's marks → the verdict document's `tests`, and the gate their limits make. Pure: the session
 * (live) and analyze (from a recording) hand in the same marks. The plugin has judged each test itself (it alone
 * could call malloc_trim between two tests); what is decided here is what the marks alone tell: a test that started
 * and never ended was running when its interpreter died.
 */
import type { TestMark, TestResult } from "../test-results.js";
import type { VerdictDocument } from "./types.js";
import { formatBytes } from "../units.js";

type Gate = NonNullable<VerdictDocument["gates"]>[number];

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * @param t0 the first sample's time, ms since the epoch: starts and ends become seconds since it, as every time in
 *        the document is
 */
export function testResults(marks: readonly TestMark[], t0: number | undefined): TestResult[] {
  const origin = t0 ?? marks[0]?.t ?? 0;
  const since = (tSeconds: number) => round3(Math.max(0, tSeconds - origin / 1000));
  const out: TestResult[] = [];
  /** pid → nodeid → the entry of the test running there (one at a time per process). */
  const open = new Map<string, TestResult>();
  for (const m of marks) {
    const key = `${m.pid}\0${m.nodeid}`;
    if (m.type === "test-start") {
      const entry: TestResult = { nodeid: m.nodeid, pid: m.pid, start: since(m.t), calls: 0, warmupCalls: 0, kind: "insufficient-data", result: "crashed" };
      open.set(key, entry);
      out.push(entry);
      continue;
    }
    const entry = open.get(key);
    if (!entry) continue; // an end without its start (a recording cut at the front): nothing to place it by
    open.delete(key);
    const { type: _type, pid: _pid, t, nodeid: _nodeid, ...measured } = m;
    Object.assign(entry, { calls: 0, warmupCalls: 0, kind: "insufficient-data", result: "unmeasured" }, measured, { end: since(t) });
  }
  return out;
}

/** The test that was running when its interpreter died, if any: a start with no end. */
export function crashedTest(tests: readonly TestResult[]): TestResult | undefined {
  return tests.find((t) => t.result === "crashed");
}

/**
 * One gate for every per-test limit: it fails when a test passed its limit (the plugin failed that test too), and is
 * absent when no test had a limit.
 */
export function testLimitsGate(tests: readonly TestResult[]): Gate | undefined {
  const limited = tests.filter((t) => t.limit);
  if (limited.length === 0) return undefined;
  const over = limited.filter((t) => t.result === "fail");
  if (over.length === 0) {
    return { name: "test-limits", result: "pass", passed: true, message: limited.length === 1 ? "1 test within its memory limit" : `${limited.length} tests within their memory limits` };
  }
  const named = over.slice(0, 3).map((t) => `${t.nodeid} (${t.message ?? `grew ${formatBytes(t.growthBytes)}`})`);
  const more = over.length > 3 ? ` and ${over.length - 3} more` : "";
  return { name: "test-limits", result: "fail", passed: false, message: `${over.length} test${over.length === 1 ? "" : "s"} over ${over.length === 1 ? "its" : "their"} memory limit: ${named.join("; ")}${more}` };
}
