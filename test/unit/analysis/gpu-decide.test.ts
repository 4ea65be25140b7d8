/**
 * signals/gpu.ts's decisions at their exact boundaries, on noiseless allocator columns (the agent's reports for one
 * process on cuda:0, 1 Hz), judged by analyzeGpus directly: what the allocator holds must be 256 MiB and a quarter
 * of its reserve, allocated must have fallen by half of it, split blocks must hold half of it; why it is held sets
 * the confidence; and the allocator's numbers at the end, each only when it was read, in every GPU finding.
 */
import { describe, expect, it } from "vitest";
import { analyzeGpus } from "../../../src/analysis/signals/gpu.js";
import type { Context } from "../../../src/analysis/context.js";
import { SeriesBuilder, type ProcessSeries } from "../../../src/series/series.js";

const MiB = 2 ** 20;
const GiB = 1024 * MiB;

type Fields = Partial<
  Record<"Allocated" | "Reserved" | "Active" | "InactiveSplit" | "AllocRetries" | "Ooms", (t: number) => number>
>;

/** One process reporting cuda:0's fields every second for `seconds` (from `start`), its host memory flat. */
function process(fields: Fields, seconds = 300, start = 0): ProcessSeries {
  const b = new SeriesBuilder();
  for (let t = 0; t < seconds; t++) {
    const gpu: Record<string, number> = {};
    if (t >= start) for (const [f, y] of Object.entries(fields)) gpu[`cuda0${f}`] = y(t);
    b.add({
      t: t * 1000,
      processes: [{ pid: 9, ppid: 1, starttime: 90, comm: "python3", anon: 600 * MiB }],
      agent: { "9": { gpu } },
    });
  }
  return b.set.processes.get("9:90")!;
}

const ctx = (duration = 300): Context => ({ from: 0, warmup: 0, duration, agentSeen: true });
const judge = (ps: ProcessSeries, duration = 300) => {
  const fs = analyzeGpus(ps, "python3 train.py", ctx(duration));
  expect(fs).toHaveLength(1);
  return fs[0]!;
};
const flat = (v: number) => () => v;
const down =
  (from: number, to: number, at = 60) =>
  (t: number) =>
    t < at ? from : to;
const rising = (every: number) => (t: number) => Math.floor(t / every);

