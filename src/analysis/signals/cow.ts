/**
 * Copy-on-write in forked workers (docs/verdicts.md, copy-on-write): a process's private memory (USS) rises while its resident memory
 * (RSS anon) does not, because pages it shares with its parent (or, for the parent, with its children) are being
 * copied one reference-count write at a time. Real memory, bounded by the parent's anonymous memory at fork time —
 * not a leak. Both are measured over the process's whole life, so a warm-up that grew both is not mistaken for it.
 */
import { levelPoints, levels, minGrowth } from "../assess.js";
import { median } from "../stats/quantiles.js";
import type { ProcessSeries } from "../../series/series.js";

/**
 * Resident growth (anon, and RSS) may be at most this share of the USS growth. Measured by
 * scripts/threshold-margins.mjs on fixtures/recordings and fixtures/calibration/recordings: the copy-on-write
 * recordings keep it at 0.00 (fork_cow) and 0.02 (small_cow); the nearest processes whose USS grew for another reason
 * have 0.49 (slow_leak: a leak grows both) and 0.90 (long_warmup). 0.2 leaves room for a worker that also allocates a
 * little of its own while it copies. Boundary tests: rules/cow.test.ts (15% / 25%, anon and RSS apart).
 */
export const COW_RESIDENT_SHARE = 0.2;
/**
 * Copying worth reporting: 8 MiB, or 5% of the process's RSS. Smaller USS changes come from other processes mapping
 * or unmapping the same library pages, not from copying: a worker's USS moves by 2–4 MiB when a sibling exits
 * (cow_below_floor, cow_below_floor_steady), while small_cow's workers copy 13.6 MiB. Boundary tests:
 * rules/cow.test.ts (7 / 9.5 MiB on a small worker; 4.4% / 5.6% of a big one's RSS).
 */
export const COW_MIN_BYTES = 8 * 2 ** 20;
/**
 * Copying beside growth of the process's own (a worker that leaks while it copies: issue 27): resident memory grows
 * by what it allocates, USS by that plus what it copies. The copied part is USS growth − resident growth, and it is
 * counted only when the pages shared with the relative fell by at least this share of it — proof that shared pages
 * became private, which a leak alone (slow_leak: shared flat) never shows. 0.8: Shared_Clean/Shared_Dirty are read
 * with PSS, up to --pss-every older than USS's own reading. Boundary tests: rules/cow.test.ts.
 */
export const COW_SHARED_DROP_SHARE = 0.8;
export const COW_MIN_SHARE = 0.05;

export type Copying = CowSignal & { residentStart: number; residentEnd: number };

export interface CowSignal {
  ussStart: number;
  ussEnd: number;
  ussGrowth: number;
  residentGrowth: number;
  sharedDrop: number | undefined;
  /** What the copying is bounded by: the parent's anon when this child appeared (or its own anon, for the root). */
  bound: number | undefined;
  /** The process's resident memory grew too (by its own allocations): `ussGrowth` is the copied part only. */
  besideGrowth?: boolean;
}

/**
 * USS readings a process needs for its copying to be read. USS comes with PSS, from smaps_rollup, which memleak reads
 * every few ticks (its cost grows with the tree): a worker seen for 12 s had 3 readings (1.9 → 4.5 → 5.7 MiB, RSS flat
 * at 24 readings), its copying went unread, and the tree's Σ PSS that it and its sibling grew by 9 MiB was called a leak
 * until 20 s in (fixtures/calibration/recordings/small_cow.jsonl cut at 8-20 s: the progress lines said `leak`).
 */
export const COPYING_MIN_USS_READINGS = 3;

/**
 * The levels a series starts and ends at, as `levels` reads them, from as few as 3 readings: each end's level is its own
 * half at most, so a short series' ends do not overlap into one median (3 readings: the first and the last).
 */
function sparseLevels(ys: readonly number[]): { start: number; end: number } {
  if (ys.length >= 2 * levelPoints(ys.length)) return levels(ys);
  const k = Math.max(1, Math.floor(ys.length / 2));
  return { start: median(ys.slice(0, k))!, end: median(ys.slice(-k))! };
}

/**
 * @param relativesAtEnd whether a process it shares pages with (its forking parent, or forked children) was still
 *        alive at its last sample: when they have exited, their pages became this process's own — its USS rose
 *        without any copying.
 */
/** Copying big enough to report on its own (see COW_MIN_BYTES), from the process's `copying` signal. */
export function copyOnWrite(ps: ProcessSeries, c: Copying | undefined): CowSignal | undefined {
  if (!c) return undefined;
  const rssLevel = ps.metrics.rss?.max() ?? c.residentEnd;
  return c.ussGrowth >= Math.max(minGrowth(c.residentStart), COW_MIN_BYTES, COW_MIN_SHARE * rssLevel) ? c : undefined;
}

/**
 * The shape of copy-on-write without its size floor: USS grew while resident memory did not, with a relative alive.
 * classify.ts adds these up across a tree: workers that each copy less than the floor can together explain a tree's
 * growth (fixtures/calibration/cow_below_floor_steady: 3.5 MiB each, the tree +7 MiB).
 */
