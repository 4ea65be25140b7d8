/**
 * Growth while the program imports is start-up, however late (signals/imports.ts): the trend is judged again from
 * the last burst of imports (≥ 20 modules in the window). Issue 27's case: `watch` attached 5 s into a PyTorch loop,
 * anon 42 → 101 MiB while 600 modules loaded, called a leak at 21 s.
 */
import { describe, expect, it } from "vitest";
import { alone, fill, judge, linear, MB, processFinding } from "./judge.js";

/** Modules: 130, then `perSecond` more a second from 2 s until `until`. */
const modules =
  (until: number, perSecond = 40) =>
  (t: number) => ({ py: { modules: 130 + perSecond * Math.max(0, Math.min(t, until) - 2), allocatedBlocks: 50_000 } });

describe("growth while importing", () => {
  it("a 20 s window in which anon rose only while 600 modules loaded → not enough data, saying it is still importing", () => {
    const f = processFinding(
      judge(alone({ anon: fill(40 * MB, 60 * MB, 17), agent: modules(17) }, 20), { warmup: 0, noCgroup: true }),
      100,
    );
    expect(f.kind).toBe("insufficient-data");
    expect(f.summary).toMatch(/still importing: \d+ modules loaded in the window/);
  });

  it("the same rise, but growing on at 1 MiB/s for a minute after the imports → leak", () => {
    expect(
      processFinding(
        judge(alone({ anon: linear(40 * MB, 1 * MB), agent: modules(17) }, 90), { warmup: 0, noCgroup: true }),
        100,
      ).kind,
    ).toBe("leak");
  });

  it("a leak with one lazily imported module late in the window (19 modules: no burst) → leak", () => {
    const lazy = (t: number) => ({ py: { modules: t < 80 ? 500 : 519, allocatedBlocks: 50_000 } });
    expect(
      processFinding(
        judge(alone({ anon: linear(40 * MB, 0.5 * MB), agent: lazy }, 90), { warmup: 0, noCgroup: true }),
        100,
      ).kind,
    ).toBe("leak");
  });

  it("a long window whose growth went on past a long import (imports until 125 s of 300, growth at one pace) keeps its trend", () => {
    expect(
      processFinding(
        judge(alone({ anon: linear(40 * MB, 0.2 * MB), agent: modules(125, 10) }, 300), { warmup: 0, noCgroup: true }),
        100,
      ).kind,
    ).toBe("leak");
  });
});

describe("a burst, not any import", () => {
  it("a few modules loaded 10 s after a framework's import do not move the cut: the leak after the import stays a leak", () => {
    // 600 modules from 2 s to 17 s, then 3 more at 36 s (the holder search's importlib.util); anon grows 1 MiB/s from 17 s
    const agent = (t: number) => ({
      py: { modules: 130 + 40 * Math.max(0, Math.min(t, 17) - 2) + (t >= 36 ? 3 : 0), allocatedBlocks: 50_000 },
    });
    const anon = { shape: { kind: "linear" as const, bytesPerSecond: 1 * MB }, baseline: 40 * MB, noise: 0.2 * MB };
    expect(processFinding(judge(alone({ anon, agent }, 40), { warmup: 0, noCgroup: true }), 100).kind).toBe("leak");
  });
});