describe("why the reserve is held", () => {
  it("allocated came down by half of what is held: retention (cached), 0.8, and every number at the end", () => {
    const f = judge(
      process({
        Allocated: down(2 * GiB, 1 * GiB),
        Reserved: flat(3 * GiB),
        Active: flat(1.25 * GiB),
        InactiveSplit: flat(0.5 * GiB),
        AllocRetries: flat(0),
        Ooms: flat(2),
      }),
    );
    // held 2 GiB, fell 1 GiB: exactly half
    expect(f.kind).toBe("fragmentation");
    expect(f.metric).toBe("gpu-reserved");
    expect(f.confidence).toBe(0.8);
    expect(f.evidence).toMatchObject({
      gpuHeldAs: "cached",
      allocatedBytes: 1 * GiB,
      reservedBytes: 3 * GiB,
      heldBytes: 2 * GiB,
      inactiveSplitBytes: 0.5 * GiB,
      activeBytes: 1.25 * GiB,
      allocatedFellBytes: 1 * GiB,
      allocRetries: 0,
      outOfMemoryErrors: 2,
    });
  });

  it("the allocator retried a cudaMalloc: fragmentation at 0.9, without any fall", () => {
    const f = judge(process({ Allocated: flat(1 * GiB), Reserved: flat(3 * GiB), AllocRetries: rising(100) }));
    expect(f).toMatchObject({ kind: "fragmentation", confidence: 0.9 });
    expect(f.evidence).toMatchObject({ gpuHeldAs: "cached", heldBytes: 2 * GiB, allocRetries: 2 });
    expect(f.evidence).not.toHaveProperty("allocatedFellBytes");
    expect(f.evidence).not.toHaveProperty("inactiveSplitBytes");
    expect(f.evidence).not.toHaveProperty("activeBytes");
    expect(f.evidence).not.toHaveProperty("outOfMemoryErrors");
  });

  it("split blocks holding exactly half of what is held: inactive-split, 0.9", () => {
    const f = judge(
      process({ Allocated: down(2 * GiB, 1 * GiB), Reserved: flat(3 * GiB), InactiveSplit: flat(1 * GiB) }),
    );
    expect(f).toMatchObject({ kind: "fragmentation", confidence: 0.9 });
    expect(f.evidence.gpuHeldAs).toBe("inactive-split");
    // no retry counter read: none in the evidence
    expect(f.evidence).not.toHaveProperty("allocRetries");
  });

  it("held exactly 256 MiB, and exactly a quarter of the reserve: both enough", () => {
    // 256 MiB of a 1 GiB reserve: both thresholds exactly
    const min = judge(process({ Allocated: flat(768 * MiB), Reserved: flat(1 * GiB), AllocRetries: rising(100) }));
    expect(min.kind).toBe("fragmentation");
    expect(min.evidence.heldBytes).toBe(256 * MiB);
    // a quarter exactly, well over 256 MiB
    const quarter = judge(process({ Allocated: flat(3 * GiB), Reserved: flat(4 * GiB), AllocRetries: rising(100) }));
    expect(quarter.kind).toBe("fragmentation");
    expect(quarter.evidence.heldBytes).toBe(1 * GiB);
  });

  it("retries without a reserve read: nothing held, stable; only allocated in the evidence", () => {
    const f = judge(process({ Allocated: flat(1 * GiB), AllocRetries: rising(100) }));
    expect(f.kind).toBe("stable");
    expect(f.evidence).toMatchObject({ allocatedBytes: 1 * GiB, allocRetries: 2 });
    expect(f.evidence).not.toHaveProperty("reservedBytes");
    expect(f.evidence).not.toHaveProperty("heldBytes");
  });

  it("too few readings stay insufficient-data however much is held and however far allocated fell", () => {
    const f = judge(
      process({ Allocated: down(2 * GiB, 1 * GiB, 4), Reserved: flat(3 * GiB), AllocRetries: rising(2) }, 8),
      8,
    );
    expect(f.kind).toBe("insufficient-data");
    expect(f.metric).toBe("gpu-allocated");
  });
});

describe("a device that came up after the window's start, or before it", () => {
  it("the shape from the window's start (after the warm-up), the allocator's state over all of the device's readings", () => {
    // cuda:0 from 20 s; allocated 2 GiB until 60 s, then 1 GiB; the window starts at 150 s (warm-up): allocated is
    // flat in it, but the reserve the load before it left is still held, and its fall is read from 20 s on.
    const ps = process({ Allocated: down(2 * GiB, 1 * GiB), Reserved: flat(3 * GiB) }, 300, 20);
    const f = analyzeGpus(ps, "python3 train.py", { ...ctx(), from: 150, warmup: 150 })[0]!;
    expect(f.kind).toBe("fragmentation");
    expect(f.evidence).toMatchObject({ allocatedFellBytes: 1 * GiB, heldBytes: 2 * GiB });
  });
});

describe("the driver's series", () => {
  it("a process without the agent's numbers is judged on the driver's, gpu-used", () => {
    const b = new SeriesBuilder();
    for (let t = 0; t < 300; t++)
      b.add({
        t: t * 1000,
        processes: [
          { pid: 9, ppid: 1, starttime: 90, comm: "python3", anon: 600 * MiB, gpu: { "1": 1 * GiB + t * 2 * MiB } },
        ],
      });
    const f = judge(b.set.processes.get("9:90")!);
    expect(f).toMatchObject({ kind: "leak", metric: "gpu-used" });
    expect(f.subject).toMatchObject({ device: "1", source: "driver" });
    expect(f.caveats).toHaveLength(1);
  });
});
