/**
 * The live heap, as the in-process agent measures it: malloc's in-use bytes plus Python's small objects (pymalloc's
 * blocks, which live in arenas malloc never sees, counted at TYPICAL_BLOCK bytes each). Resident memory says what the
 * process holds; this says what it uses. The two part ways when malloc keeps freed memory (fragmentation): a leak
 * then first fills the holes malloc already holds, and resident memory stays flat while the live heap climbs — a
 * leak hidden in retained memory, which the anon trend alone would call a plateau or stable (issue 27's second
 * program: RSS flat after ~80 s while malloc's in-use bytes between its 10–40 MB temporaries rose 3.8 → 11.0 MiB).
 */
import { assess, levelChange, levels, shapesFitFrom, type Assessment } from "../assess.js";
import { quantile } from "../stats/quantiles.js";
import { trendTest } from "../stats/trend.js";
import { sliceByTime } from "../stats/window.js";
import { Column } from "../../series/column.js";
import type { ProcessSeries } from "../../series/series.js";
import { TYPICAL_BLOCK } from "./fragmentation.js";
import { LAYER_MIN_SHARE, otherAllocator } from "./layer.js";
import type { Settling } from "../phrases.js";

/**
 * malloc's in-use bytes + pymalloc blocks × TYPICAL_BLOCK, at the agent reports that carry malloc's numbers (both
 * fields come in the same report, so their times are the same; a report without the blocks counts none). Undefined
 * without the agent's malloc numbers, or under jemalloc/tcmalloc (glibc's counters see nothing there).
 */
export function liveHeapColumn(ps: ProcessSeries, blockBytes = TYPICAL_BLOCK): Column | undefined {
  if (otherAllocator(ps)) return undefined;
  const inUse = ps.agent["malloc.inUse"];
  if (!inUse || inUse.length === 0) return undefined;
  const blocks = ps.agent["py.allocatedBlocks"];
  const blocksAt = new Map<number, number>();
  if (blocks) for (let i = 0; i < blocks.xs.length; i++) blocksAt.set(blocks.xs[i]!, blocks.ys[i]!);
  const ys = inUse.ys.map((y, i) => y + (blocksAt.get(inUse.xs[i]!) ?? 0) * blockBytes);
  return Column.of([...inUse.xs], ys, undefined);
}

/**
 * How much the live heap grew from `from` (seconds) to the end, by the median levels of its first and last tenths
 * (assess.ts `levelChange`): over the window the anon trend was judged on, so a burst freed before it (a
 * fragmenting start-up) is not counted as the live heap shrinking. Undefined without the agent's malloc numbers.
 */
export function liveHeapGrowth(ps: ProcessSeries, from: number): number | undefined {
  return levelChange(liveHeapColumn(ps), from);
}

/** The lows of a live heap that leaks rise by at least this share of its growth (a steady climb: all of it). */
export const LIVE_LOWS_SHARE = 0.5;

/**
 * The live heap's trend over the analyzed window, when it grows on its own terms: the shape rules say "growing"
 * (a robust trend over the growth floor, or rising lows under swings — not a plateau, not only the early test, whose
 * few seconds of a heap that is still filling after start-up prove nothing). Undefined otherwise.
 */
export function liveHeapLeak(ps: ProcessSeries, from: number): Assessment | undefined {
  const col = liveHeapColumn(ps);
  if (!col) return undefined;
  const judged = Math.max(from, ps.firstSeen);
  const start = afterFreedBurst(col, judged);
  // After a freed burst, the whole series the shape rules see starts there too: the burst is no rise to a plateau.
  const a = assess(col, start, start === judged ? ps.firstSeen : start);
  if (a.shape !== "growing" || a.early) return undefined;
  // Its lows rise with it: what a program keeps stays at the bottom of its churn, while a sawtooth's medians can
  // drift with the phase a window happens to end in (a GC-cycle program's live heap swings 4–22 MiB each few seconds).
  return lowsChange(sliceByTime({ xs: col.xs, ys: col.ys }, a.from).ys) >= LIVE_LOWS_SHARE * a.growth ? a : undefined;
}

/** A burst is the live heap at this many times its end level or more, freed since (frag_and_leak: 450 MB, then 15-37). */
export const BURST_OVER_END = 4;

/**
 * Where the live heap is judged from: `from`, or the low after a burst that was freed, when there is one in the window
 * and what follows it is long enough for the shape rules. A burst's seconds in the window (450 MB of buffers built
 * over 14 s on a busy machine, in 1 s on a quiet one) make the trend test see a fall, and the climb after the free —
 * a leak filling the freed holes — went unseen (frag_and_leak: fragmentation alone, one CI run in three).
 */
