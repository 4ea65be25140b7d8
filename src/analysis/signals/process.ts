/**
 * One process → one finding. The rule chain, first definite answer wins:
 *   too little data                         → insufficient-data
 *   allocator holds what live bytes do not   → fragmentation   (needs the agent)
 *   anon grows and has not levelled off      → leak            (worker variant for a child)
 *   private pages grow, resident ones do not → cow
 *   grew then levelled off / one step        → plateau
 *   otherwise                                → stable
 * Anonymous resident memory (RssAnon, read every tick) decides growth: it is what a leak or retention grows, while
 * file pages (libraries, mmapped weights) come and go with the page cache.
 */
import { assess, levelChange, type Assessment } from "../assess.js";
import type { Context } from "../context.js";
import { confidenceFromP, growthConfidence, trendEvidence } from "../evidence.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase, type GcWaitingFacts, type Phrase, type ProcessFacts, type Settling } from "../phrases.js";
import type { ProcessSeries } from "../../series/series.js";
import { SEVERITY, type MetricName, type Subject } from "../types.js";
import { copyOnWrite, type Copying, type CowSignal } from "./cow.js";
import { retention, STATE_MIN_READINGS, type Retention } from "./fragmentation.js";
import { allocatorSettling, liveHeapGrowth, liveHeapLeak } from "./live-heap.js";
import { keptTemporaries, type KeptSplit } from "./kept-temporaries.js";
import {
  leakLayer,
  LAYER_MIN_SHARE,
  otherAllocator,
  pinnedLayer,
  pinningContainer,
  pinningUndecided,
  pinningGraphs,
  pinningGraphNodes,
  pinningSuspected,
  torchImported,
  type Pinning,
} from "./layer.js";
import { noteMissingAgent } from "./unseen.js";
import { noteMappedFiles } from "./mapped.js";
import { ownInjections, withoutOwnStep } from "./own-footprint.js";
import { withGcBacklog } from "./gc-backlog.js";
import { withoutImports } from "./imports.js";
import { holderFor, putHolder, suspectedIn } from "./holder.js";
import { noteCopiedBefore, putCopied, putCopiedBefore, putKept } from "./copied.js";
import { noteCollectorOff } from "./gc-off.js";
import { plateauParts, stableParts } from "./level-findings.js";

export function processSubject(ps: ProcessSeries, rootPid: number | undefined, command: string): Subject {
  return { type: "process", pid: ps.pid, starttime: ps.starttime, command, ppid: ps.ppid, isRoot: ps.pid === rootPid };
}

function finding(
  ps: ProcessSeries,
  subject: Subject,
  kind: JudgedFinding["kind"],
  metric: MetricName,
  a: Assessment,
  summary: Phrase,
  confidence: number,
  advice: Phrase[],
): JudgedFinding {
  return {
    kind,
    confidence,
    subject,
    pid: ps.pid,
    metric,
    rate: a.rate,
    summary,
    evidence: {
      ...trendEvidence(a),
      firstSeenSeconds: Number(ps.firstSeen.toFixed(1)),
      lastSeenSeconds: Number(ps.lastSeen.toFixed(1)),
    },
    advice,
    caveats: [],
  };
}

/** What retention is, in this process's numbers (from malloc's, or from the trim probe alone), then what to do. */
function fragmentationAdvice(held: Retention, ps: ProcessSeries, command: string): Phrase[] {
  const pid = ps.pid;
  const variant = Number.isFinite(held.mallocInUse) ? ("process" as const) : ("trim" as const);
  return [
    phrase("advice.fragmentation", {
      variant,
      pid,
      anon: held.anon,
      live: held.live,
      held: held.held,
      trimmed: held.trimmed,
    }),
    phrase("advice.fragmentation-actions", { arenas: held.arenas, command, seconds: ps.lastSeen - ps.firstSeen }),
  ];
}

