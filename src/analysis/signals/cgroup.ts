/**
 * The memory cgroup: what the container dashboard and the OOM killer see. When its usage grows, memory.stat says
 * where: page cache (file − shmem), kernel memory (slab, stacks, page tables), shmem, or anon. Compared with what
 * the processes' PSS did over the same window, that separates a cgroup accounting artefact (the cgroup grows, the
 * processes do not) from growth the processes explain.
 */
import { assess, endLevel, levelChange, levels, minGrowth, type Assessment } from "../assess.js";
import type { Context } from "../context.js";
import { growthConfidence, trendEvidence } from "../evidence.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase, type ArtefactFacts, type CgroupUsageFacts } from "../phrases.js";
import { sliceByTime } from "../stats/window.js";
import type { SeriesSet } from "../../series/series.js";
import type { Finding, Subject } from "../types.js";
import { treeMetric } from "./tree.js";
import { setMappedFilesText } from "./mapped.js";
import { withoutOwnArrivals, type OwnArrival } from "./own-footprint.js";
import { plateauParts, stableParts } from "./level-findings.js";

/**
 * Share of the usage growth that cache + kernel must account for, and the most the processes' Σ PSS may, for an
 * artefact. Measured by scripts/threshold-margins.mjs on fixtures/recordings and fixtures/calibration/recordings: the
 * artefacts (log_page_cache, torch_child_exits, also under load) have cache + kernel at 1.00 of the growth and the
 * processes at 0.00; mixed_cache_minor (an anon leak beside a log) 0.37 and 0.60, and torch_losses_item 0.27 and
 * 0.93, are on the other side; mixed_cache_major (0.76 and 0.24) is an artefact at the cgroup while its process's own
 * leak is the verdict. 0.6 / 0.3 sit in the middle of the gap, and must between them leave no growth unexplained:
 * cache + kernel the clear majority, the processes a clear minority.
 */
export const ARTEFACT_EXPLAINED = 0.6;
export const ARTEFACT_PROCESS_SHARE = 0.3;
/**
 * The usage's level change (the tenths' medians memory.stat's parts are compared by) must be at least this share of
 * the growth judged for the parts to say where it went: found on the lows under swings, the growth can be +15 MiB
 * where the levels fell. Half: the levels of a steady climb are its whole growth. On a real recording: swings-cgroup.test.ts.
 */
export const LEVELS_SHOW_SHARE = 0.5;

/**
 * Shared memory (tmpfs, /dev/shm: DataLoader batches, multiprocessing queues) that is half or more of the growth
 * names it: then it is the largest part, and unlike page cache it is not reclaimable. No recording grows shmem yet;
 * boundary tests: rules/cgroup.test.ts (45% → anon, 55% → shmem).
 */
export const SHMEM_SHARE = 0.5;

/**
 * Page-cache growth is named as the processes' mapped files when their resident file-backed pages grew by at least
 * half as much: then the cache is mostly what they map (a model, a dataset), not files written or read with read().
 * Measured on fixtures/recordings: mmap_model_load maps 0.98 of its cache growth, log_page_cache 0.00,
 * torch_child_exits 0.00 (its child unmapped the libraries when it exited). Boundary tests: rules/cgroup.test.ts.
 */
export const MAPPED_SHARE = 0.5;

/**
 * An artefact's confidence: 0.5 + 0.49 × the share cache and kernel explain (0.99 when they explain all of it). A
 * share below 0 (anon fell further than cache did, the second artefact rule) counts as none: a confidence is never
 * below 0.5 for a finding made, and never negative (the schema's floor; seen in a container whose anon fell).
 */
export const artefactConfidence = (share: number) =>
  Number(Math.min(0.99, 0.5 + 0.49 * Math.min(1, Math.max(0, share))).toFixed(2));

export interface CgroupBreakdownChange {
  usage: number;
  anon: number | undefined;
  /** Page cache without shmem: what reclaim can drop. */
  cache: number | undefined;
  shmem: number | undefined;
  kernel: number | undefined;
  processes: number | undefined;
  /** Σ RssFile of the processes: the page cache they have mapped (a shared page counts once per process). */
  mapped: number | undefined;
  workingSet: number | undefined;
}

/** @param usageCol the usage judged (memleak's agents taken out), when it is not the raw column */
export function breakdownChange(
  set: SeriesSet,
  a: Assessment,
  from: number,
  usageCol = set.cgroup.cgroup,
): CgroupBreakdownChange {
  const c = set.cgroup;
  const file = levelChange(c["cgroup-file"], from);
  const shmem = levelChange(c["cgroup-shmem"], from);
  return {
    usage: levelChange(usageCol, from) ?? a.growth,
    anon: levelChange(c["cgroup-anon"], from),
    cache: file === undefined ? undefined : file - (shmem ?? 0),
    shmem,
    kernel: levelChange(c["cgroup-kernel"], from),
    processes: levelChange(set.tree[treeMetric(set)], from),
    mapped: levelChange(set.tree.file, from),
    workingSet: levelChange(c["working-set"], from),
  };
}

