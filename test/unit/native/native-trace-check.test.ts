/** A recording's nativeTrace read back for analyze: kept when in shape, dropped whole when not. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nativeTraceFrom } from "../../../src/native/native-trace-check.js";
import { parseHeaptrackLeaks } from "../../../src/native/heaptrack-leaks.js";
import { claimLeaks } from "../../../src/native/leak-sites.js";
import type { NativeTrace } from "../../../src/native/native-trace.js";
import { FIXTURES } from "../../helpers/fixtures.js";

// The trace run would write for the captured C extension leak (fixtures/heaptrack/leaks.c-extension.txt).
const leaks = parseHeaptrackLeaks(readFileSync(`${FIXTURES}heaptrack/leaks.c-extension.txt`, "utf8"));
const trace: NativeTrace = {
  tool: "heaptrack 1.4.0",
  processes: 1,
  stacks: claimLeaks({ pid: 10867, command: leaks.command!, atExit: leaks.blocks, atCut: [] }),
  neverFreedBytes: leaks.totalLeaked!,
  runtimeBytes: 411_250,
  problems: [],
};
const through = (v: unknown) => nativeTraceFrom(JSON.parse(JSON.stringify(v)));

describe("nativeTraceFrom", () => {
  it("keeps a trace as run wrote it", () => {
    expect(trace.stacks).toHaveLength(1);
    expect(through(trace)).toEqual(trace);
    const ffi = { ...trace, stacks: [{ ...trace.stacks[0]!, viaFfi: true }] };
    expect(through(ffi)).toEqual(ffi);
  });

  it.each([
    ["not an object", () => "heaptrack"],
    ["stacks not a list", (t: any) => ({ ...t, stacks: {} })],
    ["a negative byte count", (t: any) => ({ ...t, stacks: [{ ...t.stacks[0], bytes: -1 }] })],
    ["a frame without a function", (t: any) => ({ ...t, stacks: [{ ...t.stacks[0], frames: [{ module: "x" }] }] })],
    ["a site that is a string", (t: any) => ({ ...t, stacks: [{ ...t.stacks[0], site: "leaky_fn" }] })],
    ["a line that is text", (t: any) => ({ ...t, stacks: [{ ...t.stacks[0], site: { function: "f", line: "6" } }] })],
    ["too many stacks", (t: any) => ({ ...t, stacks: Array(9).fill(t.stacks[0]) })],
    ["a problem that is not text", (t: any) => ({ ...t, problems: [1] })],
    [
      "a function name of 5,000 characters",
      (t: any) => ({ ...t, stacks: [{ ...t.stacks[0], site: { function: "f".repeat(5000) } }] }),
    ],
  ])("drops the whole trace for %s", (_, change) => {
    expect(through(change(trace))).toBeUndefined();
  });
});
