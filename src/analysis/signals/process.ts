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
import { advice } from "../../advice/load.js";
import { assess, stoppedAt, stoppedGrowth, type Assessment } from "../assess.js";
import type { Context } from "../context.js";
import { confidenceFromP, growthConfidence, formatBytes, formatRate, sinceText, stableConfidence, trendEvidence } from "../evidence.js";
import type { ProcessSeries } from "../series.js";
import type { Finding, MetricName, Rate, Subject } from "../types.js";
import { copyOnWrite, type Copying, type CowSignal } from "./cow.js";
import { retention, STATE_MIN_READINGS, type Retention } from "./fragmentation.js";
import { leakLayer, LAYER_MIN_SHARE, otherAllocator } from "./layer.js";
import { noteMissingAgent } from "./unseen.js";
import { noteMappedFiles } from "./mapped.js";
import { injectedAt, withoutOwnStep } from "./own-footprint.js";
import { withGcBacklog } from "./gc-backlog.js";

export function processSubject(ps: ProcessSeries, rootPid: number | undefined, command: string): Subject {
  return { type: "process", pid: ps.pid, starttime: ps.starttime, command, ppid: ps.ppid, isRoot: ps.pid === rootPid };
}

function finding(
  ps: ProcessSeries,
  subject: Subject,
  kind: Finding["kind"],
  metric: MetricName,
  a: Assessment,
  summary: string,
  confidence: number,
  adviceText: string,
): Finding {
  return {
    kind,
    confidence,
    subject,
    pid: ps.pid,
    metric,
    rate: a.rate,
    summary,
    evidence: { ...trendEvidence(a), firstSeenSeconds: Number(ps.firstSeen.toFixed(1)), lastSeenSeconds: Number(ps.lastSeen.toFixed(1)) },
    advice: adviceText,
    caveats: [],
  };
}

/** What retention is, in this process's numbers (from malloc's, or from the trim probe alone), then what to do. */
function fragmentationAdvice(held: Retention, values: Record<string, string | number>): string {
  const all = { ...values, rss: formatBytes(held.anon), live: formatBytes(held.live), held: formatBytes(held.held), trimmed: formatBytes(held.trimmed) };
  const arenas = held.arenas ?? "an unknown number: the agent did not report malloc's";
  const what = advice("fragmentation", Number.isFinite(held.mallocInUse) ? "process" : "trim", all);
  return `${what}\n\n${advice("fragmentation", "actions", { arenas })}`;
}

/** @param copy the process's copy-on-write signal (cow.ts `copying`), which classify.ts also sums over the tree. */
export function analyzeProcess(ps: ProcessSeries, subject: Subject & { type: "process" }, ctx: Context, copy: Copying | undefined): Finding {
  const metric: MetricName = ps.metrics.anon ? "anon" : "rss";
  const injected = injectedAt(ps);
  const assessed = assess(ps.metrics[metric]!, Math.max(ctx.from, ps.firstSeen), ps.firstSeen);
  const { a: judged, caveat: own } = withoutOwnStep(assessed, injected === undefined ? [] : [injected]);
  const { a, judgement: backlog, note: released } = withGcBacklog(judged, ps, ps.metrics[metric]!);
  const f = decideProcess(ps, subject, ctx, copy, metric, a);
  if (own) f.caveats.push(own);
  if (backlog) {
    // Read by classify.ts: the tree's and the cgroup's growth is this process's backlog too.
    f.evidence.gcBacklog = backlog.kind;
    f.evidence.gcOlderFreedObjects = backlog.backlog.olderFreed;
    f.evidence.gcFullCollections = backlog.backlog.fullCollections.length;
  }
  if (released) f.caveats.push(released);
  noteMissingAgent(f, ps, ctx);
  noteMappedFiles(f, ps, ctx.from);
  const allocator = otherAllocator(ps);
  if (allocator) {
    f.evidence.allocator = allocator.name;
    f.caveats.push(allocator.note);
  }
  const sites = ctx.agentResults?.traces.get(ps.pid)?.sites;
  if (sites && sites.length > 0) f.sites = sites;
  return f;
}

/** What every branch of the rule chain starts from: the process, the metric judged and its assessment. */
interface Decision {
  ps: ProcessSeries;
  subject: Subject & { type: "process" };
  metric: MetricName;
  /** the metric's assessment, memleak's own arrival taken out (own-footprint.ts) */
  a: Assessment;
  /** How a sentence names the process. */
  who: string;
  /** What the advice texts fill in. */
  values: Record<string, string | number>;
}