/** @param copy the process's copy-on-write signal (cow.ts `copying`), which classify.ts also sums over the tree. */
export function analyzeProcess(
  ps: ProcessSeries,
  subject: Subject & { type: "process" },
  ctx: Context,
  copy: Copying | undefined,
): JudgedFinding {
  const metric: MetricName = ps.metrics.anon ? "anon" : "rss";
  const assessed = assess(ps.metrics[metric]!, Math.max(ctx.from, ps.firstSeen), ps.firstSeen, ps.execAt);
  const { a: owned, caveat: own } = withoutOwnStep(assessed, ownInjections(ps, ctx));
  const judged = withoutImports(owned, ps, ps.metrics[metric]!);
  const { a, judgement: backlog, waiting, note: released } = withGcBacklog(judged, ps, ps.metrics[metric]!);
  const f = decideProcess(ps, subject, ctx, copy, metric, a, waiting);
  if (own) f.caveats.push(own);
  if (backlog) {
    // Read by classify.ts: the tree's and the cgroup's growth is this process's backlog too.
    f.evidence.gcBacklog = backlog.kind;
    f.evidence.gcOlderFreedObjects = backlog.backlog.olderFreed;
    f.evidence.gcFullCollections = backlog.backlog.fullCollections.length;
  }
  if (released) f.caveats.push(released);
  // A forked worker asked what it copied (session/cow-ask.ts) but not copy-on-write over its life: what it read
  // without copying it, if its look found that.
  // A worker that had copied before memleak first read it says how much, and what, if its look found that — also where
  // the window was too short to judge a trend (a 15 s CI step said nothing of two workers' 25 MiB copies): what it had
  // copied is a state, read at its first reading.
  const quiet = f.kind === "stable" || f.kind === "plateau";
  const copiedSaid = (quiet || f.kind === "insufficient-data") && putCopiedBefore(f, ps, ctx);
  if (quiet && !copiedSaid) putKept(f, ps, ctx);
  noteMissingAgent(f, ps, ctx);
  noteCollectorOff(f, ps);
  noteMappedFiles(f, ps, ctx.from);
  const allocator = otherAllocator(ps);
  if (allocator) {
    f.evidence.allocator = allocator.name;
    f.caveats.push(allocator.note);
  }
  const trace = ctx.agentResults?.traces.get(ps.pid);
  if (trace && trace.sites.length > 0) {
    f.sites = trace.sites;
    if (trace.interim) f.sitesInterim = true;
  }
  if (trace?.window) {
    // watch --trace-python: what tracemalloc cost the program while it ran.
    f.evidence.traceWindowSeconds = trace.window.seconds;
    f.evidence.traceCpuShare = trace.window.cpuShare;
    f.evidence.traceCpuShareBefore = trace.window.cpuShareBefore;
    f.evidence.tracemallocBytes = trace.window.overheadBytes;
  }
  return f;
}

/** What every branch of the rule chain starts from: the process, the metric judged and its assessment. */
interface Decision {
  ps: ProcessSeries;
  subject: Subject & { type: "process" };
  metric: MetricName;
  /** the metric's assessment, memleak's own arrival taken out (own-footprint.ts) */
  a: Assessment;
  /** Which process the sentences are about. */
  who: ProcessFacts;
}

/**
 * A subject can carry more than one finding (issue 27): a *state* — memory malloc holds free (fragmentation), pages
 * copied from a forked relative (cow) — and a *trend* — a leak, a plateau — are judged separately and both kept. The
 * headline is the most serious (a leak first: the worst thing memleak can do is hide a leak behind a milder cause);
 * the others go with it in `alsoFound`, each with its own evidence. Stable and insufficient-data are not listed
 * beside another finding: they say nothing the other does not.
 *
 * @param a the metric's assessment, memleak's own arrival taken out (own-footprint.ts)
 * @param waiting why it is insufficient when growth may be a garbage backlog (gc-backlog.ts)
 */
