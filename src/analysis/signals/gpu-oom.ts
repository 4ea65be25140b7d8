/**
 * What a process held on a device at a CUDA out-of-memory error (memleak_gpu_sites.py's observer), put on that
 * device's finding whatever its kind: the request that failed and what was free, the allocator's numbers, and whether
 * the reserve had the room in pieces (more free than asked for, in no block as large: fragmentation, which
 * `expandable_segments:True` answers) or the live tensors had filled the device. The lines of the blocks alive become
 * the finding's sites where none were found otherwise.
 */
import type { GpuOomResult } from "../../agent/agent-results.js";
import type { Context } from "../context.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase } from "../phrases.js";
import { gpuFacts, type GpuSubject } from "./gpu-finding.js";
import { findingSites } from "./gpu-sites.js";

/** Whether the reserve had room for the request, but in no one block (fragmentation), or not (full). */
export const oomCause = (o: GpuOomResult): "fragmented" | "full" =>
  o.freeInReserve >= o.request && o.largestFreeBlock < o.request ? "fragmented" : "full";

export function putGpuOom(f: JudgedFinding, pid: number, device: string, ctx: Context): void {
  const o = ctx.agentResults?.gpuOoms?.get(pid);
  if (!o || o.device !== device || f.subject.type !== "gpu") return;
  const cause = oomCause(o);
  const facts = {
    request: o.request,
    deviceFree: o.deviceFree,
    allocated: o.allocated,
    reserved: o.reserved,
    freeInReserve: o.freeInReserve,
    largestFreeBlock: o.largestFreeBlock,
    cause,
  };
  f.caveats.unshift(phrase("gpu.oom", facts));
  Object.assign(f.evidence, {
    oomRequestBytes: o.request,
    oomDeviceFreeBytes: o.deviceFree,
    oomFreeInReserveBytes: o.freeInReserve,
    oomLargestFreeBlockBytes: o.largestFreeBlock,
    oomCause: cause,
    ...(o.allocated !== undefined && { oomAllocatedBytes: o.allocated }),
    ...(o.reserved !== undefined && { oomReservedBytes: o.reserved }),
  });
  if (!f.sites && o.sites?.length) {
    f.sites = findingSites(o.sites);
    f.sitesFrom = "cuda-history";
  }
  if (cause !== "fragmented") return;
  const who = gpuFacts(f.subject as GpuSubject);
  // A device that ran out with more free in its reserve than was asked for is fragmentation, read at the error, not
  // a trend: a run too short for one (the error ends it), or a reserve that never grew, is still this finding. A leak
  // keeps its kind (it filled the reserve first) and fragmentation its own words.
  if (f.kind !== "leak" && f.kind !== "fragmentation") {
    f.kind = "fragmentation";
    f.metric = "gpu-reserved";
    f.confidence = OOM_FRAGMENTED_CONFIDENCE;
    f.summary = phrase("gpu.oom-fragmentation", { ...who, ...facts });
    f.advice = [];
    // Allocated's trend is not this finding's: its levels and rate would be read as the reserve's.
    delete f.rate;
    for (const key of TREND_KEYS) delete f.evidence[key];
  }
  // The fix for a fragmented reserve is the allocator's setting, whatever else the finding says.
  if (!f.advice.some((p) => p.say === "advice.gpu" && p.facts.variant === "fragmentation"))
    f.advice.push(phrase("advice.gpu", { variant: "oom-fragmented", ...who }));
}

const TREND_KEYS = ["start", "end", "peak", "growth", "slopeBytesPerSecond", "pValue", "noise", "trendOn"];

/** As sure as the other fragmentation read from the allocator's own counters (gpu.ts: retries, split blocks). */
export const OOM_FRAGMENTED_CONFIDENCE = 0.9;
