/**
 * Garbage cycles waiting for a full collection. CPython frees a reference cycle only when its cyclic collector runs
 * over the generation that holds the cycle. A cycle still reachable at a young collection (being built, or held by a
 * frame when another thread's allocation set the collection off) is promoted, and then waits — with every buffer it
 * holds — for a collection of its older generation: generation 1 after `threshold1` young runs, generation 2 (a full
 * collection) only after `threshold2` generation-1 runs. Memory then ratchets up for minutes and falls back at the
 * full collection. Measured on fixtures/scenarios/gc_sawtooth.py beside two busy loops (10 minutes, the agent's gc
 * numbers and anon side by side): the lows rose ~4 MiB between generation-1 runs (every ~60 s) and fell back at
 * each, and rose 11 → 17 MiB between full collections (the first at 520 s); malloc's in-use bytes rose with them —
 * the garbage's buffers are malloc'd — so no layer (layer.ts) tells that growth from a leak; 510 of 1,201
 * judgements called it one.
 *
 * The agent's gc numbers, read beside the memory, do tell it: an older generation's collection that frees garbage
 * while the memory falls proves that garbage held memory; how many generation-1 runs are left before a full
 * collection comes due (gc.get_count()[2] against gc.get_threshold()[2]) says how long the rest may wait. Growth
 * since the last full collection then cannot be told from that backlog until the next one has run, and a full
 * collection that brings memory back down proves what grew was garbage.
 *
 * Pure: a process's columns in, a judgement out. Recordings made before the agent reported these numbers have no
 * judgement (undefined), and are judged as before.
 */
import { levelChange, levels, minGrowth, startupEnd, type Assessment } from "../assess.js";
import type { Column } from "../../series/column.js";
import type { ProcessSeries } from "../../series/series.js";
import { lowerBound } from "../stats/window.js";
import { phrase, type GcFreedFacts, type GcWaitingFacts, type Phrase } from "../phrases.js";

/**
 * A collection of an older generation (1 or 2) released memory when it freed objects and the metric fell, from the
 * lower of its two samples before the collection can have run to its lowest up to RELEASE_AFTER_SECONDS after the
 * reading that saw it, by at least half the growth floor. Not young collections: in allocation-heavy code they run
 * every few milliseconds and free a few cycles (exceptions, frames, closures) at nearly every reading, so one would
 * coincide with any temporary freed by reference counting (an outside review of an intermediate version). Freeing objects is not enough: a program's exit, tracemalloc's report or a finished import free a few cycles
 * too (dict_cache_leak under --trace-python: 5 objects in its last second, while it leaked 2 MiB/s), and the memory
 * does not move. The agent's reading comes up to one sampling interval after the collection, so the samples before
 * it are taken one reading's spacing earlier. A release says garbage promoted past a young collection held memory
 * (gc_sawtooth: a generation-1 run comes at a young collection, every ~60 s, and the memory falls with it).
 * Boundary tests: rules/gc-backlog.test.ts.
 */
export const RELEASE_SHARE_OF_FLOOR = 0.5;
export const RELEASE_AFTER_SECONDS = 2;

/**
 * The lows after a full collection: over the 10 s after it, for the memory it frees shows at the next young teeth's
 * lows (gc_sawtooth: 12.3 MiB 2 s after it, 10.7 MiB within 10 s, 9.7 MiB before the backlog built up).
 */
export const AFTER_FULL_SECONDS = 10;

/** The lows at the end of a window: over its last 20 s, several young teeth of gc_sawtooth (every ~5 s). */
export const END_LOWS_SECONDS = 20;

/**
 * What is held back may be at most this many times the largest release seen: a backlog is garbage of the kind the
 * older generations keep freeing, so it grows by releases' worth between full collections (gc_sawtooth: ~4 MiB
 * released at each generation-1 run, 4–10 MiB of growth between full collections by the trend rules' measure). A
 * leak that outgrows that is called whatever the collector does (1 MiB/s for a minute: 60 MiB).
 */
export const BACKLOG_MAX_RELEASES = 4;

/** The agent's gc numbers must be this fresh at the window's end: a frozen count says nothing about now. */
export const GC_READING_MAX_AGE_SECONDS = 20;