function decideProcess(
  ps: ProcessSeries,
  subject: Subject & { type: "process" },
  ctx: Context,
  copy: Copying | undefined,
  metric: MetricName,
  a: Assessment,
  waiting: GcWaitingFacts | undefined,
): JudgedFinding {
  const d: Decision = { ps, subject, metric, a, who: { pid: ps.pid, command: subject.command } };

  const held = retention(ps, ctx.agentResults?.trims.get(ps.pid));
  if (a.shape === "insufficient" && !(held?.decided && held.readings >= STATE_MIN_READINGS))
    return insufficientFinding(d, waiting);

  // Retention is a state, read off malloc's numbers at the end: it needs no trend, only a few readings that agree
  // (a window too short for a trend still shows 600 MB resident with 12 MB in use).
  const states: JudgedFinding[] = [];
  if (held?.decided) states.push(retentionFinding(d, held));
  const cow = copyOnWrite(ps, copy);
  if (cow) states.push(cowFinding(d, cow, ctx));

  const trend = trendFinding(d, ctx, held);
  // Retention beside a container still gaining items, seen at too few walks to tell whether what it keeps pins the
  // holes (a leak) or the allocator keeps them: neither yet (layer.ts pinningUndecided). A trend that said more wins.
  // So with growth into what malloc keeps free that is not yet retention (live-heap.ts allocatorSettling).
  const holes = held?.decided || trend?.evidence.mallocFreeGrowth !== undefined;
  const undecided =
    holes && (!trend || trend.kind === "insufficient-data") ? pinningUndecided(ps, a.from, a.to) : undefined;
  if (undecided) {
    const f = insufficientFinding({ ...d, a: { ...a, reason: pinningWait(undecided) } }, undefined);
    // Read by classify.ts: the tree's and the cgroup's growth this process accounts for waits with it.
    f.evidence.pinningUndecided = true;
    return f;
  }
  // Memory malloc keeps free because a growing container's objects pin it is the leak's, not the allocator's: said
  // with the leak (its layer's notes), not beside it as retention whose advice (arenas, jemalloc) would not help.
  const beside = trend?.evidence.pinnedBy !== undefined ? states.filter((s) => s.kind !== "fragmentation") : states;
  const [headline, ...rest] = [...beside, ...(trend ? [trend] : [])].sort(
    (x, y) => SEVERITY[y.kind] - SEVERITY[x.kind],
  );
  if (!headline) return stableFinding(d);
  const also = rest.filter((f) => f.kind !== "insufficient-data");
  if (also.length > 0) headline.alsoFound = also;
  return headline;
}

/**
 * The trend of a process: a leak, a plateau, or nothing to say (stable, or growth that is the allocator's holes).
 *   - anon grows, and malloc's live bytes (or Python's objects) grow with it: a leak, whatever share of the heap is
 *     free; anon grows while the live heap does not, under retention: the holes grow, no leak (the state says it);
 *   - anon does not grow, but the live heap does, steadily: a leak filling memory malloc already held (live-heap.ts);
 *   - anon rose (steadily, in steps, to a level) mostly by freed memory malloc keeps, while the live heap rises
 *     steadily under it: the live heap's leak, or not enough data while its rise is under the floor
 *     (kept-temporaries.ts);
 *   - grew, then levelled off, or one step: a plateau.
 */
function trendFinding(d: Decision, ctx: Context, held: Retention | undefined): JudgedFinding | undefined {
  const { ps, a } = d;
  if (a.shape === "growing") {
    const live = held ? liveHeapGrowth(ps, a.from) : undefined;
    const liveGrows = live !== undefined && live >= LAYER_MIN_SHARE * a.growth;
    if (held?.decided && !liveGrows) {
      // The holes grow. Retention alone levels off at the program's peak; holes that keep growing beside a container
      // that keeps gaining items are pinned by what it keeps: a leak, whose objects are small and whose cost is the
      // freed memory they pin (layer.ts, pinningContainer). Otherwise the state says it all.
      const pinning = pinningOf(d, ctx);
      return pinning ? leakFinding(d, ctx, held, live, pinning) : undefined;
    }
    // Not live memory kept, but the allocators filling to the program's working size: undecided while it lasts.
    // Where malloc's free bytes are what grew, a growing container pinning them makes it a leak, as above.
    const settling = held ? allocatorSettling(ps, a) : undefined;
    const pinning = settling?.freedKept !== undefined ? pinningOf(d, ctx) : undefined;
    if (pinning) return leakFinding(d, ctx, held, live, pinning);
    if (settling) return insufficientFinding(d, undefined, settling);
    // Anon's growth mostly freed memory malloc keeps, the live heap rising steadily under it: the leak is that rise,
    // at its own rate (anon's overstated it five times). Not where kept tensors' graphs are what grows: the freed
    // memory is then what they pin (kept losses: anon +109 MiB, free +59, live +39.5), the leak's cost, and anon's rate
    // is the leak's.
    // The layer is looked for only where the split applies: leakFinding looks for it again otherwise.
    const kept = held ? keptTemporaries(ps, a.from, ctx.from) : undefined;
    return kept && !(liveGrows && keepsTensors(ps, a, ctx))
      ? keptFinding(d, ctx, kept, held!)
      : leakFinding(d, ctx, held, live);
  }
  const stopped = a.shape === "plateau" || a.shape === "step";
  const kept = held && stopped ? keptTemporaries(ps, a.from, ctx.from) : undefined;
  if (kept) return keptFinding(d, ctx, kept, held!);
  const hidden = held ? liveHeapLeak(ps, ctx.from) : undefined;
  if (hidden) return hiddenLeakFinding(d, ctx, hidden, held!);
  if (stopped) return plateauFinding(d);
  return undefined;
}