export function copying(ps: ProcessSeries, relativesAtEnd: boolean): Copying | undefined {
  if (!relativesAtEnd) return undefined;
  const uss = ps.metrics.uss;
  const resident = ps.metrics.anon ?? ps.metrics.rss;
  if (!uss || !resident || uss.length < COPYING_MIN_USS_READINGS || resident.length < 6) return undefined;
  const u = sparseLevels(uss.ys);
  const r = levels(resident.ys);
  const ussGrowth = u.end - u.start;
  const residentGrowth = r.end - r.start;
  const sharedDrop = ps.shared.length >= 2 ? ps.shared.first()! - ps.shared.last()! : undefined;
  const signal = {
    ussStart: u.start,
    ussEnd: u.end,
    ussGrowth,
    residentGrowth,
    sharedDrop,
    bound: ps.parentAnonAtStart ?? resident.max(),
    residentStart: r.start,
    residentEnd: r.end,
  };
  if (!(ussGrowth > 0)) return undefined;
  if (residentGrowth > COW_RESIDENT_SHARE * ussGrowth) return copyingBesideGrowth(signal);
  // Total RSS must stay flat too: loading libraries raises USS (private file pages) and RSS, but not anon.
  const rss = ps.metrics.rss;
  if (rss && rss.length >= 6) {
    const t = levels(rss.ys);
    if (t.end - t.start > COW_RESIDENT_SHARE * ussGrowth) return undefined;
  }
  return signal;
}

/**
 * A process whose resident memory grows while it copies: the copied part (USS growth − resident growth), when the
 * shared pages fell by as much (COW_SHARED_DROP_SHARE). Undefined when nothing beyond its own growth was copied.
 */
function copyingBesideGrowth(s: Copying): Copying | undefined {
  const copied = s.ussGrowth - Math.max(0, s.residentGrowth);
  if (
    !(copied > 0) ||
    s.residentGrowth <= 0 ||
    s.sharedDrop === undefined ||
    s.sharedDrop < COW_SHARED_DROP_SHARE * copied
  )
    return undefined;
  return { ...s, ussGrowth: copied, besideGrowth: true };
}

/**
 * The same shape read live, from two readings (session/cow-ask.ts asks the agent then; watch's placement gives such a
 * worker an agent): what USS rose by beyond the process's own growth (anon) since the first reading, when that passes
 * the byte floor. The bytes copied so far, or undefined.
 *
 * Own growth is subtracted, not compared by share as copying() does over a whole life: live, the first reading is
 * wherever the sampler first read the worker's smaps, and a DataLoader worker copies 5 MiB in its first half second
 * while its collate allocates 3 MiB of its own. A frozen dataset's worker (fixtures/scenarios/cow_dataloader.py
 * frozen) copied 20.6 MiB beside +3.3 MiB of anon from its first reading (16%) but 14.9 MiB from its second (22%),
 * and was then never asked (CI on 0c8fb30). A leaking worker grows USS and anon alike: nothing left to ask about.
 */
export function copiedSoFar(w: { ussStart: number; anonStart: number }, uss: number, anon: number): number | undefined {
  const copied = copiedSince(w, uss, anon);
  return copied >= COW_MIN_BYTES ? copied : undefined;
}

/** USS's rise since the first reading beyond anon's own (copiedSoFar without its floor: may be negative). */
export function copiedSince(w: { ussStart: number; anonStart: number }, uss: number, anon: number): number {
  return uss - w.ussStart - Math.max(0, anon - w.anonStart);
}

/**
 * A forked process's anon must still share at least this share with its parent (anon beyond USS) for its first reading
 * to be read as a fork's: a program its parent exec'd shares no anonymous memory, so its USS holds all its anon (and
 * its private file pages), and "USS beyond its own growth" would be the whole of it. A pool worker that read a dict of
 * 400k strings in its first second: anon 91 MiB, USS 51 MiB (44% still shared). A fifth: a process whose USS is 90% of
 * an anon the size of its parent's could be a fork that copied nearly everything or a program of the same size, and is
 * not called either.
 */
export const FORK_SHARED_SHARE = 0.2;
/**
 * …and hold at least this share of its parent's anon: a fork inherits all of it, and a worker holding much less has
 * freed what it inherited (or was exec'd), so what it holds privately may be its own allocations, not copies.
 */
export const FORK_KEPT_SHARE = 0.5;

/**
 * What a forked worker had copied of its parent's pages before memleak's first reading of it (a `multiprocessing.Pool`
 * whose first task reads the whole dataset, in its first second): USS beyond the anon it has over its parent's, at that
 * first reading — a fork inherits its parent's anon as shared pages, and each it writes becomes its own. The bytes
 * when they reach copy-on-write's byte floor and the process looks forked (FORK_SHARED_SHARE, FORK_KEPT_SHARE); undefined
 * otherwise (an exec'd child, a fork that copied little, a reading without USS). copiedSoFar counts what it copies
 * after that reading.
 */
export function copiedAtFirstSight(
  first: { uss?: number | undefined; anon?: number | undefined },
  parentAnon: number | undefined,
): number | undefined {
  const { uss, anon } = first;
  if (uss === undefined || anon === undefined || parentAnon === undefined || !(anon > 0)) return undefined;
  if (anon - uss < FORK_SHARED_SHARE * anon || anon < FORK_KEPT_SHARE * parentAnon) return undefined;
  const copied = uss - Math.max(0, anon - parentAnon);
  return copied >= COW_MIN_BYTES ? Math.min(copied, parentAnon) : undefined;
}
