/**
 * signals/layer.ts on agent columns built by hand, pinned by exact values: which layer a leak of 100 MiB is put in
 * (tracemalloc's sites, autograd graphs, CPU tensors, a followed container, pymalloc's blocks or malloc's in-use bytes,
 * each at exactly its share and one byte under), the notes each carries, and the container that pins retained memory.
 * Six points per column from 0 s, so each level is the median of three (assess.ts `levels`). Through the whole engine:
 * rules/layer.test.ts and pinning.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Assessment } from "../../../../src/analysis/assess.js";
import type { Context } from "../../../../src/analysis/context.js";
import { Column } from "../../../../src/series/column.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import {
  leakLayer,
  otherAllocator,
  pinnedLayer,
  pinningContainer,
  torchImported,
} from "../../../../src/analysis/signals/layer.js";

const MB = 2 ** 20;
const col = (ys: number[], x0 = 0) => {
  const c = new Column();
  ys.forEach((y, i) => c.push(x0 + i, y));
  return c;
};
/** Up by `by` over six points: three at 0, three at `by` (plus a base). */
const up = (by: number, base = 0) => col([base, base, base, base + by, base + by, base + by]);

const proc = (agent: Record<string, Column>, agentText: Record<string, string> = {}) =>
  ({ pid: 9, agent, agentText }) as unknown as ProcessSeries;
const ctx = (sites: number[] = []): Context => ({
  from: 0,
  warmup: 0,
  duration: 6,
  agentSeen: true,
  agentResults: {
    traces: new Map([
      [
        9,
        {
          type: "trace",
          pid: 9,
          t: 5,
          traced: 0,
          tracedPeak: 0,
          sites: sites.map((sizeDiff) => ({ file: "a.py", line: 1, sizeDiff, countDiff: 1, size: sizeDiff })),
        },
      ],
    ]),
    trims: new Map(),
  },
});
const noTrace: Context = { from: 0, warmup: 0, duration: 6, agentSeen: true };
const leak = (growth = 100 * MB, from = 0) => ({ growth, from }) as Assessment;

