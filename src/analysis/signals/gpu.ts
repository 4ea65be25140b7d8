/**
 * One process's memory on one CUDA device → one finding (subject type "gpu"). The rule chain, first definite answer
 * wins, with the same statistics as the host's (assess.ts on the allocated bytes):
 *   too little data                                                        → insufficient-data
 *   allocated grows and has not levelled off: tensors kept alive            → leak, unless the reserve grows
 *       GPU_RESERVE_OUTGROWS times as much over the window as allocated and as the allocator's peak, and the
 *       allocator holds much more than is allocated:
 *       shapes that grow, each step's blocks too large for any it cached    → fragmentation, as retention, with
 *                                                                              the tensors' own growth as a caveat
 *   the allocator holds much more than is allocated (GPU_HELD_MIN_BYTES, GPU_HELD_SHARE of reserved), and either
 *   allocated came down from a higher level and stays there, or the allocator's own peak rose far above a running
 *   loop's between two readings and allocated stayed where it was (gpu-state.ts peakRise), or reserved grows while
 *   allocated does not, or the allocator has had to free its cache and retry a cudaMalloc in the window:
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
import { assess, levelChange, type Assessment } from "../assess.js";
import type { Context } from "../context.js";
import { growthConfidence } from "../evidence.js";
import type { JudgedFinding } from "../judgement.js";
import { heldForGrowingRequests, phrase, type GpuHeldFacts } from "../phrases.js";
import type { ProcessSeries, SeriesSet } from "../../series/series.js";
import { gpuFacts, gpuFinding, gpuSubject, shapeFinding, type GpuSubject } from "./gpu-finding.js";
import { gpuFieldName, type GpuField } from "../../sampling/gpu-fields.js";
import type { Column } from "../../series/column.js";
import { processGpuSeries } from "../../series/gpu-series.js";
import { decideDriver } from "./gpu-driver.js";
import { gpuState, type GpuColumns, type GpuState } from "./gpu-state.js";
import { CUDA_TENSORS, putGpuHolder } from "./holder.js";
import { putGpuSites } from "./gpu-sites.js";
import { judgeOutside } from "./gpu-outside.js";
import { putGpuOom } from "./gpu-oom.js";

/**
 * The allocator must hold at least 256 MiB more than is allocated for retention or fragmentation to be worth a
 * finding. PyTorch's caching allocator rounds large requests to 2 MiB and carves them from segments of at least
 * 20 MiB (kLargeBuffer, c10/cuda/CUDACachingAllocator.cpp), and keeps the last of each size it freed: a dozen
 * segments of ordinary slack is a few hundred MiB on any model. On an H200 (fixtures/gpu/recordings/cuda_steady),
 * a steady loop of a 64 MiB model held 93 MiB beside 333 MiB allocated; the evaluation pass and the growing shapes
 * left 3.1 and 4.3 GiB.
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
 * …and by at least this many noise widths of allocated (gpu-state.ts: the readings' spread around their tenths'
 * medians): with a tenth of 3 readings, the highest median of a loop swinging between 1 and 3 GiB lands up to 1.4 GiB
 * above its last (a 14 s run at 2 Hz under `memleak run`, test/e2e/gpu.test.ts), while a level that came down and
 * stayed has next to no spread. The same multiple for the best one change of level over the window against the
 * noise it leaves (cameDown): the tenths' medians alone called a loop swinging between 1 and 3 GiB, read 28 times at
 * random phases, a fall in 33% of windows (uniform swing; 17% for Gaussian noise), with the one change 0.4% (0.1%),
 * while a level 5 noise widths down is still found in 99.7% (simulated, 2,000 windows each). 3, the project's usual
 * multiple for "clear of the noise" (stats/shape.ts).
 * Boundary tests: rules/gpu.test.ts (falls of 2.6 / 3.4 noise widths as estimated), gpu-decide.test.ts (the change).
 */
export const GPU_FELL_NOISE_MULTIPLE = 3;
/**
 * Inactive split bytes must be at least half of what is held for it to be fragmentation: then most of the reserve
 * sits in segments pinned by live blocks, which empty_cache() cannot release and a larger request cannot use.
 * Boundary tests: 45% / 55%.
 */
export const GPU_SPLIT_COVERS = 0.5;
/**
 * A reserve that grows at least this many times as much as allocated over the window is the allocator's doing, even
 * while allocated grows too. On an H200 (fixtures/gpu/recordings, PyTorch 2.11; an H100 gave the same before): tensors
 * kept each step grew the reserve with them (1.15 GiB reserved for 1.07 GiB allocated at the end; ~1×), or not at all
 * inside a cached reserve (0×); sequences 16 positions longer each step grew it by 4.3 GiB while the batch held between
 * steps grew allocated by 71 MiB (60×) and the step's peak by ~450 MiB (9.5×); with expandable_segments:True the same
 * program's reserve grew 610 MiB beside a peak that grew ~500 MiB (1.2×). 4: clear of all of them. Boundary tests:
 * gpu-decide.test.ts (3.5× / 4.5×).
 */
