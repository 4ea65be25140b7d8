/**
 * The gate the pytest plugin's per-test limits make, beside the other gates (gates/gates.ts): the plugin has already failed
 * each test over its limit in pytest's own output; this is the step's verdict on them, worded for the CI log.
 */
import type { TestResult } from "../agent/pytest-results.js";
import type { VerdictDocument } from "../analysis/types.js";
import { formatBytes } from "../base/units.js";

type Gate = NonNullable<VerdictDocument["gates"]>[number];

/**
 * One gate for every per-test limit: it fails when a test passed its limit (the plugin failed that test too), and is
 * absent when no test had a limit.
 */
export function testLimitsGate(tests: readonly TestResult[]): Gate | undefined {
  const limited = tests.filter((t) => t.limit);
  if (limited.length === 0) return undefined;
  const over = limited.filter((t) => t.result === "fail");
  if (over.length === 0) {
    return {
      name: "test-limits",
      result: "pass",
      passed: true,
      message:
        limited.length === 1 ? "1 test within its memory limit" : `${limited.length} tests within their memory limits`,
    };
  }
  const named = over.slice(0, 3).map((t) => `${t.nodeid} (${t.message ?? `grew ${formatBytes(t.growthBytes)}`})`);
  const more = over.length > 3 ? ` and ${over.length - 3} more` : "";
  return {
    name: "test-limits",
    result: "fail",
    passed: false,
    message: `${over.length} test${over.length === 1 ? "" : "s"} over ${over.length === 1 ? "its" : "their"} memory limit: ${named.join("; ")}${more}`,
  };
}