/** @param a the metric's assessment, memleak's own arrival taken out (own-footprint.ts) */
function decideProcess(ps: ProcessSeries, subject: Subject & { type: "process" }, ctx: Context, copy: Copying | undefined, metric: MetricName, a: Assessment): Finding {
  const d: Decision = {
    ps,
    subject,
    metric,
    a,
    who: `PID ${ps.pid} (${subject.command})`,
    values: {
      pid: ps.pid,
      ppid: ps.ppid,
      command: subject.command,
      rate: formatRate(a.rate),
      growth: formatBytes(a.growth),
      level: formatBytes(a.end),
      metric,
    },
  };

  const held = retention(ps, ctx.agentResults?.trims.get(ps.pid));
  if (a.shape === "insufficient" && !(held?.decided && held.readings >= STATE_MIN_READINGS)) return insufficientFinding(d);

  // A process whose live bytes grow with it leaks (and may also fragment): the leak is the finding.
  const liveGrows = a.shape === "growing" && held !== undefined && held.liveGrowth >= LAYER_MIN_SHARE * a.growth;
  // Retention is a state, read off malloc's numbers at the end: it needs no trend, only a few readings that agree
  // (a window too short for a trend still shows 600 MB resident with 12 MB in use).
  if (held?.decided && !liveGrows) return retentionFinding(d, held);

  if (a.shape === "growing") return leakFinding(d, ctx, held);

  const cow = copyOnWrite(ps, copy);
  if (cow) return cowFinding(d, cow);

  if (a.shape === "plateau" || a.shape === "step") return plateauFinding(d);

  return stableFinding(d);
}

function insufficientFinding({ ps, subject, metric, a, who }: Decision): Finding {
  return finding(ps, subject, "insufficient-data", metric, a, insufficientSummary({ who, reason: a.reason }), 0, advice("insufficient-data", "any", { reason: a.reason }));
}

function insufficientSummary(facts: { who: string; reason: string | undefined }): string {
  return `${facts.who}: not enough data (${facts.reason})`;
}

