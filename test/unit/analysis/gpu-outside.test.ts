/**
 * What a process holds on a GPU outside PyTorch's caching allocator (series/gpu-outside.ts, signals/gpu-outside.ts):
 * the driver's figure (one reading every 5 s, as nvidia-smi is read) minus the allocator's reserve at that time
 * (interpolated from its readings each second), on noiseless columns built as the sampler records them. A growth of
 * GPU_OUTSIDE_MIN_GROWTH or more is a leak of its own; less, or a step (cuBLAS's kernels loaded at the first matrix product),
 * is not; its size at the end is always in the device's finding. Only one device each side is paired.
 * On a real GPU's recordings (flat, 726-742 MiB): gpu-recordings.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Context } from "../../../src/analysis/context.js";
import { analyzeGpus } from "../../../src/analysis/signals/gpu.js";
import { GPU_OUTSIDE_MIN_GROWTH, judgeOutside } from "../../../src/analysis/signals/gpu-outside.js";
import { outsideAllocator } from "../../../src/series/gpu-outside.js";
import { SeriesBuilder, type ProcessSeries } from "../../../src/series/series.js";
import { say } from "../../../src/report/wording/index.js";

const MiB = 2 ** 20;

/** 300 s at 1 Hz: the allocator's reserve each second, the driver's figure every 5 s (`gpus` of them). */
function process(reserved: (t: number) => number, used: (t: number) => number, gpus = ["0"]): ProcessSeries {
  const b = new SeriesBuilder();
  for (let t = 0; t < 300; t++) {
    const r = reserved(t);
    const driver = t % 5 === 0 ? Object.fromEntries(gpus.map((g) => [g, used(t)])) : undefined;
    b.add({
      t: t * 1000,
      processes: [{ pid: 9, ppid: 1, starttime: 90, comm: "python3", anon: 600 * MiB, ...(driver && { gpu: driver }) }],
      agent: { "9": { gpu: { cuda0Allocated: r / 2, cuda0Reserved: r } } },
    });
  }
  return b.set.processes.get("9:90")!;
}

const ctx: Context = { from: 0, warmup: 0, duration: 300, agentSeen: true };
const judge = (ps: ProcessSeries) => {
  const devices = analyzeGpus(ps, "python3 train.py", ctx);
  return { devices, outside: judgeOutside(ps, "python3 train.py", ctx, devices) };
};
const reserve = (t: number) => 2048 * MiB + t * 4 * MiB; // a reserve that moves: the pairing must follow it

describe("memory outside the caching allocator", () => {
  it("the driver's figure minus the reserve at the same time, interpolated: a context and a workspace, exactly", () => {
    const o = outsideAllocator(process(reserve, (t) => reserve(t) + 742 * MiB));
    expect(o).toMatchObject({ index: 0, driverGpu: "0" });
    expect(new Set(o!.col.ys)).toEqual(new Set([742 * MiB]));
  });

  it(`growing 75 MiB over the run: a leak of its own, beside the device's own finding`, () => {
    const grows = (t: number) => reserve(t) + 742 * MiB + (t * 75 * MiB) / 300;
    const { devices, outside } = judge(process(reserve, grows));
    expect(outside).toMatchObject({
      kind: "leak",
      metric: "gpu-outside",
      subject: { type: "gpu", device: "cuda:0" },
      evidence: { layer: "outside the caching allocator", driverGpu: "0" },
    });
    expect(say(outside!.summary)).toMatch(
      /^PID 9 \(python3 train\.py\) on cuda:0: GPU memory outside PyTorch's caching allocator grows: 7\d\d MiB → 8\d\d MiB at .*, no sign of levelling off: what the driver counts for the process on GPU 0 beyond the allocator's reserve$/,
    );
    expect(outside!.advice.map((p) => say(p)).join("\n")).toContain("NCCL communicators and process groups");
    expect(devices[0]!.evidence.outsideAllocatorBytes).toBe(outside!.evidence.outsideAllocatorBytes);
  });

  it(`growing 60 MiB over the run, under GPU_OUTSIDE_MIN_GROWTH (${GPU_OUTSIDE_MIN_GROWTH / MiB} MiB): no finding, its size in the device's`, () => {
    const grows = (t: number) => reserve(t) + 742 * MiB + (t * 60 * MiB) / 300;
    const { devices, outside } = judge(process(reserve, grows));
    expect(outside).toBeUndefined();
    expect(devices[0]!.evidence.outsideAllocatorBytes).toBeGreaterThan(795 * MiB);
  });

  it("one step of 224 MiB, cuBLAS loaded at the first matrix product: not a leak", () => {
    const { outside } = judge(process(reserve, (t) => reserve(t) + (t < 40 ? 518 : 742) * MiB));
    expect(outside).toBeUndefined();
  });

  it("two GPUs in the driver's list for one torch device: not paired, nothing said", () => {
    const ps = process(reserve, (t) => reserve(t) + 742 * MiB + t * MiB, ["0", "1"]);
    expect(outsideAllocator(ps)).toBeUndefined();
    const { devices, outside } = judge(ps);
    expect(outside).toBeUndefined();
    expect(devices[0]!.evidence.outsideAllocatorBytes).toBeUndefined();
  });
});