export function afterFreedBurst(col: Column, from: number): number {
  const w = sliceByTime({ xs: col.xs, ys: col.ys }, from);
  const n = w.ys.length;
  if (n < 2) return from;
  let peak = 0;
  for (let i = 1; i < n; i++) if (w.ys[i]! > w.ys[peak]!) peak = i;
  if (!(w.ys[peak]! >= BURST_OVER_END * levels(w.ys).end)) return from;
  // The low the climb starts from, not one at its end: the lowest point of the first half after the peak.
  const half = peak + Math.ceil((n - peak) / 2);
  let low = peak;
  for (let i = peak + 1; i < half; i++) if (w.ys[i]! < w.ys[low]!) low = i;
  // Once: swings that come back to the peak's half are a program's churn, not a burst it freed (swing_leak's 100 MB
  // temporaries were cut to their last few and a leak under them was called stable, in CI).
  for (let i = low + 1; i < n; i++) if (w.ys[i]! >= w.ys[peak]! / 2) return from;
  return low > peak && shapesFitFrom(col.xs, w.xs[low]!) ? w.xs[low]! : from;
}

/**
 * The live heap's swing (its 90th − 10th percentile over the window) must cover the anon growth for that growth to be
 * the allocators settling: memory a program churns through (cycles freed at each young collection, buffers freed
 * after each batch) is handed back to pymalloc's arenas and malloc's free lists, which keep it, and a process seen
 * from mid-flight fills them up to the high-water mark of its churn before it levels off. Growth beyond what the
 * churn can account for is not settling (a leak, or retention the fragmentation rule judges). 1: the whole swing, no
 * margin — issue 27's GC-cycle program rose 16 MiB under a ~40 MiB swing.
 */
export const SETTLING_SWING_COVERS = 1;
/** Agent readings in the window before the live heap's level and swing mean anything (levels: 3 at each end). */
export const SETTLING_MIN_READINGS = 6;

/**
 * pymalloc serves requests up to 512 bytes: its blocks counted at that size bound Python's small objects from above.
 * The settling rule counts them so, to lean toward a leak: a small-object leak under churn must show in the live
 * heap's trend (issue 27's GC-cycle program: 70k–350k blocks of ~260 bytes, which 64 bytes a block made a swing of
 * 16 MiB under an anon rise of 17.5 MiB, and a leak).
 */
const SMALL_OBJECT_MAX_BYTES = 512;

/**
 * Anon grows, but what the program uses does not: the live heap shows no growth of its own — no trend, no rising
 * lows, by the same shape rules as anon, its small objects counted at their largest — while it swings by more than
 * anon grew. That is the allocators filling to the program's working size (a process attached to mid-flight is still
 * settling), not live memory kept: no leak is called on it while it lasts. Only with the agent's malloc numbers under
 * glibc; a leak the live heap cannot see (thread stacks, a C extension's own mmap) leaves it flat without a swing,
 * and stays a leak.
 */
export function allocatorSettling(ps: ProcessSeries, a: Assessment): Settling | undefined {
  if (a.shape !== "growing" || !(a.growth > 0)) return undefined;
  const col = liveHeapColumn(ps, SMALL_OBJECT_MAX_BYTES);
  if (!col) return undefined;
  const w = sliceByTime({ xs: col.xs, ys: col.ys }, a.from);
  if (w.ys.length < SETTLING_MIN_READINGS) return undefined;
  const live = assess(col, Math.max(a.from, ps.firstSeen), ps.firstSeen);
  // Too few readings for the live heap's own shape is no evidence that it does not grow (a 16 s run, one reading a
  // second: a thread's steady leak of small objects was taken for settling).
  if (live.shape !== "flat" && live.shape !== "falling") return undefined;
  // What the program keeps is what is left at the lows of its churn: with a leak under it they rise even where the
  // shape rules see only swings (swing_leak: 100 MB temporaries, the lows of malloc's in-use bytes 2 → 33 MiB in
  // 24 s). Counted at TYPICAL_BLOCK, the lows of a GC sawtooth move by noise only.
  const typicalCol = liveHeapColumn(ps)!;
  const typical = sliceByTime({ xs: typicalCol.xs, ys: typicalCol.ys }, a.from).ys;
  const lowsRise = lowsChange(typical);
  // Each third's low is a reading taken wherever it fell in the churn's cycle: one taken a reading after the heap's
  // true low is higher by what it climbs between two readings. So much of a rise is the readings' phase, up to as
  // much again as the share asked (issue 27's GC-cycle program watched beside busy loops: a ~3 s sawtooth of 5-23 MiB
  // read once a second, its lows +2.1 MiB by phase alone against anon's +7.3 MiB, and the progress line said leak at
  // 32-34 s). A leak's lows rise by at least half of what it grows (LIVE_LOWS_SHARE), past that allowance.
  const phase = Math.min(medianClimb(typical), LAYER_MIN_SHARE * a.growth);
  if (lowsRise - phase >= LAYER_MIN_SHARE * a.growth) return undefined;
  // Nor does a churn that settles raise its highs: its high-water mark is what anon fills up to. A live heap whose highs
  // climb grew, even if it fell again before the end (a thread's leaked list freed as the thread returns, just before
  // the program exits: the last readings' lows fall, and the one cliff read as a 187 MiB swing). So a swing covers
  // anon's growth only with the highs still — still but for the readings' phase, as for the lows: each third's high is
  // a reading taken a climb short of the churn's true top, or not (the GC-cycle program watched three at once: highs
  // +0.76 MiB under a 124 MiB swing, against a quarter of anon's +2.98 MiB, and a leak at 40-53 s; CI run 33's first try).
  const highsRise = thirdsChange(typical, 0.9);
  const swing = detrendedSwing(w);
  if (highsRise - phase < LAYER_MIN_SHARE * a.growth && swing >= SETTLING_SWING_COVERS * a.growth)
    return { growth: a.growth, liveGrowth: lowsRise, swing };
  // A churn within each reading (a batch built and freed between two samples) leaves no swing, but malloc's free
  // bytes say where anon went: into freed memory malloc keeps. The caller first asks whether a growing container pins
  // it (process.ts), which makes it a leak's.
  // Only while the rise is small beside what the program uses: a leak whose kept objects pin freed memory (kept losses)
  // grows malloc's free bytes too, and where the census cannot say so (no walk yet, a holder it does not follow) the
  // excuse must end as the rise accumulates, not last until retention is decided at 64 MiB held.
  const freedKept = freedGrowth(ps.agent["malloc.free"], a.from);
  if (freedKept === undefined || freedKept < FREED_KEPT_COVERS * a.growth) return undefined;
  if (a.growth > FREED_KEPT_MAX_GROWTH * levels(typical).end) return undefined;
  // Here malloc's own counters say where anon went, so the highs may climb by some of it: a reading that catches the
  // loop's temporaries alive lands anywhere in their lifetime (a fixed training loop beside a busy neighbour: highs
  // +0.7 MiB, 28% of anon's +2.5 MiB, all of which was malloc's free bytes). Not by all of it: a leak freed at the end
  // raised the live heap's peak by at least what anon kept.
  if (highsRise >= a.growth) return undefined;
  return { growth: a.growth, liveGrowth: lowsRise, swing, freedKept };
}