/** The live heap's leak under freed temporaries malloc keeps, or not enough data while it is under the floor. */
function keptFinding(d: Decision, ctx: Context, kept: KeptSplit, held: Retention): JudgedFinding {
  if (kept.overFloor) return hiddenLeakFinding(d, ctx, kept.live, held, kept);
  const f = insufficientFinding(d, undefined, undefined, kept);
  f.evidence.keptTemporaries = true;
  f.evidence.liveHeapGrowth = Math.round(kept.live.growth);
  f.evidence.mallocFreeGrowth = Math.round(kept.facts.freedKept);
  return f;
}

/** Whether what grows is PyTorch's tensors or the graphs kept tensors hold (layer.ts leakLayer). */
function keepsTensors(ps: ProcessSeries, a: Assessment, ctx: Context): boolean {
  const name = leakLayer(ps, a, ctx)?.name;
  return name === "PyTorch autograd graphs" || name === "PyTorch CPU tensors";
}

/** What the census saw keep the holes of malloc's free memory growing over the trend's window, if anything. */
function pinningOf({ ps, a }: Decision, ctx: Context): Pinning | undefined {
  return (
    pinningContainer(ps, a.from, a.to) ??
    pinningGraphs(ps, a.from, a.to) ??
    pinningGraphNodes(ps, a.from, a.to) ??
    suspectedIn(ps.pid, ctx)
      .map((s) => pinningSuspected(ps, s, a.from, a.to))
      .find((p) => p !== undefined)
  );
}

/** Why retention is not called yet: the container the census saw gaining, and what a later walk will tell. */
function pinningWait(p: Pinning): string {
  const items = Math.round(p.items).toLocaleString("en-US");
  return `malloc keeps more freed memory at each reading while a ${p.what} gains items (${items} so far): the census's next walks tell whether what it keeps pins that memory (a leak) or the allocator keeps it (fragmentation)`;
}

function insufficientFinding(
  { ps, subject, metric, a, who }: Decision,
  waiting: GcWaitingFacts | undefined,
  settling?: Settling,
  kept?: KeptSplit,
): JudgedFinding {
  const why = {
    reason: a.reason,
    ...(waiting && { waiting }),
    ...(settling && { settling }),
    ...(kept && { kept: kept.facts }),
  };
  const f = finding(
    ps,
    subject,
    "insufficient-data",
    metric,
    a,
    phrase("process.insufficient", { ...who, ...why }),
    0,
    [phrase("advice.insufficient-data", why)],
  );
  // Read by classify.ts: the tree's and the cgroup's growth that a process still importing accounts for waits with it.
  if (a.importing) f.evidence.importing = true;
  if (settling)
    Object.assign(f.evidence, {
      settling: true,
      liveHeapGrowth: Math.round(settling.liveGrowth),
      liveHeapSwing: Math.round(settling.swing),
      ...(settling.freedKept !== undefined && { mallocFreeGrowth: Math.round(settling.freedKept) }),
    });
  return f;
}

