/**
 * Boundaries of the leak-layer rule, signals/layer.ts: which layer a leak grows in, from the agent's numbers.
 *   tracemalloc's sites account for ≥ 50% of the growth          → Python objects
 *   malloc's in-use bytes grew ≥ 25% of it, and ≥ small objects   → native heap (PyTorch CPU tensors when torch is in)
 *   allocated blocks × 512 B ≥ 25% of it                          → small Python objects (pymalloc)
 *   otherwise no layer is named
 */
import { describe, expect, it } from "vitest";
import type { AgentResults } from "../../../../src/analysis/context.js";
import { alone, judge, linear, MB, processFinding } from "./judge.js";

/** A 1 MiB/s leak over 300 s whose agent reports malloc in use and allocated blocks growing at the given shares. */
function leaking(o: { native?: number; blocks?: number; torch?: boolean } = {}) {
  return alone({
    anon: linear(200 * MB, 1 * MB),
    agent: (t) => ({
      malloc: { inUse: 50 * MB + (o.native ?? 0) * t * MB, free: 5 * MB, arenas: 1 },
      py: { allocatedBlocks: 100_000 + ((o.blocks ?? 0) * t * MB) / 512 },
      ...(o.torch && { torch: { threads: 2 } }),
    }),
  });
}

function traced(share: number): AgentResults {
  const sites = [{ file: "app.py", line: 12, size: 270 * share * MB, sizeDiff: 270 * share * MB, countDiff: 1000 }];
  return { traces: new Map([[100, { type: "trace", pid: 100, t: 299, sites, traced: 0, tracedPeak: 0 }]]), trims: new Map() };
}

const layerOf = (...[sc, options]: Parameters<typeof judge>) => {
  const f = processFinding(judge(sc, { warmup: 0, ...options }), 100);
  expect(f.kind).toBe("leak");
  return f;
};

describe("leak layer boundaries", () => {
  it.each([
    ["malloc's in-use bytes grow by 20% of the growth", { native: 0.2 }, undefined],
    ["malloc's in-use bytes grow by 30% of the growth", { native: 0.3 }, "native heap (malloc)"],
    ["… with PyTorch loaded", { native: 0.3, torch: true }, "native heap (malloc: PyTorch CPU tensors)"],
    ["small objects: blocks × 512 B grow by 20% of the growth", { blocks: 0.2 }, undefined],
    ["small objects: blocks × 512 B grow by 30% of the growth", { blocks: 0.3 }, "small Python objects (pymalloc)"],
    ["malloc 40%, small objects 50%: the larger wins", { native: 0.4, blocks: 0.5 }, "small Python objects (pymalloc)"],
    ["malloc 50%, small objects 40%", { native: 0.5, blocks: 0.4 }, "native heap (malloc)"],
  ] as [string, Parameters<typeof leaking>[0], string | undefined][])("%s → %s", (_name, o, layer) => {
    expect(layerOf(leaking(o)).evidence.layer).toBe(layer);
  });

  it.each([
    [0.45, "native heap (malloc)"],
    [0.55, "Python objects (tracemalloc sees the growth)"],
  ])("tracemalloc's sites hold %d of the growth → %s", (share, layer) => {
    expect(layerOf(leaking({ native: 0.5 }), { agentResults: traced(share) }).evidence.layer).toBe(layer);
  });

  it("says how much of the growth malloc's in-use bytes explain, and that the rest is held free or outside malloc", () => {
    const partly = layerOf(leaking({ native: 0.8 }));
    expect(partly.caveats[0]).toMatch(/^malloc's in-use bytes grew 2\d\d MiB: 80% of the growth; the rest is memory malloc holds free, or outside malloc$/);
    expect(partly.caveats[1]).toMatch(/--trace-python tells Python objects over 512 bytes apart/);
    const all = layerOf(leaking({ native: 0.95 }));
    expect(all.caveats[0]).toMatch(/: 95% of the growth$/);
    expect(layerOf(leaking({ native: 1.1 })).caveats[0]).toMatch(/: all of the growth$/);
    expect(layerOf(leaking({ native: 0.5, torch: true })).caveats[1]).toMatch(/^PyTorch is loaded: its CPU tensors/);
  });

  it("names the layer in the summary", () => {
    expect(layerOf(leaking({ blocks: 0.5 })).summary).toMatch(/ — in the small Python objects \(pymalloc\)$/);
    expect(layerOf(leaking({ blocks: 0.5 })).caveats).toEqual([expect.stringMatching(/^\d+ more Python objects allocated over the window$/)]);
  });
});
