/** run --trace-native's stacks in the step summary and the HTML section: one table row per stack, text made inert. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../../../src/analysis/types.js";
import type { NativeTrace } from "../../../../src/native/native-trace.js";
import { parseHeaptrackLeaks } from "../../../../src/native/heaptrack-leaks.js";
import { claimLeaks } from "../../../../src/native/leak-sites.js";
import { nativeStepSummary } from "../../../../src/report/native/summary.js";
import { nativeSection } from "../../../../src/report/html/native-section.js";
import { FIXTURES } from "../../../helpers/fixtures.js";

const leaks = parseHeaptrackLeaks(readFileSync(`${FIXTURES}heaptrack/leaks.c-extension.txt`, "utf8"));
const trace: NativeTrace = {
  tool: "heaptrack 1.4.0",
  processes: 1,
  stacks: claimLeaks({ pid: 10867, command: leaks.command!, atExit: leaks.blocks, atCut: [] }),
  neverFreedBytes: 20_070_000,
  runtimeBytes: 411_250,
  problems: [],
};
const doc = (t: NativeTrace | undefined) => ({ nativeTrace: t }) as unknown as VerdictDocument;

describe("step summary", () => {
  it("has a row per stack naming the site, and says the run was traced", () => {
    const md = nativeStepSummary(doc(trace));
    expect(md).toContain("#### Native stacks that leaked (heaptrack)");
    expect(md).toContain(
      "| leaky_fn (leaky.c:6, leaky.cpython-311-x86_64-linux-gnu.so) | 18.7 MiB allocated after warm-up and never freed, over 300 calls, PID 10867 | leaky_fn (leaky.c:6, leaky.cpython-311-x86_64-linux-gnu.so) ← _PyEval_EvalFrameDefault (ceval.c:5020, libpython3.11.so.1.0) ← _PyEval_EvalFrame (pycore_ceval.h:73, libpython3.11.so.1.0) |",
    );
    expect(md).toMatch(/_traced with heaptrack 1\.4\.0 \(--trace-native\): 1 process/);
    expect(nativeStepSummary(doc(undefined))).toBe("");
  });

  it("says when nothing was claimed, and keeps a hostile function name from breaking the table", () => {
    expect(nativeStepSummary(doc({ ...trace, stacks: [] }))).toContain("no C/C++ stack kept leaking after warm-up");
    const hostile = {
      ...trace.stacks[0]!,
      site: { function: "f|<img src=x>`" },
      frames: [{ function: "f|<img src=x>`" }],
    };
    const md = nativeStepSummary(doc({ ...trace, stacks: [hostile] }));
    expect(md).not.toContain("<img");
    expect(md).toContain("f\\|&lt;img src=x&gt;&#96;");
  });
});

describe("HTML section", () => {
  it("lists each stack's frames and escapes them", () => {
    const html = nativeSection({
      ...trace,
      stacks: [
        trace.stacks[0]!,
        { ...trace.stacks[0]!, site: { function: "<script>" }, frames: [{ function: "<script>" }] },
      ],
    });
    expect(html).toContain("<h2>Native stacks that leaked</h2>");
    expect(html).toContain("<li><code>leaky_fn (leaky.c:6, leaky.cpython-311-x86_64-linux-gnu.so)</code></li>");
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain("<script>");
    expect(nativeSection(undefined)).toBe("");
  });
});
