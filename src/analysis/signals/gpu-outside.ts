/**
 * A process's memory on a GPU outside PyTorch's caching allocator (series/gpu-outside.ts: the driver's figure minus
 * the allocator's reserve), judged for growth with the host's statistics (assess.ts): growing by GPU_OUTSIDE_MIN_GROWTH
 * or more, it is a leak of its own, which no tensor explains and `empty_cache()` cannot touch (NCCL communicators made
 * again and again, another CUDA library's pool, a custom extension's cudaMalloc). Otherwise its size at the
 * end is a number in the device's own finding.
 */
import { assess } from "../assess.js";
import type { Context } from "../context.js";
import { growthConfidence } from "../evidence.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase } from "../phrases.js";
import { cudaLabel } from "../../sampling/gpu-fields.js";
import type { ProcessSeries } from "../../series/series.js";
import { outsideAllocator } from "../../series/gpu-outside.js";
import { gpuFacts, gpuFinding, gpuSubject } from "./gpu-finding.js";

/**
 * Growth under this over the window is not a finding: the readings it is made of are two processes' numbers read at
 * different times (the driver's every 5-15 s, the allocator's every tick), which left swings of 16 MiB on the H200 with
 * a reserve growing 20 MiB/s. A step once (at the first matrix product, when cuBLAS's kernels are loaded: 518 → 742 MiB
 * on the H200) is a plateau by its shape, whatever its size. Boundary tests:
 * test/unit/analysis/gpu-outside.test.ts (60 / 75 MiB over a 300 s run, ~54 / 67 MiB as judged).
 */
export const GPU_OUTSIDE_MIN_GROWTH = 64 * 2 ** 20;

/**
 * The finding when what lies outside the allocator grows, else undefined; `device` gets its size at the end
 * (evidence outsideAllocatorBytes) when it is the finding of the device paired with the driver's GPU.
 */
export function judgeOutside(
  ps: ProcessSeries,
  command: string,
  ctx: Context,
  deviceFindings: readonly JudgedFinding[],
): JudgedFinding | undefined {
  const o = outsideAllocator(ps);
  if (!o) return undefined;
  const device = cudaLabel(o.index);
  const end = o.col.ys.at(-1)!;
  for (const f of deviceFindings)
    if (f.subject.type === "gpu" && f.subject.device === device) f.evidence.outsideAllocatorBytes = Math.round(end);
  const first = o.col.xs[0]!;
  const a = assess(o.col, Math.max(ctx.from, first), first);
  if (a.shape !== "growing" || a.growth < GPU_OUTSIDE_MIN_GROWTH) return undefined;
  const subject = gpuSubject(ps, command, device, "torch");
  const who = gpuFacts(subject);
  const f = gpuFinding(
    subject,
    "leak",
    "gpu-outside",
    a,
    phrase("gpu.outside-grows", { ...who, start: a.start, end: a.end, rate: a.rate, driverGpu: o.driverGpu }),
    growthConfidence(a),
    [phrase("advice.gpu", { variant: "outside", ...who })],
  );
  f.evidence.layer = "outside the caching allocator";
  f.evidence.outsideAllocatorBytes = Math.round(end);
  f.evidence.driverGpu = o.driverGpu;
  return f;
}
