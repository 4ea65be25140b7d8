/**
 * A process's sentences about one GPU (analysis/signals/gpu.ts, gpu-driver.ts): "PID n (command) on cuda:0: …"; the
 * short form (the live view's line, which names the process already) keeps the device.
 */
import { formatBytes } from "../../base/units.js";
import { formatRate } from "./numbers.js";
import { heldForGrowingRequests, type GpuFacts, type GpuHeldFacts, type PhraseFacts } from "../../analysis/phrases.js";
import type { Say, Wordings } from "./words.js";

type GpuPhrase = Extract<keyof PhraseFacts, `gpu.${string}`>;

/** The process and device, then what its memory there does. */
const onDevice =
  <N extends Exclude<GpuPhrase, "gpu.driver-counts-all" | "gpu.tensors-grow-too" | `gpu.sites-${string}`>>(
    says: (facts: PhraseFacts[N]) => string,
  ) =>
  (facts: PhraseFacts[N], say: Say): string => {
    const { pid, command, device, source } = facts as GpuFacts;
    const where = source === "driver" ? `GPU ${device}` : device;
    return say.short ? `${where}: ${says(facts)}` : `PID ${pid} (${command}) on ${where}: ${says(facts)}`;
  };

/** What allocated is called: live tensors (the agent's torch numbers), or the process's use (the driver's). */
const what = (f: GpuFacts) => (f.source === "driver" ? "GPU memory used (driver)" : "allocated CUDA memory");

const reservedNote = (reserved: number | undefined) =>
  reserved === undefined ? "" : `, ${formatBytes(reserved)} reserved by the caching allocator`;

/** Why what the allocator holds is more than slack (signals/gpu.ts heldWhy). */
function heldSince(f: GpuHeldFacts): string {
  switch (f.why) {
    case "fell":
      return `allocated came down from ${formatBytes(f.highest)} to ${formatBytes(f.allocated)}`;
    case "peak":
      return `allocated reached ${formatBytes(f.highest)} between two readings (the allocator's peak) and is ${formatBytes(f.allocated)} now`;
    case "reserve-grows":
      return "the reserve grew while allocated did not";
    case "reserve-outgrows":
      return `the reserve grew by ${formatBytes(f.reserveGrowth ?? 0)} while allocated grew by ${formatBytes(f.allocatedGrowth ?? 0)}`;
    case "retries":
      return `the allocator had to free its cache and retry a cudaMalloc ${f.retries} time${f.retries === 1 ? "" : "s"}`;
  }
}

function held(f: GpuHeldFacts): string {
  return `${heldSince(f)}; ${formatBytes(f.reserved)} reserved for ${formatBytes(f.allocated)} allocated`;
}

export const GPU_WORDS: Wordings<GpuPhrase> = {
  "gpu.insufficient": onDevice<"gpu.insufficient">((f) => `not enough data (${f.reason ?? "too few readings"})`),
  "gpu.leak": onDevice<"gpu.leak">(
    (f) =>
      `${what(f)} grows steadily: ${formatBytes(f.start)} → ${formatBytes(f.end)} at ${formatRate(f.rate)}, no sign of levelling off${reservedNote(f.reserved)}`,
  ),
  "gpu.retention": onDevice<"gpu.retention">(
    (f) =>
      `the caching allocator keeps ${formatBytes(f.held)} of freed blocks (${held(f)}): ${heldForGrowingRequests(f.why) ? "too small for its ever larger requests" : "reusable by this process"}, not a leak`,
  ),
  "gpu.fragmentation": onDevice<"gpu.fragmentation">(
    (f) =>
      `the caching allocator holds ${formatBytes(f.held)} beyond live tensors, ${formatBytes(f.split)} of it in inactive split blocks that empty_cache() cannot release (${held(f)})${f.ooms ? `; ${f.ooms} out-of-memory error${f.ooms === 1 ? "" : "s"}` : ""}`,
  ),
  "gpu.plateau": onDevice<"gpu.plateau">(
    (f) => `${what(f)} grew by ${formatBytes(f.growth)}, then levelled off at ${formatBytes(f.end)}`,
  ),
  "gpu.stable": onDevice<"gpu.stable">(
    (f) => `${what(f)} is stable: ${formatBytes(f.start)} → ${formatBytes(f.end)}${reservedNote(f.reserved)}`,
  ),
  "gpu.tensors-grow-too": (f) =>
    `live tensors grow too, far slower than the reserve (${formatBytes(f.start)} → ${formatBytes(f.end)} at ${formatRate(f.rate)}): if they still grow once the reserve holds still, that is a leak`,
  "gpu.outside-grows": onDevice<"gpu.outside-grows">(
    (f) =>
      `GPU memory outside PyTorch's caching allocator grows: ${formatBytes(f.start)} → ${formatBytes(f.end)} at ${formatRate(f.rate)}, no sign of levelling off: what the driver counts for the process on GPU ${f.driverGpu} beyond the allocator's reserve`,
  ),
  "gpu.oom": (f) => {
    const held =
      f.reserved !== undefined
        ? `PyTorch held ${formatBytes(f.reserved)}${f.allocated !== undefined ? `, ${formatBytes(f.allocated)} of it in live tensors` : ""}; `
        : "";
    const free = `${formatBytes(f.freeInReserve)} of its reserve was free`;
    const cause =
      f.cause === "fragmented"
        ? `${free}, but in blocks of at most ${formatBytes(f.largestFreeBlock)}: fragmentation (the request fit in what was free, not in any one block)`
        : `${free}${f.freeInReserve > 0 ? `, its largest block ${formatBytes(f.largestFreeBlock)}` : ""}: the live tensors had filled the device`;
    return `at the CUDA out-of-memory error, a request of ${formatBytes(f.request)} failed with ${formatBytes(f.deviceFree)} free on the device: ${held}${cause}`;
  },
  "gpu.oom-fragmentation": onDevice<"gpu.oom-fragmentation">(
    (f) =>
      `ran out of memory with ${formatBytes(f.freeInReserve)} free in PyTorch's reserve: a request of ${formatBytes(f.request)} fit in no free block (the largest ${formatBytes(f.largestFreeBlock)}), fragmentation`,
  ),
  "gpu.sites-none": (f) =>
    `memleak recorded the caching allocator's history for ${f.seconds} s: no block allocated on ${f.device} in that window was still alive at its end, so the lines of this leak were not found (it may grow in bursts, or between windows)`,
  "gpu.sites-not-recorded": (f) =>
    `memleak could not record where the CUDA memory was allocated (${f.why}): that needs PyTorch 2.1 or later`,
  "gpu.driver-counts-all": () =>
    "the driver's number holds the CUDA context and the framework's cache as well as live arrays: growth there may be a cache that grows (memleak's agent tells them apart for PyTorch)",
};
