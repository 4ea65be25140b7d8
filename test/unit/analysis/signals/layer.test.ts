/**
 * Boundaries of the leak-layer rule, signals/layer.ts: which layer a leak grows in, from what the agent measured.
 *   tracemalloc's sites account for ≥ 50% of the growth                       → Python objects (tracemalloc)
 *   tensors keeping a grad_fn grew by ≥ 20                                      → PyTorch autograd graphs
 *   live CPU tensor storage ≥ 25%                                              → PyTorch CPU tensors
 *   the fastest-growing container's new items × their size ≥ 25%               → Python objects
 *   allocated blocks × 512 B and malloc in use: the larger, if ≥ 25%            → small Python objects / native heap
 *   otherwise no layer is named. Importing torch names nothing by itself.
 */
import { describe, expect, it } from "vitest";
import type { AgentResults } from "../../../../src/analysis/context.js";
import { alone, judge, linear, MB, processFinding } from "./judge.js";

interface Grows {
  /** Shares of the 1 MiB/s growth. */
  native?: number;
  blocks?: number;
  tensors?: number;
  /** Container items of 4 KiB each. */
  items?: number;
  /** Tensors keeping a grad_fn, per second. */
  graphs?: number;
  torch?: boolean;
  census?: boolean;
  allocator?: string;
}

/** A 1 MiB/s leak over 300 s whose agent reports its numbers growing at the given shares of it. */
function leaking(o: Grows = {}) {
  const census = o.census ?? (o.tensors !== undefined || o.items !== undefined || o.graphs !== undefined);
  return alone({
    anon: linear(200 * MB, 1 * MB),
    agent: (t) => ({
      malloc: {
        ...(o.allocator === undefined && { inUse: 50 * MB + (o.native ?? 0) * t * MB }),
        free: 5 * MB,
        arenas: 1,
        allocator: o.allocator ?? "glibc",
      },
      py: { allocatedBlocks: 100_000 + ((o.blocks ?? 0) * t * MB) / 512 },
      ...(o.torch && { torch: { version: "1.13.1", threads: 2 } }),
      ...(census && {
        census: {
          containerItems: 5000 + ((o.items ?? 0) * t * MB) / 4096,
          growingLen: 1000 + ((o.items ?? 0) * t * MB) / 4096,
          growingAdded: ((o.items ?? 0) * t * MB) / 4096,
          growingAddedBytes: (o.items ?? 0) * t * MB,
          growing: "list of bytes",
          growingItemBytes: 4096,
          ...(o.torch && {
            cpuTensorBytes: 20 * MB + (o.tensors ?? 0) * t * MB,
            cpuTensors: 100,
            graphTensors: 3 + Math.floor((o.graphs ?? 0) * t),
          }),
        },
      }),
    }),
  });
}