/**
 * …and anon's rise must be at most this share of the live heap (its level at the end of the window) for that: the
 * fixed loop's 2.86 MiB against its 88.8 MiB live heap is 3%; kept losses in a torchvision loop rose 500 MiB against
 * 311 MiB in 25 s.
 */
export const FREED_KEPT_MAX_GROWTH = 0.1;

/**
 * The share of anon's growth that the growth of malloc's free bytes must cover, with the live heap flat, for that
 * growth to be the allocators settling: most of it. The rest is pymalloc's arenas (which malloc's counters do not see)
 * and noise: a fixed PyTorch loop under `run` beside a busy neighbour grew anon 2.86 MiB over 20 s while malloc's free
 * bytes grew 2.35 MiB and its in-use bytes fell 68 KiB — called a leak, one run in two, before this.
 */
export const FREED_KEPT_COVERS = 0.5;

/**
 * How much malloc's free bytes grew from `from`: their levels' change, or their trend's (Theil–Sen over the window)
 * where that is more. They swing by as much as they grow as the loop's temporaries come and go, and each end's level is
 * three readings' phase: a fixed training loop's free bytes climbed ~1.7 MiB in 13 s (1.5-4.3 MiB readings) and their
 * levels said 1.29, under half of anon's 2.8 MiB rise, so the settling was not seen and the loop was called a leak.
 */
function freedGrowth(col: Column | undefined, from: number): number | undefined {
  const level = levelChange(col, from);
  if (col === undefined || level === undefined) return undefined;
  const w = sliceByTime(col, from);
  const t = trendTest(w.xs, w.ys);
  const span = (w.xs.at(-1) ?? 0) - (w.xs[0] ?? 0);
  return t.ok ? Math.max(level, t.theilSen.slope * span) : level;
}

/**
 * The 90th − 10th percentile of a series once the straight line from its first tenth's level to its last tenth's is
 * taken out: how far it swings about its course, not how far it went (a growing series' percentiles span its growth).
 */
function detrendedSwing(w: { xs: readonly number[]; ys: readonly number[] }): number {
  const n = w.xs.length;
  const { start, end } = levels(w.ys);
  const x0 = w.xs[0]!;
  const span = Math.max(1e-9, w.xs[n - 1]! - x0);
  const rest = w.ys.map((y, i) => y - (start + ((end - start) * (w.xs[i]! - x0)) / span));
  return (quantile(rest, 0.9) ?? 0) - (quantile(rest, 0.1) ?? 0);
}

/** The median of a series' rises between consecutive readings (0 when it never rises). */
function medianClimb(ys: readonly number[]): number {
  const rises: number[] = [];
  for (let i = 1; i < ys.length; i++) if (ys[i]! > ys[i - 1]!) rises.push(ys[i]! - ys[i - 1]!);
  return quantile(rises, 0.5) ?? 0;
}

/** The 10th percentile of the last third of a series minus that of its first third. */
export function lowsChange(ys: readonly number[]): number {
  return thirdsChange(ys, 0.1);
}

/** The `p` quantile of the last third of a series minus that of its first third. */
function thirdsChange(ys: readonly number[], p: number): number {
  const third = Math.max(1, Math.floor(ys.length / 3));
  return (quantile(ys.slice(-third), p) ?? 0) - (quantile(ys.slice(0, third), p) ?? 0);
}