/** @param own what memleak's agents added to the watched processes (`watch`): judged without it. */
export function analyzeCgroup(
  set: SeriesSet,
  subject: Subject & { type: "cgroup" },
  ctx: Context,
  own: readonly OwnArrival[] = [],
): JudgedFinding | undefined {
  const raw = set.cgroup.cgroup;
  if (!raw) return undefined;
  const col = own.length > 0 ? withoutOwnArrivals(raw, own) : raw;
  const a = assess(col, ctx.from, 0, ctx.programStart);
  const base = cgroupBase(set, subject, a, own);
  const usage: CgroupUsageFacts = { start: a.start, end: a.end, agentsTakenOut: own.length > 0 };
  if (a.shape === "insufficient") return insufficientCgroup(base, subject, a);
  if (a.shape !== "growing" && a.shape !== "plateau" && a.shape !== "step") return stableCgroup(base, a, usage);

  const from = a.shape === "growing" ? ctx.from : 0;
  const d = breakdownChange(set, a, from, col);
  // Found on the lows (stats/envelope.ts), the growth is the lows'; the tenths' medians land anywhere in a swing.
  const growth = Math.max(a.envelope ? Math.max(a.growth, d.usage) : d.usage, 1);
  Object.assign(base.evidence, breakdownEvidence(set, d));

  const cacheLike = (d.cache ?? 0) + (d.kernel ?? 0);
  const processShare = d.processes === undefined ? 0 : d.processes / growth;
  if (cacheLike >= ARTEFACT_EXPLAINED * growth && processShare <= ARTEFACT_PROCESS_SHARE) {
    return artefact(set, base, d, from, cacheLike / growth);
  }
  if ((d.shmem ?? 0) >= SHMEM_SHARE * growth) return shmemGrowth(base, a, d);
  // A leak grows anonymous memory (or shmem, above). When memory.stat says anon grew by less than a reportable amount
  // and by a minority of the growth, what grew is cache or kernel memory, however the processes' shares fell (Σ PSS
  // on a kernel without Pss_Anon counts mapped file pages): never a leak. Only where the levels memory.stat's parts
  // are read by (the tenths' medians) show the usage's growth, at least half of it: under swings the lows can rise
  // while every tenth's median falls, and the parts' levels then say nothing of where the lows' growth went (a
  // watched GC-churn program's shared cgroup: lows +15 MiB, usage's levels -10.7, anon's -6.7, kernel +216 KiB: "the
  // cgroup grew by -10.2 MiB … the growth is kernel memory (+216 KiB)", issue 46).
  const anonLike = (d.anon ?? 0) + (d.shmem ?? 0);
  if (
    d.anon !== undefined &&
    d.usage >= LEVELS_SHOW_SHARE * growth &&
    anonLike < minGrowth(a.start) &&
    anonLike < (1 - ARTEFACT_EXPLAINED) * growth &&
    cacheLike > anonLike
  ) {
    return artefact(set, base, d, from, cacheLike / growth);
  }
  // The processes (or anon the watch could not attribute) explain it: classify.ts reconciles with process findings.
  base.evidence.growthIn = "anon";
  return a.shape === "growing" ? anonLeak(base, a, usage) : anonPlateau(base, a, usage);
}

type CgroupBase = Pick<JudgedFinding, "subject" | "metric" | "rate" | "evidence" | "caveats">;

/** What every cgroup finding carries: the trend, memleak's own footprint, the limit and the OOM kills seen. */
function cgroupBase(
  set: SeriesSet,
  subject: Subject & { type: "cgroup" },
  a: Assessment,
  own: readonly OwnArrival[],
): CgroupBase {
  const ownBytes = own.reduce((sum, r) => sum + r.bytes, 0);
  const base: CgroupBase = {
    subject,
    metric: "cgroup" as const,
    rate: a.rate,
    evidence: {
      ...trendEvidence(a),
      ...(own.length > 0 && { agentFootprint: Math.round(ownBytes) }),
    } as Finding["evidence"],
    caveats:
      own.length > 0
        ? [
            phrase("cgroup.agents", {
              bytes: ownBytes,
              processes: new Set(own.map((r) => r.pid)).size,
              ...(own.some((r) => r.look) && { looks: own.filter((r) => r.look).length }),
            }),
          ]
        : [],
  };
  if (set.cgroupLimit != null) base.evidence.limit = set.cgroupLimit;
  const oom = set.cgroupOomKills;
  if (oom.length > 1 && oom.last()! > oom.first()!) base.evidence.oomKillsDuringWatch = oom.last()! - oom.first()!;
  return base;
}