function retentionFinding({ ps, subject, metric, a, who }: Decision, held: Retention): JudgedFinding {
  const facts = {
    ...who,
    anon: held.anon,
    live: held.live,
    mallocInUse: held.mallocInUse,
    mallocFree: held.mallocFree,
    trimmed: held.trimmed,
  };
  const confidence = held.trimmed !== undefined && held.trimmed > 0 ? 0.95 : 0.8;
  const f = finding(
    ps,
    subject,
    "fragmentation",
    metric,
    a,
    phrase("process.retention", facts),
    confidence,
    fragmentationAdvice(held, ps, subject.command),
  );
  Object.assign(f.evidence, {
    anonBytes: Math.round(held.anon),
    liveBytes: Math.round(held.live),
    mallocInUseBytes: Math.round(held.mallocInUse),
    mallocFreeBytes: Math.round(held.mallocFree),
    heldBytes: Math.round(held.held),
    heldShare: Number(held.heldShare.toFixed(2)),
  });
  if (held.arenas !== undefined) f.evidence.mallocArenas = held.arenas;
  if (held.trimmed !== undefined) f.evidence.trimReleasedBytes = Math.round(held.trimmed);
  return f;
}

/** A process's leak advice, with PyTorch's usual leaks only where torch was loaded (not for every Python program). */
function leakAdvice(ps: ProcessSeries, advice: Phrase): Phrase[] {
  return torchImported(ps) ? [advice, phrase("advice.leak-torch", {})] : [advice];
}

function leakFinding(
  { ps, subject, metric, a, who }: Decision,
  ctx: Context,
  held: Retention | undefined,
  liveGrowth: number | undefined,
  pinning?: Pinning,
): JudgedFinding {
  // With --trace-python's sites in hand, the advice starts from them instead of telling the user to run it again.
  const traced = (ctx.agentResults?.traces.get(ps.pid)?.sites.length ?? 0) > 0;
  const variant = `${subject.isRoot ? "process" : "worker"}${traced ? "-traced" : ""}` as const;
  const pinned = pinning && pinnedLayer(ps, pinning, a.from);
  const measured = leakLayer(ps, a, ctx);
  // The layer the agent measured growing (graphs, a container's items), and beside it what the kept objects pin: most
  // of such a leak's growth is freed memory malloc keeps around them, which is why the process is no fragmentation.
  const layer =
    measured && pinned ? { name: measured.name, notes: [...measured.notes, ...pinned.notes] } : (measured ?? pinned);
  const found = holderFor(ps.pid, layer?.name, ctx);
  const holder = found?.explains ? found.holder : undefined;
  const facts = {
    ...who,
    metric,
    start: a.start,
    end: a.end,
    rate: a.rate,
    peak: a.peak,
    seconds: a.to - a.from,
    swings: Boolean(a.envelope),
    early: Boolean(a.early),
    layer: layer?.name,
    ...(holder?.found && { holder: holder.path }),
  };
  const advice = leakAdvice(ps, phrase("advice.leak", { variant, rate: a.rate, ...who, ppid: ps.ppid }));
  const f = finding(ps, subject, "leak", metric, a, phrase("process.leak", facts), growthConfidence(a), advice);
  if (layer) {
    f.evidence.layer = layer.name;
    f.caveats.push(...layer.notes);
  }
  if (found) putHolder(f, found, layer?.name);
  if (held) {
    // Over the judged window, as the growth beside it is: retention's own figure spans the whole series, and beside a
    // window that left out a program's first seconds it said 136 MiB of malloc growth against 113 MiB of growth.
    const inWindow = Number.isFinite(held.liveGrowth) ? levelChange(ps.agent["malloc.inUse"], a.from) : undefined;
    f.evidence.mallocInUseGrowth = Math.round(inWindow ?? held.liveGrowth);
    f.evidence.mallocInUseBytes = Math.round(held.mallocInUse);
  }
  if (liveGrowth !== undefined) f.evidence.liveHeapGrowth = Math.round(liveGrowth);
  if (pinning) f.evidence.pinnedBy = pinning.what;
  return f;
}

/**
 * A leak that fills memory malloc already held: resident memory is flat (or levelled off) while the live heap grows
 * steadily. Judged on the live heap, whose growth is the leak's; resident memory climbs again once malloc's free
 * memory is used up.
 */
