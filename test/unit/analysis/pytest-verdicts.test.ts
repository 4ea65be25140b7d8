/**
 * The pytest plugin's marks → the document's tests and the test-limits gate: starts paired with their ends per
 * process, a start with no end read as the test the interpreter died in, and the gate absent without limits.
 */
import { describe, expect, it } from "vitest";
import { crashedTest, testResults } from "../../../src/analysis/pytest-verdicts.js";
import { testLimitsGate } from "../../../src/gates/pytest-limits.js";
import { parseAgentMessage } from "../../../src/agent/messages.js";
import type { TestMark, TestResult } from "../../../src/agent/pytest-results.js";

const T0 = 1_700_000_000_000; // ms, the first sample
const start = (nodeid: string, t: number, pid = 10): TestMark => ({
  type: "test-start",
  pid,
  t: T0 / 1000 + t,
  nodeid,
});
const end = (nodeid: string, t: number, extra: Partial<TestMark> = {}, pid = 10): TestMark =>
  ({
    type: "test-end",
    pid,
    t: T0 / 1000 + t,
    nodeid,
    calls: 1,
    warmupCalls: 0,
    kind: "stable",
    result: "pass",
    ...extra,
  }) as TestMark;

describe("testResults", () => {
  it("no marks and no first sample: no tests", () => expect(testResults([], undefined)).toEqual([]));

  it("a crashed test and an end that says nothing measured: insufficient data, crashed or unmeasured", () => {
    const bare = { type: "test-end", pid: 10, t: T0 / 1000 + 2, nodeid: "a.py::t2" } as TestMark;
    const tests = testResults([start("a.py::t1", 1), start("a.py::t2", 1.5, 10), bare], T0);
    expect(tests).toEqual([
      { nodeid: "a.py::t1", pid: 10, start: 1, calls: 0, warmupCalls: 0, kind: "insufficient-data", result: "crashed" },
      {
        nodeid: "a.py::t2",
        pid: 10,
        start: 1.5,
        end: 2,
        calls: 0,
        warmupCalls: 0,
        kind: "insufficient-data",
        result: "unmeasured",
      },
    ]);
  });

  it("pairs each start with its end, in seconds since the first sample", () => {
    const tests = testResults(
      [
        start("a.py::t1", 1),
        end("a.py::t1", 1.5, { kind: "leak", growthBytes: 2048 }),
        start("a.py::t2", 2),
        end("a.py::t2", 2.25),
      ],
      T0,
    );
    expect(tests).toEqual([
      {
        nodeid: "a.py::t1",
        pid: 10,
        start: 1,
        end: 1.5,
        calls: 1,
        warmupCalls: 0,
        kind: "leak",
        result: "pass",
        growthBytes: 2048,
      },
      { nodeid: "a.py::t2", pid: 10, start: 2, end: 2.25, calls: 1, warmupCalls: 0, kind: "stable", result: "pass" },
    ]);
  });

  it("a start with no end is the test the interpreter died in; an end with no start is left out", () => {
    const tests = testResults(
      [end("a.py::orphan", 0.5), start("a.py::ok", 1), end("a.py::ok", 2), start("a.py::abort", 3)],
      T0,
    );
    expect(tests.map((t) => [t.nodeid, t.result, t.end])).toEqual([
      ["a.py::ok", "pass", 2],
      ["a.py::abort", "crashed", undefined],
    ]);
    expect(crashedTest(tests)?.nodeid).toBe("a.py::abort");
  });

  it("keeps two processes' tests apart (the same id in each)", () => {
    const tests = testResults(
      [start("a.py::t", 1, 10), start("a.py::t", 1.1, 11), end("a.py::t", 2, {}, 11), end("a.py::t", 3, {}, 10)],
      T0,
    );
    expect(tests.map((t) => [t.pid, t.end])).toEqual([
      [10, 3],
      [11, 2],
    ]);
  });

  it("an end that says nothing measured (a doctest) is unmeasured, not a pass", () => {
    const bare: TestMark = { type: "test-end", pid: 10, t: T0 / 1000 + 2, nodeid: "doc.txt::doc" };
    expect(testResults([start("doc.txt::doc", 1), bare], T0)[0]).toMatchObject({ result: "unmeasured", calls: 0 });
  });
});

describe("testLimitsGate", () => {
  const test = (
    nodeid: string,
    result: TestResult["result"],
    limit?: TestResult["limit"],
    message?: string,
  ): TestResult => ({
    nodeid,
    pid: 1,
    start: 0,
    calls: 1,
    warmupCalls: 0,
    kind: "insufficient-data",
    result,
    ...(limit && { limit }),
    ...(message && { message }),
  });

  it("is absent when no test had a limit, passes when every limited test did", () => {
    expect(testLimitsGate([test("a", "pass")])).toBeUndefined();
    expect(testLimitsGate([test("a", "pass", { maxGrowth: 1 }), test("b", "pass")])).toEqual({
      name: "test-limits",
      result: "pass",
      passed: true,
      message: "1 test within its memory limit",
    });
  });

  it("fails naming the tests over their limits, three at most", () => {
    const over = ["a", "b", "c", "d"].map((n) =>
      test(n, "fail", { maxGrowth: 1024 }, `grew +2.00 KiB, over its max_growth of +1.00 KiB`),
    );
    const gate = testLimitsGate([...over, test("e", "pass", { maxGrowth: 1024 })])!;
    expect(gate).toMatchObject({ result: "fail", passed: false });
    expect(gate.message).toBe(
      "4 tests over their memory limit: a (grew +2.00 KiB, over its max_growth of +1.00 KiB); b (grew +2.00 KiB, over its max_growth of +1.00 KiB); c (grew +2.00 KiB, over its max_growth of +1.00 KiB) and 1 more",
    );
  });
});

describe("the plugin's messages", () => {
  const line = (o: Record<string, unknown>) => parseAgentMessage(JSON.stringify({ pid: 5, t: 1, ...o }));

  it("keeps the fields of the right shape and drops the rest", () => {
    const m = line({
      type: "test-end",
      nodeid: "a.py::t",
      calls: 7,
      warmupCalls: 2,
      kind: "leak",
      result: "fail",
      growth: { allocatedBlocks: 3, rssAnon: 4096, mallocInUse: 8192 },
      perCall: { rssAnon: 1 },
      limit: { maxGrowth: 10, extra: 1 },
      message: "over",
      growthBytes: "lots",
    });
    expect(m).toEqual({
      type: "test-end",
      pid: 5,
      t: 1,
      nodeid: "a.py::t",
      calls: 7,
      warmupCalls: 2,
      kind: "leak",
      result: "fail",
      growth: { allocatedBlocks: 3, rssAnon: 4096, mallocInUse: 8192 },
      limit: { maxGrowth: 10 },
      message: "over",
    });
    expect(line({ type: "test-end", nodeid: "a.py::t", kind: "memory-goblin", result: "maybe", calls: -1 })).toEqual({
      type: "test-end",
      pid: 5,
      t: 1,
      nodeid: "a.py::t",
    });
  });

  it("is not a test mark without a test id, or with one longer than 500 characters", () => {
    expect(line({ type: "test-start" })).toBeUndefined();
    expect(line({ type: "test-start", nodeid: "" })).toBeUndefined();
    expect(line({ type: "test-start", nodeid: "x".repeat(501) })).toBeUndefined();
    expect(line({ type: "test-start", nodeid: "x".repeat(500) })).toMatchObject({ type: "test-start" });
  });
});