function traced(share: number): AgentResults {
  const sites = [{ file: "app.py", line: 12, size: 270 * share * MB, sizeDiff: 270 * share * MB, countDiff: 1000 }];
  return {
    traces: new Map([[100, { type: "trace", pid: 100, t: 299, sites, traced: 0, tracedPeak: 0 }]]),
    trims: new Map(),
  };
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
    ["… with PyTorch loaded (no census): still only malloc", { native: 0.3, torch: true }, "native heap (malloc)"],
    ["small objects: blocks × 512 B grow by 20% of the growth", { blocks: 0.2 }, undefined],
    ["small objects: blocks × 512 B grow by 30% of the growth", { blocks: 0.3 }, "small Python objects (pymalloc)"],
    ["malloc 40%, small objects 50%: the larger wins", { native: 0.4, blocks: 0.5 }, "small Python objects (pymalloc)"],
    ["malloc 50%, small objects 40%", { native: 0.5, blocks: 0.4 }, "native heap (malloc)"],
    [
      "live CPU tensor storage 30%, malloc 95% (tensors are malloc'd): the tensors",
      { native: 0.95, tensors: 0.3, torch: true },
      "PyTorch CPU tensors",
    ],
    ["live CPU tensor storage 20%, malloc 95%", { native: 0.95, tensors: 0.2, torch: true }, "native heap (malloc)"],
    [
      "a container's new items × their size 90%, torch loaded, its tensors flat",
      { native: 0.95, items: 0.9, torch: true },
      "Python objects",
    ],
    ["a container's new items × their size 20%", { native: 0.95, items: 0.2 }, "native heap (malloc)"],
    // levelChange: the last tenth's median − the first's, 270 s apart
    [
      "22 more tensors keep a grad_fn over the window, malloc grows",
      { native: 0.9, graphs: 0.08, torch: true },
      "PyTorch autograd graphs",
    ],
    ["16 more", { native: 0.9, graphs: 0.06, torch: true }, "native heap (malloc)"],
    [
      "graphs grow, and the tensors they save with them: the graphs",
      { native: 0.9, tensors: 0.8, graphs: 1, torch: true },
      "PyTorch autograd graphs",
    ],
  ] as [string, Grows, string | undefined][])("%s → %s", (_name, o, layer) => {
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
    expect(partly.caveats[0]).toMatch(
      /^malloc's in-use bytes grew 2\d\d MiB: 80% of the growth; the rest is memory malloc holds free, or outside malloc$/,
    );
    expect(partly.caveats[1]).toMatch(/--trace-python tells Python objects over 512 bytes apart/);
    const all = layerOf(leaking({ native: 0.95 }));
    expect(all.caveats[0]).toMatch(/: 95% of the growth$/);
    expect(layerOf(leaking({ native: 1.1 })).caveats[0]).toMatch(/: all of the growth$/);
    expect(layerOf(leaking({ native: 0.5, torch: true })).caveats[1]).toMatch(
      /^PyTorch is loaded and its CPU tensors live in malloc too; the agent's census did not run/,
    );
    expect(layerOf(leaking({ native: 0.5, torch: true, census: true })).caveats[1]).toBe(
      "not PyTorch's CPU tensors: their live storage did not grow",
    );
  });

  it("names the layer in the summary, with what was measured", () => {
    expect(layerOf(leaking({ blocks: 0.5 })).summary).toMatch(/ — in small Python objects \(pymalloc\)$/);
    expect(layerOf(leaking({ blocks: 0.5 })).caveats).toEqual([
      expect.stringMatching(/^\d+ more Python objects allocated over the window$/),
    ]);
    expect(layerOf(leaking({ native: 0.95, items: 0.9, torch: true })).caveats[0]).toMatch(
      /^a list of bytes grows \(6\d,\d{3} items at the last look, ~4.00 KiB each, sampled\): ~2\d\d MiB added over the window, (9\d%|all) of the [\d.]+ MiB growth$/,
    );
    // Under 90% of the growth, the note says why the rest is not in the container's items.
    expect(layerOf(leaking({ native: 0.95, items: 0.5 })).caveats[0]).toMatch(
      /added over the window, [45]\d% of the [\d.]+ MiB growth: the items' sizes are shallow \(what they refer to is not counted\), and memory this Python container does not hold grew too$/,
    );
    expect(layerOf(leaking({ native: 0.9, graphs: 1, torch: true })).caveats[0]).toMatch(
      /^2\d\d more tensors keep a grad_fn: .*losses.append\(loss\)/,
    );
  });

  it("a short program whose census first saw the container grow inside the window: Python objects, not malloc", () => {
    // short.py in a 15 s CI step: the census walks at 3 s (nothing followed has grown: no growing* fields) and at 9 s
    // (a list gained 30 items of 1 MiB); the next walk would come after the program ends. malloc grows with it.
    const shortProgram = (firstWalk: number) =>
      alone(
        {
          anon: linear(20 * MB, 4 * MB),
          agent: (t) => ({
            malloc: { inUse: 8 * MB + 4 * t * MB, free: 2 * MB, arenas: 2, allocator: "glibc" },
            py: { allocatedBlocks: 46_000 },
            ...(t >= firstWalk && {
              census: {
                containerItems: 22_700,
                ...(t >= 9 && {
                  growingLen: 30,
                  growingAdded: 30,
                  growingAddedBytes: 30 * MB,
                  growing: "list of bytearray",
                  growingItemBytes: MB,
                }),
              },
            }),
          }),
        },
        14,
      );
    expect(layerOf(shortProgram(3)).evidence.layer).toBe("Python objects");
    // With no walk before it, its first reading is no baseline: the container's own (flat) series is all there is.
    expect(layerOf(shortProgram(9)).evidence.layer).toBe("native heap (malloc)");
  });

  it("under jemalloc: no malloc-based layer or claim, the allocator named in the evidence and why", () => {
    const f = layerOf(leaking({ allocator: "jemalloc" }));
    expect(f.evidence.layer).toBeUndefined();
    expect(f.evidence.allocator).toBe("jemalloc");
    expect(f.caveats.join(" ")).toMatch(
      /jemalloc replaces glibc's malloc in this process: .* memleak makes no claim from them/,
    );
    expect(f.caveats.join(" ")).not.toMatch(/malloc's in-use bytes grew/);
    // A layer measured otherwise (Python's own counters) is still named.
    expect(layerOf(leaking({ allocator: "jemalloc", blocks: 0.5 })).evidence.layer).toBe(
      "small Python objects (pymalloc)",
    );
  });
});