describe("leakLayer: what the agent saw grow, in order", () => {
  it("no growth, no layer", () => {
    const ps = proc({ "malloc.inUse": up(100 * MB) });
    expect(leakLayer(ps, leak(0), noTrace)).toBeUndefined();
    expect(leakLayer(ps, leak(NaN), noTrace)).toBeUndefined();
    expect(leakLayer(ps, leak(-MB), noTrace)).toBeUndefined();
  });

  it("tracemalloc's sites holding half of the growth, exactly half included", () => {
    const ps = proc({ "malloc.inUse": up(100 * MB) });
    expect(leakLayer(ps, leak(), ctx([30 * MB, 20 * MB]))).toEqual({
      name: "Python objects (tracemalloc sees the growth)",
      notes: [],
    });
    // one byte under: malloc's bytes decide; the trace was there, so no hint to run it
    expect(leakLayer(ps, leak(), ctx([30 * MB, 20 * MB - 1]))).toEqual({
      name: "native heap (malloc)",
      notes: [{ say: "layer.malloc", facts: { native: 100 * MB, growth: 100 * MB, nearlyAll: true } }],
    });
    expect(leakLayer(ps, leak(), ctx([]))?.name).toBe("native heap (malloc)");
  });

  it("autograd graphs: 20 more tensors with a grad_fn, measured by the tensors' note, or malloc's, or nothing", () => {
    const graphs = up(20, 3);
    expect(leakLayer(proc({ "census.graphTensors": graphs }), leak(), noTrace)).toEqual({
      name: "PyTorch autograd graphs",
      notes: [{ say: "layer.graphs", facts: { graphs: 20 } }],
    });
    // tensors the census saw flat: malloc's note, not theirs
    expect(
      leakLayer(
        proc({ "census.graphTensors": graphs, "census.cpuTensorBytes": up(0, MB), "malloc.inUse": up(80 * MB) }),
        leak(),
        noTrace,
      )?.notes,
    ).toEqual([
      { say: "layer.graphs", facts: { graphs: 20 } },
      { say: "layer.malloc", facts: { native: 80 * MB, growth: 100 * MB, nearlyAll: false } },
    ]);
    const withTensors = proc({
      "census.graphTensors": graphs,
      "census.cpuTensorBytes": up(MB),
      "census.cpuTensors": up(7),
      "malloc.inUse": up(80 * MB),
    });
    expect(leakLayer(withTensors, leak(), noTrace)?.notes).toEqual([
      { say: "layer.graphs", facts: { graphs: 20 } },
      { say: "layer.tensors", facts: { bytes: MB, count: 7 } },
    ]);
    // 19: a training step's handful
    expect(leakLayer(proc({ "census.graphTensors": up(19) }), leak(), noTrace)).toBeUndefined();
  });

  it("CPU tensors: their storage grew by a quarter of the growth, exactly a quarter included", () => {
    expect(leakLayer(proc({ "census.cpuTensorBytes": up(25 * MB) }), leak(), noTrace)).toEqual({
      name: "PyTorch CPU tensors",
      notes: [{ say: "layer.tensors", facts: { bytes: 25 * MB, count: 0 } }],
    });
    expect(leakLayer(proc({ "census.cpuTensorBytes": up(25 * MB - 1) }), leak(), noTrace)).toBeUndefined();
    expect(leakLayer(proc({ "census.cpuTensorBytes": up(-MB) }), leak(), noTrace)).toBeUndefined();
  });

  it("CPU tensors measured between the census's walks, compared with the growth by rate", () => {
    // Ticks every second 0–24 s; walks (census.costMs set anew) at 2 and 14 s saw 2 then 14 MiB of tensors, and the
    // 14 s walk's numbers are repeated to the end. 12 MiB in 12 s is 24 MiB over the 24 s window: 40% of 60 MiB.
    const ticks = Array.from({ length: 25 }, (_, t) => t);
    const stepAt = (t: number, values: [number, number][]) => values.filter(([at]) => at <= t).at(-1)?.[1] ?? 0;
    const walkCol = (values: [number, number][], x0 = 2) => {
      const c = new Column();
      for (const t of ticks) if (t >= x0) c.push(t, stepAt(t, values));
      return c;
    };
    const agent = (walks: [number, number][], bytes: [number, number][]) => ({
      "census.costMs": walkCol(walks, walks[0]![0]),
      "census.cpuTensorBytes": walkCol(bytes, bytes[0]![0]),
      "census.cpuTensors": walkCol(
        bytes.map(([t, b]) => [t, b / (256 * 1024)]),
        bytes[0]![0],
      ),
    });
    const window = (from = 0) => ({ growth: 60 * MB, from, to: 24 }) as Assessment;
    const twoWalks = proc(
      agent(
        [
          [2, 31],
          [14, 28],
        ],
        [
          [2, 2 * MB],
          [14, 14 * MB],
        ],
      ),
    );
    expect(leakLayer(twoWalks, window(), noTrace)).toEqual({
      name: "PyTorch CPU tensors",
      notes: [{ say: "layer.tensors", facts: { bytes: 12 * MB, count: 48, seconds: 12, share: 0.4 } }],
    });
    // The same columns without the walks' marker: the plain change over the window, 12 of 60 MiB, is too little.
    const unmarked = proc({ "census.cpuTensorBytes": twoWalks.agent["census.cpuTensorBytes"]! });
    expect(leakLayer(unmarked, window(), noTrace)).toBeUndefined();
    // From 5 s: the walk at 2 s is the one at or before the window's start; 12 MiB in 12 s over a 19 s window.
    expect(leakLayer(twoWalks, window(5), noTrace)?.notes[0]?.facts).toEqual({
      bytes: 12 * MB,
      count: 48,
      seconds: 12,
      share: (12 * MB * 19) / 12 / (60 * MB),
    });
    // From 3 s with a third walk at 20 s: 2 → 20 s, 18 s apart.
    const threeWalks = proc(
      agent(
        [
          [2, 31],
          [14, 28],
          [20, 30],
        ],
        [
          [2, 2 * MB],
          [14, 14 * MB],
          [20, 20 * MB],
        ],
      ),
    );
    expect(leakLayer(threeWalks, window(3), noTrace)?.notes[0]?.facts).toMatchObject({ bytes: 18 * MB, seconds: 18 });
    // One walk (at 14 s) and none before it: nothing measured, however much it saw.
    expect(leakLayer(proc(agent([[14, 28]], [[14, 60 * MB]])), window(), noTrace)).toBeUndefined();
    // Under a quarter at that rate: malloc's note says so, with the walks.
    const small = proc({
      ...agent(
        [
          [2, 31],
          [14, 28],
        ],
        [
          [2, 2 * MB],
          [14, 4 * MB],
        ],
      ),
      "malloc.inUse": up(50 * MB),
      "torch.threads": up(0, 4),
    });
    expect(leakLayer(small, window(), noTrace)?.notes[1]).toEqual({
      say: "layer.torch-tensors-grew",
      facts: { bytes: 2 * MB, seconds: 12, share: 4 / 60 },
    });
  });

  it("a followed container: bytes gained, with its label, length and item size from the last walk", () => {
    const census = (bytes: number, text: Record<string, string> = { "census.growing": "list of bytes" }) =>
      proc(
        {
          "census.growingAddedBytes": up(bytes),
          "census.growingItemBytes": col([100, 100, 100, 100, 100, 4096]),
          "census.growingLen": col([1, 2, 3, 4, 5, 6400]),
        },
        text,
      );
    expect(leakLayer(census(25 * MB), leak(), noTrace)).toEqual({
      name: "Python objects",
      notes: [
        {
          say: "layer.container",
          facts: { what: "list of bytes", length: 6400, itemBytes: 4096, bytes: 25 * MB, growth: 100 * MB },
        },
      ],
    });
    expect(leakLayer(census(25 * MB - 1), leak(), noTrace)).toBeUndefined();
    expect(leakLayer(census(25 * MB, {}), leak(), noTrace)?.notes[0]?.facts).toMatchObject({ what: "container" });
    // no item size, or no length: nothing to name, or a length of 0
    expect(leakLayer(proc({ "census.growingAddedBytes": up(50 * MB) }), leak(), noTrace)).toBeUndefined();
    const noLength = proc({ "census.growingAddedBytes": up(50 * MB), "census.growingItemBytes": up(0, 64) });
    expect(leakLayer(noLength, leak(), noTrace)?.notes[0]?.facts).toMatchObject({ length: 0, itemBytes: 64 });
  });

  it("a container first followed inside the window grew from nothing: the walks before it count as 0 added", () => {
    // walks at 0–5 s found no growing container; the followed one appears at 6 s, flat at 30 MiB added
    const ps = proc({
      "census.containerItems": col([5, 5, 5, 5, 5, 5, 5, 5, 5]),
      "census.growingAddedBytes": col([30 * MB, 30 * MB, 30 * MB], 6),
      "census.growingItemBytes": col([64, 64, 64], 6),
    });
    expect(leakLayer(ps, leak(), noTrace)?.notes[0]?.facts).toMatchObject({ bytes: 30 * MB });
    // from 2 s on: the walks at 2–5 s are in front (4 zeros, 3 at 30 MiB); the first point of the column alone is not
    expect(leakLayer(ps, leak(100 * MB, 2), noTrace)?.notes[0]?.facts).toMatchObject({ bytes: 30 * MB });
    // from 6 s: only the column itself, flat
    expect(leakLayer(ps, leak(100 * MB, 6), noTrace)).toBeUndefined();
    // one point is no growth
    const one = proc({ "census.growingAddedBytes": col([30 * MB], 6), "census.growingItemBytes": col([64], 6) });
    expect(leakLayer(one, leak(), noTrace)).toBeUndefined();
  });

  it("pymalloc's blocks at 512 B or malloc's in-use bytes, the larger; malloc's when they tie", () => {
    const blocks = (n: number) => up(n);
    // 51,200 blocks × 512 B = 25 MiB, exactly a quarter
    expect(leakLayer(proc({ "py.allocatedBlocks": blocks(51_200) }), leak(), noTrace)).toEqual({
      name: "small Python objects (pymalloc)",
      notes: [{ say: "layer.small-objects", facts: { blocks: 51_200 } }],
    });
    expect(leakLayer(proc({ "py.allocatedBlocks": blocks(51_199) }), leak(), noTrace)).toBeUndefined();
    expect(leakLayer(proc({ "py.allocatedBlocks": blocks(-5) }), leak(), noTrace)).toBeUndefined();
    const both = (inUse: number) => proc({ "py.allocatedBlocks": blocks(51_200), "malloc.inUse": up(inUse) });
    expect(leakLayer(both(25 * MB), leak(), noTrace)?.name).toBe("native heap (malloc)");
    expect(leakLayer(both(25 * MB - 1), leak(), noTrace)?.name).toBe("small Python objects (pymalloc)");
    expect(leakLayer(both(30 * MB), leak(), noTrace)?.name).toBe("native heap (malloc)");
    expect(leakLayer(proc({ "malloc.inUse": up(25 * MB - 1) }), leak(), noTrace)).toBeUndefined();
  });

  it("pymalloc's blocks from the window's last burst of imports on: the objects an import makes are not the leak's", () => {
    // torch imported at 2-3 s of a 12 s window: 600 modules, 154,380 blocks with them; then 5,800 more blocks
    const modules = col([100, 100, 400, 700, 700, 700, 700, 700, 700, 700, 700, 700]);
    const blocks = col([0, 0, 80_000, 154_380, 154_380, 154_380, 155_000, 156_000, 157_000, 158_000, 159_000, 160_180]);
    const imported = proc({ "py.allocatedBlocks": blocks, "py.modules": modules });
    // 5,800 × 512 B is under a quarter of the 100 MiB growth: no layer from the blocks
    expect(leakLayer(imported, leak(), noTrace)).toBeUndefined();
    // without the module count the import is not known: the blocks are counted from the window's start
    expect(leakLayer(proc({ "py.allocatedBlocks": blocks }), leak(), noTrace)?.name).toBe(
      "small Python objects (pymalloc)",
    );
    // blocks that grow after the imports are counted
    const after = col([0, 0, 0, 0, 0, 0, 100_000, 200_000, 300_000, 300_000, 300_000, 300_000]);
    expect(leakLayer(proc({ "py.allocatedBlocks": after, "py.modules": modules }), leak(), noTrace)?.notes).toEqual([
      { say: "layer.small-objects", facts: { blocks: 300_000 } },
    ]);
  });

  it("malloc's note: whether it is nearly all of the growth (90%), then what is said of PyTorch or tracing", () => {
    const notes = (agent: Record<string, Column>, text: Record<string, string> = {}, c = noTrace) =>
      leakLayer(proc({ "malloc.inUse": up(90 * MB), ...agent }, text), leak(), c)?.notes;
    const malloc = { say: "layer.malloc", facts: { native: 90 * MB, growth: 100 * MB, nearlyAll: true } };
    expect(notes({})).toEqual([malloc, { say: "layer.trace-hint", facts: {} }]);
    expect(notes({}, {}, ctx([MB]))).toEqual([malloc]);
    expect(notes({}, { "torch.version": "2.1" })).toEqual([malloc, { say: "layer.torch-no-census", facts: {} }]);
    expect(notes({ "torch.threads": up(0, 4) })).toEqual([malloc, { say: "layer.torch-no-census", facts: {} }]);
    expect(notes({ "torch.threads": up(0, 4), "census.cpuTensorBytes": up(0, MB) })).toEqual([
      malloc,
      { say: "layer.torch-tensors-flat", facts: {} },
    ]);
    expect(notes({ "torch.threads": up(0, 4), "census.cpuTensorBytes": up(MB) })).toEqual([
      malloc,
      { say: "layer.torch-tensors-grew", facts: { bytes: MB } },
    ]);
    // the census walked once in the window (census.costMs never changed): not known, not claimed flat
    expect(
      notes({ "torch.threads": up(0, 4), "census.cpuTensorBytes": up(0, MB), "census.costMs": up(0, 40) }),
    ).toEqual([malloc, { say: "layer.torch-one-walk", facts: {} }]);
    // tensors that grew without torch reported: no torch note
    expect(notes({ "census.cpuTensorBytes": up(MB) })).toEqual([malloc, { say: "layer.trace-hint", facts: {} }]);
    expect(leakLayer(proc({ "malloc.inUse": up(90 * MB - 1) }), leak(), noTrace)?.notes[0]?.facts).toMatchObject({
      nearlyAll: false,
    });
  });

  it("under another allocator malloc's bytes are not read", () => {
    const ps = (allocator: string) => proc({ "malloc.inUse": up(90 * MB) }, { "malloc.allocator": allocator });
    expect(leakLayer(ps("jemalloc"), leak(), noTrace)).toBeUndefined();
    expect(leakLayer(ps("glibc"), leak(), noTrace)?.name).toBe("native heap (malloc)");
    expect(otherAllocator(ps("tcmalloc"))).toEqual({
      name: "tcmalloc",
      note: { say: "layer.other-allocator", facts: { name: "tcmalloc" } },
    });
    expect(otherAllocator(ps("glibc"))).toBeUndefined();
    expect(otherAllocator(proc({}))).toBeUndefined();
  });

  it("torchImported: torch's threads reported, or its version", () => {
    expect(torchImported(proc({}))).toBe(false);
    expect(torchImported(proc({ "torch.threads": up(0, 4) }))).toBe(true);
    expect(torchImported(proc({}, { "torch.version": "2.1" }))).toBe(true);
  });
});

