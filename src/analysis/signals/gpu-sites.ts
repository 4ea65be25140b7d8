/**
 * Where a GPU leak was allocated: the agent's one window of the caching allocator's history in that process
 * (memleak_gpu_sites.py), put on the device's leak finding as its allocation sites (the lines of the program whose
 * blocks were allocated in the window and still alive at its end), with what the window cost the program's steps.
 * A window that found nothing on this device, or could not be recorded, is said in a note on a leak: never dropped.
 * On the device's other findings (the floor rose, then the finding was a plateau, or the reserve outgrew growing
 * requests) the lines found are kept too, and nothing is said of a window that found none.
 */
import type { GpuDeviceSites, GpuSite } from "../../agent/agent-results.js";
import type { Context } from "../context.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase } from "../phrases.js";

export function putGpuSites(f: JudgedFinding, pid: number, device: string, ctx: Context): void {
  const r = ctx.agentResults?.gpuSites?.get(pid);
  if (!r) return;
  const leak = f.kind === "leak";
  if (r.why !== undefined) {
    if (leak) f.caveats.push(phrase("gpu.sites-not-recorded", { why: r.why }));
    return;
  }
  const seconds = r.seconds ?? 0;
  const d = r.devices.find((x) => x.device === device);
  if (!d || d.sites.length === 0) {
    if (leak) f.caveats.push(phrase("gpu.sites-none", { device, seconds }));
    return;
  }
  f.sites = findingSites(d.sites);
  f.sitesFrom = "cuda-history";
  Object.assign(f.evidence, windowEvidence(d, seconds));
  // The general advice's way to find the lines (a snapshot read by hand) is what was just done: replaced.
  f.advice = f.advice.map((p) =>
    p.say === "advice.gpu" && p.facts.variant === "leak"
      ? phrase("advice.gpu", { ...p.facts, variant: "leak-sites" })
      : p,
  );
}

/** The agent's GPU sites as a finding's: each line's bytes and blocks alive, its function, the library frame. */
export function findingSites(sites: readonly GpuSite[]): NonNullable<JudgedFinding["sites"]> {
  return sites.map((s) => ({
    file: s.file,
    line: s.line,
    sizeDiff: s.size,
    countDiff: s.count,
    size: s.size,
    ...(s.name !== "" && { function: s.name }),
    ...(s.via !== undefined && { via: s.via }),
  }));
}

/** The window's numbers: how long, what it found alive, and the program's allocation requests a second around it. */
function windowEvidence(d: GpuDeviceSites, seconds: number): Record<string, number> {
  const e: Record<string, number> = {
    gpuHistorySeconds: seconds,
    gpuHistoryBlocks: d.blocks,
    gpuHistoryBytes: d.bytes,
  };
  if (d.requestsPerSecondBefore !== undefined) e.gpuRequestsPerSecondBefore = d.requestsPerSecondBefore;
  if (d.requestsPerSecondDuring !== undefined) e.gpuRequestsPerSecondDuring = d.requestsPerSecondDuring;
  return e;
}
