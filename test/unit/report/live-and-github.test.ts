import { describe, expect, it } from "vitest";
import { LiveRegion } from "../../../src/report/live-region.js";
import { annotations, escapeData, stepSummary } from "../../../src/report/github.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";

describe("live region", () => {
  it("prints the command's output above the block and redraws the block below it", () => {
    const out: string[] = [];
    const r = new LiveRegion({ stdout: (s) => out.push(`OUT:${s}`), stderr: (s) => out.push(`ERR:${s}`) });
    r.update("line1\nline2");
    r.passthrough("stdout", "hello ");
    expect(out).toEqual(["ERR:line1\nline2\n"]); // a partial line is held back
    r.passthrough("stdout", "world\n");
    expect(out.slice(1)).toEqual(["ERR:\x1b[2F\x1b[J", "OUT:hello world\n", "ERR:line1\nline2\n"]);
    r.passthrough("stderr", "tail without newline");
    r.clear();
    expect(out.slice(-2)).toEqual(["ERR:\x1b[2F\x1b[J", "ERR:tail without newline\n"]);
  });
});

describe("GitHub Actions output", () => {
  const doc = {
    schema: "memleak.verdict/1",
    verdict: { kind: "leak", confidence: 0.9, subject: { type: "tree", processes: 2 }, metric: "pss", summary: "grows | 100%\nfast", evidence: {}, advice: "do x", caveats: [] },
    findings: [],
    target: { pid: 1, command: ["python", "a|b.py"] },
    window: { start: 0, end: 10, warmup: 0, samples: 10, interval: 1 },
    gates: [{ name: "max-growth", result: "fail", passed: false, message: "tree grew 60% of\nlimit" }],
  } as unknown as VerdictDocument;

  it("escapes %, CR and LF in workflow commands", () => {
    expect(escapeData("a%b\r\nc")).toBe("a%25b%0D%0Ac");
    expect(annotations(doc)).toBe("::error title=memleak max-growth::tree grew 60% of%0Alimit\n".replace("60%", "60%25"));
  });

  it("the step summary keeps table cells on one line and escapes pipes", () => {
    const md = stepSummary(doc);
    expect(md).toContain("### memleak: leak — `python a\\|b.py`");
    expect(md).toContain("| max-growth | **FAIL** | tree grew 60% of limit |");
  });
});