describe("pinningContainer: a container gaining items at 3 walks or more, the last in the window's final third", () => {
  /** Items added, one reading a second from 0 s. */
  const added = (ys: number[], text: Record<string, string> = { "census.growing": "list of Tensor" }) =>
    proc({ "census.growingAdded": col(ys) }, text);

  it("three rises, the last at 2/3 of the window exactly: what, how many, how fast", () => {
    // rises at 1, 2 and 6 s in [0, 9]
    expect(pinningContainer(added([0, 10, 20, 20, 20, 20, 35, 35, 35, 35]), 0, 9)).toEqual({
      what: "list of Tensor",
      items: 35,
      perSecond: 35 / 9,
    });
    // the last rise at 5 s: before the final third (a cache that filled up)
    expect(pinningContainer(added([0, 10, 20, 20, 20, 35, 35, 35, 35, 35]), 0, 9)).toBeUndefined();
    // two rises only
    expect(pinningContainer(added([0, 0, 20, 20, 20, 20, 35, 35, 35, 35]), 0, 9)).toBeUndefined();
    // level readings are no rise
    expect(pinningContainer(added([5, 5, 5, 5, 5, 5, 5, 6, 7, 8]), 0, 9)).toEqual({
      what: "list of Tensor",
      items: 3,
      perSecond: 3 / 9,
    });
  });

  it("read from the window's start, in a window that has a length; named 'container' without a label", () => {
    const ps = added([50, 40, 30, 0, 10, 20, 30, 40, 50, 60], {});
    expect(pinningContainer(ps, 3, 9)).toEqual({ what: "container", items: 60, perSecond: 10 });
    expect(pinningContainer(ps, 9, 9)).toBeUndefined();
    // a window of no length, or reversed, has no final third to be gaining in (rises after 3 s there are)
    expect(pinningContainer(ps, 3, 3)).toBeUndefined();
    expect(pinningContainer(ps, 3, 2)).toBeUndefined();
    expect(pinningContainer(ps, 9, 3)).toBeUndefined();
    expect(pinningContainer(proc({}), 0, 9)).toBeUndefined();
    expect(pinningContainer(proc({ "census.growingAdded": new Column() }), 0, 9)).toBeUndefined();
  });

  it("pinnedLayer: the objects kept, with what malloc's in-use and free bytes did meanwhile", () => {
    const pinning = { what: "list of Tensor", items: 35, perSecond: 3 };
    expect(pinnedLayer(proc({ "malloc.inUse": up(MB), "malloc.free": up(40 * MB) }), pinning, 0)).toEqual({
      name: "Python objects",
      notes: [{ say: "layer.pinning", facts: { ...pinning, inUse: MB, free: 40 * MB } }],
    });
    expect(pinnedLayer(proc({}), pinning, 0).notes[0]?.facts).toMatchObject({ inUse: 0, free: 0 });
  });
});