/**
 * A full collection runs on the first young collection after the generation-1 count passes threshold2 (CPython's
 * gc_collect_generations), unless fewer than a quarter of the long-lived objects are new since the last one. So the
 * count reaches threshold2 + 1 and the collection follows within one young period; a count past that means the
 * quarter rule held it back, and nothing says when it will run: the backlog is not waited for then.
 */
export const DUE_SLACK_RUNS = 1;

/**
 * A wait longer than this is not a wait: growth over 15 minutes without a full collection is judged by the rules, as
 * a program without a backlog's would be. gc_sawtooth's full collections came every ~520 s beside two busy loops; a
 * leak in a program whose full collections are rarer than this is called no later than this.
 */
export const MAX_WAIT_SECONDS = 900;

export interface Backlog {
  /** Times of the collections in the window, after start-up and outside imports, that freed objects while the memory
   * fell (RELEASE_*), the largest fall, and how many objects the older generations (1 and 2) freed. */
  releases: number[];
  largestRelease: number;
  olderFreed: number;
  /** Full collections in the window after start-up and outside imports: the time of the reading that saw each. */
  fullCollections: number[];
  /** Generation-1 runs since the last full collection, at the last reading, and the threshold past which one comes due. */
  pending: number;
  threshold: number;
}

/** How a growing series stands against the collector's backlog. */
export type BacklogJudgement =
  | { kind: "waiting"; backlog: Backlog; dueIn: number }
  | { kind: "released"; backlog: Backlog; at: number; lowBefore: number; lowAfter: number };

const last = (c: Column | undefined) => (c && c.ys.length > 0 ? c.ys[c.ys.length - 1] : undefined);

/** Times of the readings of `col` in [from, to] whose value is above the reading before, and the sum of the rises. */
function increases(col: Column | undefined, from: number, to: number): { times: number[]; total: number } {
  if (!col) return { times: [], total: 0 };
  const i0 = lowerBound(col.xs, from);
  const i1 = lowerBound(col.xs, to + 1e-9);
  const times: number[] = [];
  let total = 0;
  for (let i = Math.max(1, i0); i < i1; i++) {
    const d = col.ys[i]! - col.ys[i - 1]!;
    if (d > 0) {
      times.push(col.xs[i]!);
      total += d;
    }
  }
  return { times, total };
}

/** The time of the reading of `col` before the one at `t` (the collection it saw ran in between), or `t`. */
function readingBefore(col: Column | undefined, t: number): number {
  const xs = col?.xs ?? [];
  const i = lowerBound(xs, t);
  return i >= 1 && i <= xs.length ? xs[i - 1]! : t;
}

/**
 * Whether modules were loaded at the reading at `t` or the one before it. Importing a library frees its garbage with
 * collections of every generation (importing torch: 15 generation-1 runs and a full collection in half a second), and
 * under load an import can outlast the start-up the rules leave out.
 */
function importing(modules: Column | undefined, t: number): boolean {
  if (!modules) return false;
  const i = lowerBound(modules.xs, t);
  const grew = (k: number) => k >= 1 && k < modules.ys.length && modules.ys[k]! > modules.ys[k - 1]!;
  return grew(i) || grew(i - 1);
}

/** The value of `col` at its last point at or before `t`; undefined when there is none. */
function valueAtOrBefore(col: Column, t: number): number | undefined {
  const i = lowerBound(col.xs, t + 1e-9);
  return i >= 1 ? col.ys[i - 1] : undefined;
}

/** Smallest value of `col` in [from, to); undefined when there is none. */
function lowest(col: Column, from: number, to: number): number | undefined {
  let m: number | undefined;
  for (let i = lowerBound(col.xs, from); i < col.xs.length && col.xs[i]! < to; i++)
    if (m === undefined || col.ys[i]! < m) m = col.ys[i]!;
  return m;
}