export const GPU_RESERVE_OUTGROWS = 4;

const FIELDS: Record<keyof GpuColumns, GpuField> = {
  allocated: "Allocated",
  allocatedPeak: "AllocatedPeak",
  reserved: "Reserved",
  active: "Active",
  inactiveSplit: "InactiveSplit",
  allocRetries: "AllocRetries",
  ooms: "Ooms",
};

function columnsOf(ps: ProcessSeries, index: number, allocated: Column): GpuColumns {
  const col = (f: GpuField) => ps.agent[`gpu.${gpuFieldName(index, f)}`];
  return {
    ...(Object.fromEntries(Object.entries(FIELDS).map(([k, f]) => [k, col(f)])) as unknown as GpuColumns),
    allocated,
  };
}

/** The GPU findings of every process of the set (`commandOf`: its command as subjects show it). */
export function judgeGpus(set: SeriesSet, ctx: Context, commandOf: (ps: ProcessSeries) => string): JudgedFinding[] {
  return [...set.processes.values()].flatMap((ps) => {
    const devices = analyzeGpus(ps, commandOf(ps), ctx);
    // What the driver counts beyond the allocator's reserve: a number on the device's finding, a finding if it grows.
    const outside = judgeOutside(ps, commandOf(ps), ctx, devices);
    return outside ? [...devices, outside] : devices;
  });
}

/** One finding per GPU series of the process (gpu-series.ts): the agent's devices, or else the driver's. */
export function analyzeGpus(ps: ProcessSeries, command: string, ctx: Context): JudgedFinding[] {
  return processGpuSeries(ps).map((g) => {
    const subject = gpuSubject(ps, command, g.device, g.source);
    // From the analysis window, or from the device's first reading when CUDA came up later.
    const first = g.col.xs[0];
    const from = Math.max(ctx.from, first ?? 0);
    const a = assess(g.col, from, first ?? from);
    if (g.index === undefined) return decideDriver(subject, a);
    const cols = columnsOf(ps, g.index, g.col);
    // The state over the whole series: a reserve left behind by a load that the warm-up cut is still held.
    const f = decideGpu(subject, a, gpuState(cols, first ?? from), cols);
    // The lines that allocated what it keeps, where the agent recorded the allocator's history (on any finding of the
    // device: the window ran because its floor rose); on a leak, the container the census saw grow, where its items'
    // tensors are on this device.
    putGpuSites(f, ps.pid, g.device, ctx);
    if (f.kind === "leak") putGpuHolder(f, ps.pid, g.device, ctx);
    // What it held when the device ran out, whatever the finding (a short run that ended in the error too).
    putGpuOom(f, ps.pid, g.device, ctx);
    return f;
  });
}

type HeldWhy = GpuHeldFacts["why"];

/** Whether the allocator holds enough beyond live tensors for retention or fragmentation to be worth a finding. */
const holdsMuch = (s: GpuState) =>
  s.held !== undefined &&
  s.reserved !== undefined &&
  s.held >= GPU_HELD_MIN_BYTES &&
  s.held >= GPU_HELD_SHARE * s.reserved;

/** Why the allocator's reserve is more than slack, when it is: the facts retention and fragmentation rest on. */
function heldWhy(s: GpuState, reserve: Assessment | undefined): HeldWhy | undefined {
  if (!holdsMuch(s)) return undefined;
  const held = s.held!;
  if (cameDown(s, held)) return "fell";
  if (peakCameAndWent(s, held)) return "peak";
  if ((s.retries ?? 0) > 0) return "retries";
  if (reserve?.shape === "growing") return "reserve-grows";
  return undefined;
}

/**
 * Allocated came down from its highest tenth by half of what is held, clear of the noise around the tenths, and the
 * best one change of its level over the window came down clear of the noise that change leaves (gpu-state.ts drop):
 * a loop's swing read at random phases can put one tenth's median far above the last, never one level above another.
 */
function cameDown(s: GpuState, held: number): boolean {
  return (
    s.fell >= GPU_FELL_SHARE * held &&
    s.fell >= GPU_FELL_NOISE_MULTIPLE * s.noise &&
    s.drop.by >= GPU_FELL_NOISE_MULTIPLE * s.drop.noise
  );
}

