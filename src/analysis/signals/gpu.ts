/**
 * One process's memory on one CUDA device → one finding (subject type "gpu"). The rule chain, first definite answer
 * wins, with the same statistics as the host's (assess.ts on the allocated bytes):
 *   too little data                                                        → insufficient-data
 *   allocated grows and has not levelled off: tensors kept alive            → leak
 *   the allocator holds much more than is allocated (GPU_HELD_MIN_BYTES, GPU_HELD_SHARE of reserved), and either
 *   allocated came down from a higher level and stays there, or reserved grows while allocated does not, or the
 *   allocator has had to free its cache and retry a cudaMalloc in the window:
 *       most of what it holds is in inactive split blocks (GPU_SPLIT_COVERS) → fragmentation (the OOM-with-free-
 *                                                                              memory case: empty_cache cannot help)
 *       otherwise                                                          → fragmentation, as retention: reusable
 *                                                                              by this process, not by others
 *   allocated grew then levelled off / one step                            → plateau
 *   otherwise                                                              → stable
 * A steady training loop's reserve is its own working set: its allocated level does not fall, its reserve does not
 * grow, its allocator never retries, so it is stable however far reserved is above what a sample caught allocated.
 * Without the agent the driver's per-process number (gpu-driver.ts) is judged for growth only.
 */
import { assess, stoppedAt, stoppedGrowth, type Assessment } from "../assess.js";
import type { Context } from "../context.js";
import { confidenceFromP, growthConfidence, stableConfidence, trendEvidence } from "../evidence.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase, type GpuFacts, type Phrase } from "../phrases.js";
import type { ProcessSeries, SeriesSet } from "../series.js";
import type { MetricName, Subject } from "../types.js";
import { cudaLabel, gpuDevices, gpuFieldName, type GpuField } from "../../agent/gpu-fields.js";
import { gpuState, type GpuColumns, type GpuState } from "./gpu-state.js";

/**
 * The allocator must hold at least 256 MiB more than is allocated for retention or fragmentation to be worth a
 * finding. PyTorch's caching allocator rounds large requests to 2 MiB and carves them from segments of at least
 * 20 MiB (kLargeBuffer, c10/cuda/CUDACachingAllocator.cpp), and keeps the last of each size it freed: a dozen
 * segments of ordinary slack is a few hundred MiB on any model. A trade-off not yet measured on a real GPU.
 * Boundary tests: rules/gpu.test.ts (240 / 270 MiB).
 */
export const GPU_HELD_MIN_BYTES = 256 * 2 ** 20;
/** …and at least a quarter of what it reserved: less is slack around a working set, whatever its size. Boundary tests: 22% / 28%. */
export const GPU_HELD_SHARE = 0.25;
/**
 * Allocated must have come down from its highest level by at least this share of what is held, for the reserve to be
 * what an earlier, larger working set left behind (retention) rather than a loop's own peaks. Half: a loop sampled
 * at random phases moves its tenths' medians by a small part of its swing. Boundary tests: 40% / 60%.
 */
export const GPU_FELL_SHARE = 0.5;
/**
 * Inactive split bytes must be at least half of what is held for it to be fragmentation: then most of the reserve
 * sits in segments pinned by live blocks, which empty_cache() cannot release and a larger request cannot use.
 * Boundary tests: 45% / 55%.
 */
export const GPU_SPLIT_COVERS = 0.5;

const FIELDS: Record<keyof GpuColumns, GpuField> = {
  allocated: "Allocated",
  reserved: "Reserved",
  active: "Active",
  inactiveSplit: "InactiveSplit",
  allocRetries: "AllocRetries",
  ooms: "Ooms",
};

function columnsOf(ps: ProcessSeries, device: number): GpuColumns | undefined {
  const col = (f: GpuField) => ps.agent[`gpu.${gpuFieldName(device, f)}`];
  const allocated = col("Allocated");
  if (!allocated || allocated.length === 0) return undefined;
  return Object.fromEntries(Object.entries(FIELDS).map(([k, f]) => [k, col(f)])) as unknown as GpuColumns;
}

export function gpuSubject(ps: ProcessSeries, command: string, device: string, source: "torch" | "driver"): Subject & { type: "gpu" } {
  return { type: "gpu", pid: ps.pid, starttime: ps.starttime, command, device, source };
}

export function gpuFinding(subject: Subject & { type: "gpu" }, kind: JudgedFinding["kind"], metric: MetricName, a: Assessment, summary: Phrase, confidence: number, advice: Phrase[]): JudgedFinding {
  return { kind, confidence, subject, pid: subject.pid, metric, rate: a.rate, summary, evidence: { device: subject.device, source: subject.source, ...trendEvidence(a) }, advice, caveats: [] };
}

/** Where a device's series is judged from: the analysis window, or its first reading when CUDA came up later. */
export const gpuFrom = (first: number | undefined, ctx: Context) => Math.max(ctx.from, first ?? 0);

/** The GPU findings of every process of the set (`commandOf`: its command as subjects show it). */
export function judgeGpus(set: SeriesSet, ctx: Context, commandOf: (ps: ProcessSeries) => string): JudgedFinding[] {
  return [...set.processes.values()].flatMap((ps) => analyzeGpus(ps, commandOf(ps), ctx));
}

