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
  // The fix for a fragmented reserve is the allocator's setting, whatever else the finding says.
  if (cause === "fragmented" && !f.advice.some((p) => p.say === "advice.gpu" && p.facts.variant === "fragmentation"))
    f.advice.push(phrase("advice.gpu", { variant: "oom-fragmented", ...gpuFacts(f.subject as GpuSubject) }));
}
