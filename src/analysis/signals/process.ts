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
import type { Finding, MetricName, Subject } from "../types.js";
import { copyOnWrite, type Copying } from "./cow.js";
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

/** @param a the metric's assessment, memleak's own arrival taken out (own-footprint.ts) */
function decideProcess(ps: ProcessSeries, subject: Subject & { type: "process" }, ctx: Context, copy: Copying | undefined, metric: MetricName, a: Assessment): Finding {
  const who = `PID ${ps.pid} (${subject.command})`;
  const values = {
    pid: ps.pid,
    ppid: ps.ppid,
    command: subject.command,
    rate: formatRate(a.rate),
    growth: formatBytes(a.growth),
    level: formatBytes(a.end),
    metric,
  };

  const held = retention(ps, ctx.agentResults?.trims.get(ps.pid));
  if (a.shape === "insufficient" && !(held?.decided && held.readings >= STATE_MIN_READINGS)) {
    const f = finding(ps, subject, "insufficient-data", metric, a, `${who}: not enough data (${a.reason})`, 0, "");
    f.advice = advice("insufficient-data", "any", { reason: a.reason });
    return f;
  }

  // A process whose live bytes grow with it leaks (and may also fragment): the leak is the finding.
  const liveGrows = a.shape === "growing" && held !== undefined && held.liveGrowth >= LAYER_MIN_SHARE * a.growth;
  // Retention is a state, read off malloc's numbers at the end: it needs no trend, only a few readings that agree
  // (a window too short for a trend still shows 600 MB resident with 12 MB in use).
  if (held?.decided && !liveGrows) {
    const f = finding(
      ps,
      subject,
      "fragmentation",
      metric,
      a,
      Number.isFinite(held.mallocInUse)
        ? `${who} holds ${formatBytes(held.anon)} of anonymous memory, but only ${formatBytes(held.live)} is live (malloc: ${formatBytes(held.mallocInUse)} in use, ${formatBytes(held.mallocFree)} free but kept): the allocator is retaining freed memory`
        : `${who} holds ${formatBytes(held.anon)} of anonymous memory, and malloc_trim(0) at its end gave ${formatBytes(held.trimmed)} back: the allocator was retaining freed memory`,
      held.trimmed !== undefined && held.trimmed > 0 ? 0.95 : 0.8,
      fragmentationAdvice(held, values),
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

  if (a.shape === "growing") {
    const variant = subject.isRoot ? "process" : "worker";
    const f = finding(
      ps,
      subject,
      "leak",
      metric,
      a,
      a.envelope
        ? `${who} grows under its swings: the lows of ${metric} rise ${formatBytes(a.start)} → ${formatBytes(a.end)} at ${formatRate(a.rate)} while it swings up to ${formatBytes(a.peak)}`
        : a.early
          ? `${who} grows: ${metric} ${formatBytes(a.start)} → ${formatBytes(a.end)} at ${formatRate(a.rate)}, still growing at the end of ${(a.to - a.from).toFixed(0)} s (called early)`
          : `${who} grows steadily: ${metric} ${formatBytes(a.start)} → ${formatBytes(a.end)} at ${formatRate(a.rate)}, no sign of levelling off`,
      growthConfidence(a),
      advice("leak", variant, values),
    );
    const layer = leakLayer(ps, a, ctx);
    if (layer) {
      f.evidence.layer = layer.name;
      f.summary += ` — in the ${layer.name}`;
      f.caveats.push(...layer.notes);
    }
    if (held) {
      f.evidence.mallocInUseGrowth = Math.round(held.liveGrowth);
      f.evidence.mallocInUseBytes = Math.round(held.mallocInUse);
    }
    return f;
  }

  const cow = copyOnWrite(ps, copy);
  if (cow) {
    const uss = assess(ps.metrics.uss!, ps.firstSeen);
    const f = finding(
      ps,
      subject,
      "cow",
      "uss",
      uss,
      `${who}: private memory (USS) ${formatBytes(cow.ussStart)} → ${formatBytes(cow.ussEnd)} while RSS stays flat: copy-on-write of pages shared with ${subject.isRoot ? "its forked children" : "its parent"}, bounded by ${formatBytes(cow.bound)}`,
      uss.p < 1 ? confidenceFromP(uss.p) : 0.7,
      advice("cow", "process", { ...values, ussStart: formatBytes(cow.ussStart), ussEnd: formatBytes(cow.ussEnd), parentAnon: formatBytes(cow.bound) }),
    );
    Object.assign(f.evidence, { growth: Math.round(cow.ussGrowth), residentGrowth: Math.round(cow.residentGrowth) });
    if (cow.sharedDrop !== undefined) f.evidence.sharedDrop = Math.round(cow.sharedDrop);
    if (cow.bound !== undefined) f.evidence.bound = Math.round(cow.bound);
    return f;
  }

  if (a.shape === "plateau" || a.shape === "step") {
    const levelFrom = stoppedAt(a);
    const growth = stoppedGrowth(a);
    const how = a.shape === "step" ? `one step of ${formatBytes(growth)}` : `grew by ${formatBytes(growth)}`;
    const f = finding(
      ps,
      subject,
      "plateau",
      metric,
      a,
      `${who} ${how}, then levelled off at ${formatBytes(a.end)}`,
      confidenceFromP(a.plateau?.p ?? a.p),
      advice("plateau", "any", { ...values, growth: formatBytes(growth), levelFrom: sinceText(levelFrom) }),
    );
    if (levelFrom !== undefined) f.evidence.levelFromSeconds = Number(levelFrom.toFixed(1));
    return f;
  }

  const f = finding(
    ps,
    subject,
    "stable",
    metric,
    a,
    `${who} is stable: ${metric} ${formatBytes(a.start)} → ${formatBytes(a.end)}`,
    stableConfidence(a.to - a.from),
    advice("stable", "any", { ...values, duration: `${(a.to - a.from).toFixed(0)} s`, noise: formatBytes(a.plateau?.noise) }),
  );
  return f;
}
