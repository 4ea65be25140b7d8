/**
 * Copy-on-write in forked workers (METRICS.md §3): a process's private memory (USS) rises while its resident memory
 * (RSS anon) does not, because pages it shares with its parent (or, for the parent, with its children) are being
 * copied one reference-count write at a time. Real memory, bounded by the parent's anonymous memory at fork time —
 * not a leak. Both are measured over the process's whole life, so a warm-up that grew both is not mistaken for it.
 */
import { levels, minGrowth } from "../assess.js";
import type { ProcessSeries } from "../series.js";

/** Resident growth may be at most this share of the USS growth. */
export const COW_RESIDENT_SHARE = 0.2;
/**
 * Copying worth reporting: 8 MiB, or 5% of the process's RSS. Smaller USS changes come from other processes mapping
 * or unmapping the same library pages, not from copying.
 */
export const COW_MIN_BYTES = 8 * 2 ** 20;
export const COW_MIN_SHARE = 0.05;

export interface CowSignal {
  ussStart: number;
  ussEnd: number;
  ussGrowth: number;
  residentGrowth: number;
  sharedDrop: number | undefined;
  /** What the copying is bounded by: the parent's anon when this child appeared (or its own anon, for the root). */
  bound: number | undefined;
}


/**
 * @param relativesAtEnd whether a process it shares pages with (its forking parent, or forked children) was still
 *        alive at its last sample: when they have exited, their pages became this process's own — its USS rose
 *        without any copying.
 */
export function copyOnWrite(ps: ProcessSeries, relativesAtEnd: boolean): CowSignal | undefined {
  if (!relativesAtEnd) return undefined;
  const uss = ps.metrics.uss;
  const resident = ps.metrics.anon ?? ps.metrics.rss;
  if (!uss || !resident || uss.length < 6 || resident.length < 6) return undefined;
  const u = levels(uss.ys);
  const r = levels(resident.ys);
  const ussGrowth = u.end - u.start;
  const residentGrowth = r.end - r.start;
  const rssLevel = ps.metrics.rss?.max() ?? r.end;
  if (!(ussGrowth >= Math.max(minGrowth(r.start), COW_MIN_BYTES, COW_MIN_SHARE * rssLevel))) return undefined;
  if (residentGrowth > COW_RESIDENT_SHARE * ussGrowth) return undefined;
  // Total RSS must stay flat too: loading libraries raises USS (private file pages) and RSS, but not anon.
  const rss = ps.metrics.rss;
  if (rss && rss.length >= 6) {
    const t = levels(rss.ys);
    if (t.end - t.start > COW_RESIDENT_SHARE * ussGrowth) return undefined;
  }
  return {
    ussStart: u.start,
    ussEnd: u.end,
    ussGrowth,
    residentGrowth,
    sharedDrop: ps.shared.length >= 2 ? ps.shared.first()! - ps.shared.last()! : undefined,
    bound: ps.parentAnonAtStart ?? resident.max(),
  };
}