/** One finding per CUDA device the process's agent reported. */
export function analyzeGpus(ps: ProcessSeries, command: string, ctx: Context): JudgedFinding[] {
  return gpuDevices(Object.keys(ps.agent)).flatMap((device) => {
    const cols = columnsOf(ps, device);
    if (!cols) return [];
    const subject = gpuSubject(ps, command, cudaLabel(device), "torch");
    const first = cols.allocated.xs[0];
    const from = gpuFrom(first, ctx);
    const a = assess(cols.allocated, from, first ?? from);
    // The state over the whole series: a reserve left behind by a load that the warm-up cut is still held.
    return [decideGpu(subject, a, gpuState(cols, first ?? from), cols)];
  });
}

/** Why the allocator's reserve is more than slack, when it is: the facts retention and fragmentation rest on. */
function heldWhy(s: GpuState, cols: GpuColumns, a: Assessment, from: number): "fell" | "reserve-grows" | "retries" | undefined {
  if (s.held === undefined || s.reserved === undefined) return undefined;
  if (s.held < GPU_HELD_MIN_BYTES || s.held < GPU_HELD_SHARE * s.reserved) return undefined;
  if (s.fell >= GPU_FELL_SHARE * s.held) return "fell";
  if ((s.retries ?? 0) > 0) return "retries";
  if (cols.reserved && a.shape !== "growing" && assess(cols.reserved, from).shape === "growing") return "reserve-grows";
  return undefined;
}

function decideGpu(subject: Subject & { type: "gpu" }, a: Assessment, s: GpuState, cols: GpuColumns): JudgedFinding {
  const who: GpuFacts = { pid: subject.pid, command: subject.command, device: subject.device, source: subject.source };
  const from = a.from;
  const why = a.shape === "insufficient" ? undefined : heldWhy(s, cols, a, from);
  let f: JudgedFinding;
  if (a.shape === "insufficient") {
    f = gpuFinding(subject, "insufficient-data", "gpu-allocated", a, phrase("gpu.insufficient", { ...who, reason: a.reason }), 0, [phrase("advice.insufficient-data", { reason: a.reason })]);
  } else if (a.shape === "growing") {
    const facts = { ...who, start: a.start, end: a.end, rate: a.rate, reserved: s.reserved };
    f = gpuFinding(subject, "leak", "gpu-allocated", a, phrase("gpu.leak", facts), growthConfidence(a), [phrase("advice.gpu", { variant: "leak", ...who })]);
    f.evidence.layer = "CUDA tensors";
  } else if (why) {
    const split = (s.split ?? 0) >= GPU_SPLIT_COVERS * s.held!;
    const facts = { ...who, allocated: s.allocated, reserved: s.reserved!, held: s.held!, split: s.split, highest: s.highest, why, retries: s.retries, ooms: s.ooms };
    f = gpuFinding(
      subject,
      "fragmentation",
      "gpu-reserved",
      a,
      phrase(split ? "gpu.fragmentation" : "gpu.retention", facts),
      why === "retries" || split ? 0.9 : 0.8,
      [phrase("advice.gpu", { variant: split ? "fragmentation" : "retention", ...who, held: s.held!, split: s.split })],
    );
    f.evidence.gpuHeldAs = split ? "inactive-split" : "cached";
  } else if (a.shape === "plateau" || a.shape === "step") {
    const growth = stoppedGrowth(a);
    const levelFrom = stoppedAt(a);
    f = gpuFinding(subject, "plateau", "gpu-allocated", a, phrase("gpu.plateau", { ...who, growth, end: a.end }), confidenceFromP(a.plateau?.p ?? a.p), [phrase("advice.plateau", { growth, level: a.end, levelFrom })]);
    if (levelFrom !== undefined) f.evidence.levelFromSeconds = Number(levelFrom.toFixed(1));
  } else {
    const advice = phrase("advice.stable", { subject: "gpu", metric: "gpu-allocated", growth: a.growth, seconds: a.to - a.from, noise: a.plateau?.noise });
    f = gpuFinding(subject, "stable", "gpu-allocated", a, phrase("gpu.stable", { ...who, start: a.start, end: a.end, reserved: s.reserved }), stableConfidence(a.to - a.from), [advice]);
  }
  Object.assign(f.evidence, stateEvidence(s));
  return f;
}

/** The allocator's numbers at the end, for every GPU finding. */
function stateEvidence(s: GpuState): Record<string, number> {
  const e: Record<string, number> = { allocatedBytes: Math.round(s.allocated) };
  if (s.reserved !== undefined) e.reservedBytes = Math.round(s.reserved);
  if (s.held !== undefined) e.heldBytes = Math.round(s.held);
  if (s.split !== undefined) e.inactiveSplitBytes = Math.round(s.split);
  if (s.active !== undefined) e.activeBytes = Math.round(s.active);
  if (s.fell > 0) e.allocatedFellBytes = Math.round(s.fell);
  if (s.retries !== undefined) e.allocRetries = s.retries;
  if (s.ooms !== undefined) e.outOfMemoryErrors = s.ooms;
  return e;
}