function hiddenLeakFinding(
  { ps, subject, who }: Decision,
  ctx: Context,
  live: Assessment,
  held: Retention,
  kept?: KeptSplit,
): JudgedFinding {
  const layer = leakLayer(ps, live, ctx);
  const facts = {
    ...who,
    start: live.start,
    end: live.end,
    rate: live.rate,
    seconds: live.to - live.from,
    anon: held.anon,
    free: held.mallocFree,
    layer: layer?.name,
    ...(kept && { kept: kept.facts }),
  };
  const variant = subject.isRoot ? "process" : "worker";
  const advice = leakAdvice(ps, phrase("advice.leak", { variant, rate: live.rate, ...who, ppid: ps.ppid }));
  const f = finding(
    ps,
    subject,
    "leak",
    "heap-live",
    live,
    phrase("process.hidden-leak", facts),
    growthConfidence(live),
    advice,
  );
  f.evidence.residentAnonBytes = Math.round(held.anon);
  f.evidence.mallocFreeBytes = Math.round(held.mallocFree);
  if (kept) {
    f.evidence.anonGrowth = Math.round(kept.facts.anonGrowth);
    f.evidence.mallocFreeGrowth = Math.round(kept.facts.freedKept);
  }
  if (layer) {
    f.evidence.layer = layer.name;
    f.caveats.push(...layer.notes);
  }
  const found = holderFor(ps.pid, layer?.name, ctx);
  if (found) putHolder(f, found, layer?.name);
  return f;
}

function cowFinding({ ps, subject, who }: Decision, cow: CowSignal, ctx: Context): JudgedFinding {
  const uss = assess(ps.metrics.uss!, ps.firstSeen);
  const facts = {
    ...who,
    ussStart: cow.ussStart,
    ussEnd: cow.ussEnd,
    bound: cow.bound,
    ...(cow.besideGrowth && { copied: cow.ussGrowth, sharedDrop: cow.sharedDrop }),
  };
  // The root forked the others: its pages are copied by its children, not copied from a parent (advice per role).
  const advice = [phrase("advice.cow-process", { ...facts, isRoot: subject.isRoot })];
  const f = finding(
    ps,
    subject,
    "cow",
    "uss",
    uss,
    phrase("process.cow", { ...facts, isRoot: subject.isRoot }),
    uss.p < 1 ? confidenceFromP(uss.p) : 0.7,
    advice,
  );
  // Its start, end and growth are the copying's own (its USS from its first reading: a worker copies from its fork),
  // as the summary says them: the window after warm-up put "level at start 3.80 MiB" beside "USS 736 KiB → 46.0 MiB"
  // and a growth of 45.2 MiB.
  Object.assign(f.evidence, {
    start: Math.round(cow.ussStart),
    end: Math.round(cow.ussEnd),
    growth: Math.round(cow.ussGrowth),
    residentGrowth: Math.round(cow.residentGrowth),
  });
  if (cow.sharedDrop !== undefined) f.evidence.sharedDrop = Math.round(cow.sharedDrop);
  if (cow.bound !== undefined) f.evidence.bound = Math.round(cow.bound);
  putCopied(f, ps.pid, cow.ussGrowth, ctx);
  noteCopiedBefore(f, ps);
  return f;
}

function plateauFinding({ ps, subject, metric, a, who }: Decision): JudgedFinding {
  const p = plateauParts(a);
  const summary = phrase("process.plateau", { ...who, step: a.shape === "step", growth: p.growth, end: a.end });
  const f = finding(ps, subject, p.kind, metric, a, summary, p.confidence, p.advice);
  if (p.levelFromSeconds !== undefined) f.evidence.levelFromSeconds = p.levelFromSeconds;
  return f;
}

function stableFinding({ ps, subject, metric, a, who }: Decision): JudgedFinding {
  const s = stableParts(a, "process", metric);
  return finding(
    ps,
    subject,
    s.kind,
    metric,
    a,
    phrase("process.stable", { ...who, metric, start: a.start, end: a.end }),
    s.confidence,
    s.advice,
  );
}
