/**
 * The pytest plugin's marks → the verdict document's `tests` (the gate their limits make is gates/pytest-limits.ts). Pure: the session
 * (live) and analyze (from a recording) hand in the same marks. The plugin has judged each test itself (it alone
 * could call malloc_trim between two tests); what is decided here is what the marks alone tell: a test that started
 * and never ended was running when its interpreter died.
 */
import type { TestMark, TestResult } from "../agent/pytest-results.js";

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
      const entry: TestResult = {
        nodeid: m.nodeid,
        pid: m.pid,
        start: since(m.t),
        calls: 0,
        warmupCalls: 0,
        kind: "insufficient-data",
        result: "crashed",
      };
      open.set(key, entry);
      out.push(entry);
      continue;
    }
    const entry = open.get(key);
    if (!entry) continue; // an end without its start (a recording cut at the front): nothing to place it by
    open.delete(key);
    const { type: _type, pid: _pid, t, nodeid: _nodeid, ...measured } = m;
    Object.assign(entry, { calls: 0, warmupCalls: 0, kind: "insufficient-data", result: "unmeasured" }, measured, {
      end: since(t),
    });
  }
  return out;
}

/** The test that was running when its interpreter died, if any: a start with no end. */
export function crashedTest(tests: readonly TestResult[]): TestResult | undefined {
  return tests.find((t) => t.result === "crashed");
}