/** Where the usage growth went (memory.stat) and what the processes did meanwhile, each part the cgroup reports. */
function breakdownEvidence(set: SeriesSet, d: CgroupBreakdownChange): Finding["evidence"] {
  return {
    usageGrowth: Math.round(d.usage),
    ...(d.anon !== undefined && { anonGrowth: Math.round(d.anon) }),
    ...(d.cache !== undefined && { pageCacheGrowth: Math.round(d.cache) }),
    ...(d.shmem !== undefined && { shmemGrowth: Math.round(d.shmem) }),
    ...(d.kernel !== undefined && { kernelGrowth: Math.round(d.kernel) }),
    ...(d.processes !== undefined && {
      processesGrowth: Math.round(d.processes),
      processesMetric: `Σ ${treeMetric(set)}`,
    }),
    ...(d.workingSet !== undefined && { workingSetGrowth: Math.round(d.workingSet) }),
  };
}

function insufficientCgroup(base: CgroupBase, subject: Subject & { type: "cgroup" }, a: Assessment): JudgedFinding {
  const reason = a.reason;
  return {
    ...base,
    kind: "insufficient-data",
    confidence: 0,
    summary: phrase("cgroup.insufficient", { path: subject.path, reason }),
    advice: [phrase("advice.insufficient-data", { reason })],
  };
}

function stableCgroup(base: CgroupBase, a: Assessment, usage: CgroupUsageFacts): JudgedFinding {
  const s = stableParts(a, "cgroup", "cgroup");
  return { ...base, kind: s.kind, confidence: s.confidence, summary: phrase("cgroup.stable", usage), advice: s.advice };
}

/** Shared memory that is the larger part of the growth: named, since unlike page cache it is not reclaimable. */
function shmemGrowth(base: CgroupBase, a: Assessment, d: CgroupBreakdownChange): JudgedFinding {
  base.evidence.growthIn = "shmem";
  return {
    ...base,
    kind: a.shape === "growing" ? "leak" : "plateau",
    confidence: growthConfidence(a),
    summary: phrase("cgroup.shmem", { shmem: d.shmem }),
    advice: [phrase("advice.leak", { variant: "cgroup-shmem", rate: a.rate })],
  };
}

function anonLeak(base: CgroupBase, a: Assessment, usage: CgroupUsageFacts): JudgedFinding {
  return {
    ...base,
    kind: "leak",
    confidence: growthConfidence(a),
    summary: phrase("cgroup.leak", { ...usage, rate: a.rate }),
    advice: [phrase("advice.leak", { variant: "cgroup", rate: a.rate })],
  };
}

function anonPlateau(base: CgroupBase, a: Assessment, usage: CgroupUsageFacts): JudgedFinding {
  const p = plateauParts(a);
  if (p.levelFromSeconds !== undefined) base.evidence.levelFromSeconds = p.levelFromSeconds;
  return {
    ...base,
    kind: p.kind,
    confidence: p.confidence,
    summary: phrase("cgroup.plateau", { ...usage, growth: p.growth }),
    advice: p.advice,
  };
}

/** Growth that page cache or kernel memory explains: a cgroup accounting artefact, with the part that grew named. */
function artefact(
  set: SeriesSet,
  base: CgroupBase,
  d: CgroupBreakdownChange,
  from: number,
  share: number,
): JudgedFinding {
  const ws = set.cgroup["working-set"];
  const cache = d.cache ?? 0;
  const variant =
    cache < (d.kernel ?? 0)
      ? "kernel"
      : (d.mapped ?? 0) >= MAPPED_SHARE * cache && cache > 0
        ? "mapped-file"
        : "page-cache";
  base.evidence.growthIn = variant;
  const files = variant === "mapped-file" ? setMappedFilesText(set) : undefined;
  if (variant === "mapped-file") {
    base.evidence.mappedFileGrowth = Math.round(d.mapped!);
    if (files) base.evidence.mappedFiles = files;
  }
  const wsStart = ws && ws.length ? levels(sliceByTime({ xs: ws.xs, ys: ws.ys }, from).ys).start : undefined;
  const processesMetric = d.processes === undefined ? undefined : treeMetric(set);
  const facts: ArtefactFacts = {
    variant,
    usage: d.usage,
    processes: d.processes,
    processesMetric,
    kernel: d.kernel,
    cache,
    files,
    wsStart,
    wsEnd: endLevel(ws),
  };
  return {
    ...base,
    kind: "cgroup-artefact",
    confidence: artefactConfidence(share),
    summary: phrase("cgroup.artefact", facts),
    advice: [
      phrase("advice.cgroup-artefact", {
        ...facts,
        cache: d.cache,
        mapped: d.mapped,
        treeMetric: treeMetric(set),
        dirty: endLevel(set.cgroup["cgroup-dirty"]),
      }),
    ],
  };
}