/**
 * The agent's gc numbers over [from, to] (seconds) against `metric`, or undefined when it did not report them (or
 * stopped reporting them: GC_READING_MAX_AGE_SECONDS), or on a collector whose third threshold is not a count (0 on
 * CPython 3.14's incremental collector; the agent reports nothing there).
 * @param freedFrom seconds: collections before this (start-up's) do not count
 * @param release bytes the lows must fall by for a collection to count as a release
 */
export function gcBacklog(
  ps: ProcessSeries,
  metric: Column,
  from: number,
  to: number,
  freedFrom: number,
  release: number,
): Backlog | undefined {
  const a = ps.agent;
  const count2 = a["py.gcCount2"];
  const pending = last(count2);
  const threshold = last(a["py.gcThreshold2"]);
  const freed1 = a["py.gcCollected1"];
  const freed2 = a["py.gcCollected2"];
  if (!freed1 || !freed2 || !a["py.gcRuns2"] || pending === undefined || threshold === undefined || !(threshold > 0))
    return undefined;
  if (to - count2!.xs[count2!.xs.length - 1]! > GC_READING_MAX_AGE_SECONDS) return undefined;
  const after = Math.max(from, freedFrom);
  const older1 = increases(freed1, after, to);
  const older2 = increases(freed2, after, to);
  const outsideImports = (t: number) => !importing(a["py.modules"], t);
  const fall = (t: number) => {
    const ran = readingBefore(count2, t);
    const since = ran - (t - ran);
    // The lower of the two samples before: one spike (a temporary read at its peak) is no level to fall from.
    const pre = Math.min(
      valueAtOrBefore(metric, since) ?? NaN,
      valueAtOrBefore(metric, since - 1e-6 - (t - ran)) ?? Infinity,
    );
    const post = lowest(metric, since + 1e-9, t + RELEASE_AFTER_SECONDS);
    return Number.isFinite(pre) && post !== undefined ? pre - post : 0;
  };
  const falls = [...new Set([...older1.times, ...older2.times])]
    .filter(outsideImports)
    .map((t) => ({ t, by: fall(t) }));
  const released = falls.filter((f) => f.by >= release);
  return {
    releases: released.map((f) => f.t),
    largestRelease: released.reduce((m, f) => Math.max(m, f.by), 0),
    olderFreed: older1.total + older2.total,
    fullCollections: increases(a["py.gcRuns2"], after, to).times.filter(outsideImports),
    pending,
    threshold,
  };
}

/**
 * For a metric the rules called growing over [from, to] by `growth`, when an older generation's collection released
 * memory in the window, the next full collection is not overdue, and the growth is within BACKLOG_MAX_RELEASES of
 * the largest release:
 *   - "released": a full collection ran in the window, brought the metric back down to within `floor` of its lows
 *     before the first one, and the lows at the end are within `floor` of where it brought them — what grew was
 *     garbage;
 *   - "waiting": no full collection has run in the window (or memory rose again after the last one, and a
 *     collection released memory since) — the growth may be garbage waiting for the next one, and it decides;
 *   - undefined otherwise (no gc numbers, no release, a full collection overdue, a wait over MAX_WAIT_SECONDS,
 *     growth larger than a backlog's, or memory kept): the rules' call stands.
 * Not overdue in both cases: a leak that began after the last full collection of a program whose full collections
 * then stopped must not hide behind it for good. Before the first release there is nothing to go on (gc_sawtooth's
 * first generation-1 run comes ~40 s in).
 * @param startupUntil seconds: the lows before a full collection are read from here, and collections before it are
 *        the start-up's (a process's start, from nothing to its working level, is no level to compare with)
 */