function retentionFinding({ ps, subject, metric, a, who, values }: Decision, held: Retention): Finding {
  const facts = { who, anon: held.anon, live: held.live, mallocInUse: held.mallocInUse, mallocFree: held.mallocFree, trimmed: held.trimmed };
  const confidence = held.trimmed !== undefined && held.trimmed > 0 ? 0.95 : 0.8;
  const f = finding(ps, subject, "fragmentation", metric, a, retentionSummary(facts), confidence, fragmentationAdvice(held, values));
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

/** From malloc's numbers when the agent read them, else from what the trim probe gave back. */
function retentionSummary(facts: { who: string; anon: number; live: number; mallocInUse: number; mallocFree: number; trimmed: number | undefined }): string {
  const { who, anon, live, mallocInUse, mallocFree, trimmed } = facts;
  return Number.isFinite(mallocInUse)
    ? `${who} holds ${formatBytes(anon)} of anonymous memory, but only ${formatBytes(live)} is live (malloc: ${formatBytes(mallocInUse)} in use, ${formatBytes(mallocFree)} free but kept): the allocator is retaining freed memory`
    : `${who} holds ${formatBytes(anon)} of anonymous memory, and malloc_trim(0) at its end gave ${formatBytes(trimmed)} back: the allocator was retaining freed memory`;
}

function leakFinding({ ps, subject, metric, a, who, values }: Decision, ctx: Context, held: Retention | undefined): Finding {
  // With --trace-python's sites in hand, the advice starts from them instead of telling the user to run it again.
  const traced = (ctx.agentResults?.traces.get(ps.pid)?.sites.length ?? 0) > 0;
  const variant = `${subject.isRoot ? "process" : "worker"}${traced ? "-traced" : ""}`;
  const layer = leakLayer(ps, a, ctx);
  const facts = { who, metric, start: a.start, end: a.end, rate: a.rate, peak: a.peak, seconds: a.to - a.from, swings: Boolean(a.envelope), early: Boolean(a.early), layer: layer?.name };
  const f = finding(ps, subject, "leak", metric, a, leakSummary(facts), growthConfidence(a), advice("leak", variant, values));
  if (layer) {
    f.evidence.layer = layer.name;
    f.caveats.push(...layer.notes);
  }
  if (held) {
    f.evidence.mallocInUseGrowth = Math.round(held.liveGrowth);
    f.evidence.mallocInUseBytes = Math.round(held.mallocInUse);
  }
  return f;
}

interface LeakFacts {
  who: string;
  metric: MetricName;
  start: number;
  end: number;
  rate: Rate;
  peak: number;
  seconds: number;
  /** Growth seen in the lows only (stats/envelope.ts). */
  swings: boolean;
  /** Called by the early test (stats/sequential.ts). */
  early: boolean;
  /** The layer that grew (layer.ts), when one is named. */
  layer: string | undefined;
}

function leakSummary(facts: LeakFacts): string {
  const { who, metric, start, end, rate, peak, seconds } = facts;
  const grows = facts.swings
    ? `${who} grows under its swings: the lows of ${metric} rise ${formatBytes(start)} → ${formatBytes(end)} at ${formatRate(rate)} while it swings up to ${formatBytes(peak)}`
    : facts.early
      ? `${who} grows: ${metric} ${formatBytes(start)} → ${formatBytes(end)} at ${formatRate(rate)}, still growing at the end of ${seconds.toFixed(0)} s (called early)`
      : `${who} grows steadily: ${metric} ${formatBytes(start)} → ${formatBytes(end)} at ${formatRate(rate)}, no sign of levelling off`;
  return facts.layer ? `${grows} — in the ${facts.layer}` : grows;
}

function cowFinding({ ps, subject, who, values }: Decision, cow: CowSignal): Finding {
  const uss = assess(ps.metrics.uss!, ps.firstSeen);
  const facts = { who, ussStart: cow.ussStart, ussEnd: cow.ussEnd, bound: cow.bound, isRoot: subject.isRoot };
  const cowValues = { ...values, ussStart: formatBytes(cow.ussStart), ussEnd: formatBytes(cow.ussEnd), parentAnon: formatBytes(cow.bound) };
  const f = finding(ps, subject, "cow", "uss", uss, cowSummary(facts), uss.p < 1 ? confidenceFromP(uss.p) : 0.7, advice("cow", "process", cowValues));
  Object.assign(f.evidence, { growth: Math.round(cow.ussGrowth), residentGrowth: Math.round(cow.residentGrowth) });
  if (cow.sharedDrop !== undefined) f.evidence.sharedDrop = Math.round(cow.sharedDrop);
  if (cow.bound !== undefined) f.evidence.bound = Math.round(cow.bound);
  return f;
}

/** @param facts.isRoot the root shares its pages with the children it forked, a child with its parent */
function cowSummary(facts: { who: string; ussStart: number; ussEnd: number; bound: number | undefined; isRoot: boolean }): string {
  const { who, ussStart, ussEnd, bound, isRoot } = facts;
  return `${who}: private memory (USS) ${formatBytes(ussStart)} → ${formatBytes(ussEnd)} while RSS stays flat: copy-on-write of pages shared with ${isRoot ? "its forked children" : "its parent"}, bounded by ${formatBytes(bound)}`;
}

function plateauFinding({ ps, subject, metric, a, who, values }: Decision): Finding {
  const levelFrom = stoppedAt(a);
  const growth = stoppedGrowth(a);
  const facts = { who, step: a.shape === "step", growth, end: a.end };
  const plateauValues = { ...values, growth: formatBytes(growth), levelFrom: sinceText(levelFrom) };
  const f = finding(ps, subject, "plateau", metric, a, plateauSummary(facts), confidenceFromP(a.plateau?.p ?? a.p), advice("plateau", "any", plateauValues));
  if (levelFrom !== undefined) f.evidence.levelFromSeconds = Number(levelFrom.toFixed(1));
  return f;
}

function plateauSummary(facts: { who: string; step: boolean; growth: number; end: number }): string {
  const how = facts.step ? `one step of ${formatBytes(facts.growth)}` : `grew by ${formatBytes(facts.growth)}`;
  return `${facts.who} ${how}, then levelled off at ${formatBytes(facts.end)}`;
}

function stableFinding({ ps, subject, metric, a, who, values }: Decision): Finding {
  const facts = { who, metric, start: a.start, end: a.end };
  const stableValues = { ...values, duration: `${(a.to - a.from).toFixed(0)} s`, noise: formatBytes(a.plateau?.noise) };
  return finding(ps, subject, "stable", metric, a, stableSummary(facts), stableConfidence(a.to - a.from), advice("stable", "any", stableValues));
}

function stableSummary(facts: { who: string; metric: MetricName; start: number; end: number }): string {
  return `${facts.who} is stable: ${facts.metric} ${formatBytes(facts.start)} → ${formatBytes(facts.end)}`;
}
