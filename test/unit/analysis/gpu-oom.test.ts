/**
 * signals/gpu-oom.ts `putGpuOom`: what the process held at a CUDA out-of-memory error, on that device's finding,
 * whatever its kind: the sentence first among the notes, the numbers in the evidence, fragmentation told from a full
 * device at its boundary (free in the reserve ≥ the request, largest free block < the request), its advice only then,
 * the lines of the blocks alive as sites where none were found. Findings built by hand; from a real program's agent:
 * test/e2e/gpu.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { GpuOomResult } from "../../../src/agent/agent-results.js";
import { oomCause, putGpuOom } from "../../../src/analysis/signals/gpu-oom.js";
import { say } from "../../../src/report/wording/index.js";
import { agentContext, gpuLeak } from "../../helpers/gpu-leak-finding.js";

const MiB = 2 ** 20;

const oom = (o: Partial<GpuOomResult> = {}): GpuOomResult => ({
  type: "gpu-oom",
  pid: 7,
  t: 100,
  device: "cuda:0",
  request: 128 * MiB,
  deviceFree: 64 * MiB,
  allocated: 10 * MiB,
  reserved: 448 * MiB,
  freeInReserve: 384 * MiB,
  largestFreeBlock: 96 * MiB,
  ...o,
});
const ctxWith = (o: GpuOomResult) => agentContext({ gpuOoms: new Map([[o.pid, o]]) });
const variants = (f: ReturnType<typeof gpuLeak>) => f.advice.map((p) => (p.facts as { variant?: string }).variant);

describe("putGpuOom: what was held at a CUDA out-of-memory error", () => {
  it("more free in the reserve than asked for, in no block as large: a finding too short for a trend becomes fragmentation, said first, with its advice", () => {
    const f = { ...gpuLeak(4 * MiB), kind: "insufficient-data" as const, caveats: [] };
    putGpuOom(f, 7, "cuda:0", ctxWith(oom()));
    expect(say(f.caveats[0]!)).toBe(
      "at the CUDA out-of-memory error, a request of 128 MiB failed with 64.0 MiB free on the device: PyTorch held 448 MiB, 10.0 MiB of it in live tensors; 384 MiB of its reserve was free, but in blocks of at most 96.0 MiB: fragmentation (the request fit in what was free, not in any one block)",
    );
    expect(f.evidence).toMatchObject({
      oomRequestBytes: 128 * MiB,
      oomDeviceFreeBytes: 64 * MiB,
      oomFreeInReserveBytes: 384 * MiB,
      oomLargestFreeBlockBytes: 96 * MiB,
      oomAllocatedBytes: 10 * MiB,
      oomReservedBytes: 448 * MiB,
      oomCause: "fragmented",
    });
    expect(f).toMatchObject({ kind: "fragmentation", metric: "gpu-reserved", confidence: 0.9 });
    expect(f.rate).toBeUndefined();
    expect(say(f.summary)).toBe(
      "PID 7 (python3 eval.py) on cuda:0: ran out of memory with 384 MiB free in PyTorch's reserve: a request of 128 MiB fit in no free block (the largest 96.0 MiB), fragmentation",
    );
    expect(variants(f)).toEqual(["oom-fragmented"]);
    expect(say(f.advice[0]!)).toContain("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
  });

  it("a leak that ran out with its reserve fragmented stays a leak (it filled the device first), the setting added", () => {
    const f = gpuLeak(4 * MiB);
    putGpuOom(f, 7, "cuda:0", ctxWith(oom()));
    expect(f.kind).toBe("leak");
    expect(variants(f)).toEqual(["leak", "oom-fragmented"]);
  });

  it("at the boundary: free in the reserve one byte short of the request, or a free block as large, is a full device", () => {
    expect(oomCause(oom({ freeInReserve: 128 * MiB }))).toBe("fragmented");
    expect(oomCause(oom({ freeInReserve: 128 * MiB - 1 }))).toBe("full");
    expect(oomCause(oom({ largestFreeBlock: 128 * MiB - 1 }))).toBe("fragmented");
    expect(oomCause(oom({ largestFreeBlock: 128 * MiB }))).toBe("full");
    const f = gpuLeak(4 * MiB);
    putGpuOom(f, 7, "cuda:0", ctxWith(oom({ freeInReserve: 0, largestFreeBlock: 0, allocated: 448 * MiB })));
    expect(say(f.caveats[0]!)).toMatch(/; 0 B of its reserve was free: the live tensors had filled the device$/);
    expect(variants(f)).toEqual(["leak"]);
  });

  it("the lines of the blocks alive become the sites where none were found; never over sites already there", () => {
    const site = { file: "/srv/train.py", line: 9, name: "step", size: 400 * MiB, count: 100 };
    const f = gpuLeak(4 * MiB);
    putGpuOom(f, 7, "cuda:0", ctxWith(oom({ sites: [site] })));
    expect(f.sites).toEqual([
      { file: "/srv/train.py", line: 9, sizeDiff: 400 * MiB, countDiff: 100, size: 400 * MiB, function: "step" },
    ]);
    expect(f.sitesFrom).toBe("cuda-history");
    const had = gpuLeak(4 * MiB);
    had.sites = [{ file: "/srv/a.py", line: 1, sizeDiff: 1, countDiff: 1, size: 1 }];
    putGpuOom(had, 7, "cuda:0", ctxWith(oom({ sites: [site] })));
    expect(had.sites.map((s) => s.file)).toEqual(["/srv/a.py"]);
  });

  it("another device's error, or another process's: nothing", () => {
    const f = gpuLeak(4 * MiB);
    putGpuOom(f, 7, "cuda:0", ctxWith(oom({ device: "cuda:1" })));
    putGpuOom(f, 8, "cuda:0", ctxWith(oom()));
    expect(f.caveats).toEqual([]);
    expect(f.evidence.oomCause).toBeUndefined();
  });
});