export function judgeBacklog(
  ps: ProcessSeries,
  metric: Column,
  from: number,
  to: number,
  floor: number,
  startupUntil: number,
  growth: number,
): BacklogJudgement | undefined {
  const backlog = gcBacklog(ps, metric, from, to, startupUntil, RELEASE_SHARE_OF_FLOOR * floor);
  if (!backlog || backlog.releases.length === 0 || growth > BACKLOG_MAX_RELEASES * backlog.largestRelease)
    return undefined;
  // Overdue (the quarter rule holds it back): nothing says when memory would come back, so nothing is waited for.
  const dueIn = backlog.threshold + DUE_SLACK_RUNS - backlog.pending;
  if (dueIn < 0) return undefined;
  // A full collection that has just run is judged once what it freed shows at the next young teeth's lows
  // (AFTER_FULL_SECONDS); until then the last one that can be judged is — else a program calling gc.collect() every
  // few seconds would be waited on for good.
  const settled = backlog.fullCollections.filter((t) => t + AFTER_FULL_SECONDS <= to);
  const lastFull = settled[settled.length - 1];
  if (lastFull === undefined) return to - from <= MAX_WAIT_SECONDS ? { kind: "waiting", backlog, dueIn } : undefined;
  if (to - lastFull > MAX_WAIT_SECONDS) return undefined;
  const runs2 = ps.agent["py.gcRuns2"];
  const lowBefore = lowest(
    metric,
    Math.max(from, startupUntil),
    readingBefore(runs2, backlog.fullCollections[0]!) + 1e-9,
  );
  const lowAfter = lowest(metric, readingBefore(runs2, lastFull) + 1e-9, lastFull + AFTER_FULL_SECONDS);
  // Since the last full collection only: right after it, the lows of before it are no end level.
  const lowAtEnd = lowest(metric, Math.max(to - END_LOWS_SECONDS, readingBefore(runs2, lastFull) + 1e-9), to + 1e-9);
  if (lowBefore === undefined || lowAfter === undefined || lowAtEnd === undefined || lowAfter - lowBefore >= floor)
    return undefined;
  // Grown by less than the floor since the level the full collection brought it back to: what grew was garbage.
  if (lowAtEnd - lowAfter < floor) return { kind: "released", backlog, at: lastFull, lowBefore, lowAfter };
  // Memory rose again after the last full collection: a backlog again only if a collection has released some since.
  return backlog.releases.some((t) => t > lastFull) ? { kind: "waiting", backlog, dueIn } : undefined;
}

/**
 * A "growing" assessment judged against the collector's backlog: "waiting" makes it insufficient (`waiting` says
 * why), "released" makes it flat (with a note saying what rose and when it came back). Any other assessment is
 * returned as it is.
 */
export function withGcBacklog(
  a: Assessment,
  ps: ProcessSeries,
  metric: Column,
): { a: Assessment; judgement?: BacklogJudgement; waiting?: GcWaitingFacts; note?: Phrase } {
  if (a.shape !== "growing") return { a };
  const judgement = judgeBacklog(
    ps,
    metric,
    a.from,
    a.to,
    minGrowth(a.start),
    startupEnd(ps.execAt ?? ps.firstSeen, a.to),
    a.growth,
  );
  if (!judgement) return { a };
  const b = judgement.backlog;
  const freed: GcFreedFacts = {
    olderFreed: b.olderFreed,
    releases: b.releases.length,
    largestRelease: b.largestRelease,
  };
  if (judgement.kind === "waiting") {
    return {
      a: { ...a, shape: "insufficient" },
      judgement,
      waiting: { ...freed, growth: a.growth, dueIn: judgement.dueIn },
    };
  }
  const note = phrase("gc.released", {
    ...freed,
    growth: a.growth,
    at: judgement.at,
    lowBefore: judgement.lowBefore,
    lowAfter: judgement.lowAfter,
  });
  return { a: { ...a, shape: "flat" }, judgement, note };
}

/**
 * The backlog of a process over [from, its end], for the tree's and the cgroup's rules (classify.ts): its judgement on
 * its own anonymous memory, and how much that changed over the window (what it can explain of theirs).
 */
export function backlogOf(
  ps: ProcessSeries,
  from: number,
): { judgement: BacklogJudgement; growth: number } | undefined {
  const metric = ps.metrics.anon ?? ps.metrics.rss;
  if (!metric || metric.length < 2) return undefined;
  const start = Math.max(from, ps.firstSeen);
  const growth = levelChange(metric, start) ?? 0;
  const judgement = judgeBacklog(
    ps,
    metric,
    start,
    ps.lastSeen,
    minGrowth(levels(metric.ys).end),
    startupEnd(ps.execAt ?? ps.firstSeen, ps.lastSeen),
    growth,
  );
  return judgement && { judgement, growth };
}