/**
 * The allocator's peak rose by half of what it holds above a running loop's (gpu-state.ts peakRise), the peak stands
 * that far and 3 widths of the loop's swing above allocated's level now, and allocated did not come up with it (by
 * less than half the rise): a larger working set came and went between readings, and its blocks are what the
 * allocator holds. The loop's swing is the larger of the noise around the tenths and around the best one change of
 * level: with 3 readings a tenth the first can be a third of a swing's width (the stand-in's steady loop, its peak
 * a running maximum that rose 3.5 s in, was retention on both devices by the tenths' noise alone). And the peak stands
 * that far above allocated's highest reading too: a working set that came and went *between* readings is in none of
 * them, where a loop whose steps reach their top now and then is read at its top sooner or later (the stand-in's
 * steady loop, under load in CI on 6304a83: its peak 2.89 GiB, a reading of its own top step, called retention when
 * the loop ended low and too few readings made its swing look narrow).
 */
function peakCameAndWent(s: GpuState, held: number): boolean {
  const p = s.peak;
  if (!p) return false;
  const rise = p.highest - p.before;
  const above = p.highest - s.allocated;
  return (
    rise >= GPU_FELL_SHARE * held &&
    above >= GPU_FELL_SHARE * held &&
    above >= GPU_FELL_NOISE_MULTIPLE * Math.max(s.noise, s.drop.noise) &&
    p.highest - s.highestReading >= GPU_FELL_SHARE * held &&
    s.allocated - p.allocatedBefore < GPU_FELL_SHARE * rise
  );
}

/**
 * Allocated grows, and the reserve GPU_RESERVE_OUTGROWS times as much over the same window, and as much beside the
 * allocator's peak (when read): its growth, or undefined. The peak is the working set of a step; a reserve that only
 * keeps up with a growing working set (segments that grow in place, expandable_segments:True, on the H200:
 * reserved 742 MiB for a peak of 622 MiB, both growing ~14 MiB/s) holds nothing it cannot use.
 */
function reserveOutgrows(s: GpuState, cols: GpuColumns, a: Assessment): number | undefined {
  if (!holdsMuch(s)) return undefined;
  const grew = levelChange(cols.reserved, a.from);
  const tensors = Math.max(0, a.growth, levelChange(cols.allocatedPeak, a.from) ?? 0);
  return grew !== undefined && grew >= GPU_RESERVE_OUTGROWS * tensors ? grew : undefined;
}

function decideGpu(subject: GpuSubject, a: Assessment, s: GpuState, cols: GpuColumns): JudgedFinding {
  const who = gpuFacts(subject);
  // The reserve's own assessment, made once: a reason to call it held (heldWhy) and, when there is one, the trend of
  // the finding, which is about the reserve. Every reason needs the allocator to hold much (holdsMuch).
  const reserve = cols.reserved && holdsMuch(s) ? assess(cols.reserved, a.from) : undefined;
  const outgrown = a.shape === "growing" ? reserveOutgrows(s, cols, a) : undefined;
  const why: HeldWhy | undefined =
    outgrown !== undefined
      ? "reserve-outgrows"
      : a.shape === "insufficient" || a.shape === "growing"
        ? undefined
        : heldWhy(s, reserve);
  let f: JudgedFinding;
  if (why) {
    const split = (s.split ?? 0) >= GPU_SPLIT_COVERS * s.held!;
    const facts: GpuHeldFacts & typeof who = {
      ...who,
      allocated: s.allocated,
      reserved: s.reserved!,
      held: s.held!,
      split: s.split,
      highest: why === "peak" ? s.peak!.highest : s.highest,
      why,
      retries: s.retries,
      ooms: s.ooms,
      ...(outgrown !== undefined ? { reserveGrowth: outgrown, allocatedGrowth: a.growth } : {}),
    };
    const advice = phrase("advice.gpu", {
      variant: split ? "fragmentation" : heldForGrowingRequests(why) ? "reserve-grows" : "retention",
      ...who,
      held: s.held!,
      split: s.split,
    });
    // The finding is about the reserve (gpu-reserved): its trend and rate are the reserve's, not allocated's.
    f = gpuFinding(
      subject,
      "fragmentation",
      "gpu-reserved",
      reserve ?? a,
      phrase(split ? "gpu.fragmentation" : "gpu.retention", facts),
      why === "retries" || split ? 0.9 : 0.8,
      [advice],
    );
    f.evidence.gpuHeldAs = split ? "inactive-split" : "cached";
    if (outgrown !== undefined) {
      f.caveats.push(phrase("gpu.tensors-grow-too", { start: a.start, end: a.end, rate: a.rate }));
      f.evidence.reserveGrowthBytes = Math.round(outgrown);
    }
    if (why === "peak") f.evidence.allocatedPeakBytes = Math.round(s.peak!.highest);
  } else if (a.shape === "growing") {
    const facts = { ...who, start: a.start, end: a.end, rate: a.rate, reserved: s.reserved };
    f = gpuFinding(subject, "leak", "gpu-allocated", a, phrase("gpu.leak", facts), growthConfidence(a), [
      phrase("advice.gpu", { variant: "leak", ...who }),
    ]);
    f.evidence.layer = CUDA_TENSORS;
  } else {
    f = shapeFinding(subject, "gpu-allocated", a, s.reserved);
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
