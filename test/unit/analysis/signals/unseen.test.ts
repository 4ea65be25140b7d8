/**
 * Boundaries of what a finding says when the agent did not see inside the process (signals/unseen.ts): a flat
 * process big enough to hide retention (≥ 64 MiB of anon) is stable at most 0.5 sure, and says why; a smaller one
 * keeps its confidence; a leak always says retention was not ruled out.
 */
import { describe, expect, it } from "vitest";
import { alone, flat, judge, linear, MB, processFinding } from "./judge.js";

describe("without the agent", () => {
  it.each([
    ["a flat 60 MiB process: too small for retention to matter", 60 * MB, 0.72, false],
    ["a flat 70 MiB process: could be hiding retention", 70 * MB, 0.5, true],
  ] as [string, number, number, boolean][])("%s", (_name, level, confidence, caveat) => {
    const f = processFinding(judge(alone({ anon: flat(level) })), 100);
    expect(f.kind).toBe("stable");
    expect(f.confidence).toBe(confidence);
    expect(
      f.caveats.some((c) =>
        c.startsWith("allocator retention not ruled out: without the agent (no agent in this session)"),
      ),
    ).toBe(caveat);
    expect(f.evidence.agent).toBe(caveat ? "missing" : undefined);
  });

  it("a small leak still says retention was not ruled out", () => {
    const f = processFinding(judge(alone({ anon: linear(30 * MB, 0.2 * MB) })), 100);
    expect(f.kind).toBe("leak");
    expect(f.caveats[0]).toMatch(
      /^allocator retention not ruled out: without the agent \(no agent in this session\), memleak cannot tell freed-but-kept memory from live memory — [\d.]+ MiB of anonymous memory could be either$/,
    );
    expect(f.advice).toMatch(/\n\n/);
  });
});
