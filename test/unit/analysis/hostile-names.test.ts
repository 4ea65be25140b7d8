/**
 * A process name is the target's to choose (prctl PR_SET_NAME), and a recording analyzed in CI may come from anyone:
 * with no command line to go by, the name must reach the summaries with its control characters shown escaped — a raw
 * ESC would repaint the terminal, a newline would start a workflow command of its own under GitHub Actions.
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../../src/report/verdict.js";
import { buildSeries } from "../../../src/series/series.js";
import { report } from "../../../src/session/finish.js";
import { fakeIO } from "../../helpers/command-io.js";
import { MB, synthesize } from "../../helpers/synthetic-samples.js";

describe("a hostile process name", () => {
  const samples = synthesize({
    seconds: 60,
    processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 0.1 * MB } }],
  });
  for (const s of samples) for (const p of s.processes) p.comm = "ev\u001b[2Jil\n::error::pwned";
  const set = buildSeries(samples);
  const doc = classify({ set, options: {}, target: { pid: 100 } }); // no command lines: the name is all there is

  it("is escaped in every summary", () => {
    expect(doc.verdict.kind).toBe("leak");
    for (const f of doc.findings) expect(f.summary).not.toMatch(/[\u0000-\u001f]/);
    expect(doc.verdict.summary).toContain("ev\\x1b[2Jil\\x0a::error::pwned");
  });

  it("cannot start a line of its own on stderr, in the text report or in GitHub's output", () => {
    const err: string[] = [];
    const out: string[] = [];
    doc.gates = [
      { name: "fail-on", result: "fail", passed: false, message: `leak found: ${doc.verdict.summary}\n::error::raw` },
    ];
    report(
      doc,
      false,
      fakeIO({ stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env: { GITHUB_ACTIONS: "true" } }),
      { set },
    );
    const lines = [...err, ...out].join("").split("\n");
    // One annotation, the gate's: the name's escapes and newline and the message's "::error::" are inside it.
    expect(lines.filter((l) => l.startsWith("::"))).toEqual([
      expect.stringMatching(
        /^::error title=memleak fail-on::leak found: PID 100 \(ev\\x1b\[2Jil\\x0a::error::pwned\) .*%0A::error::raw$/,
      ),
    ]);
    expect(lines.join("\n")).not.toMatch(/\u001b/);
  });
});
