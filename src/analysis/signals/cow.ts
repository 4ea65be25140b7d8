/**
 * Copy-on-write in forked workers (METRICS.md §3): a child's USS rises while its RSS stays flat, because pages it
 * shares with its parent are being copied, one reference-count write at a time. Real memory, bounded by the parent's
 * anonymous memory at fork time — not a leak.
 */
import type { Assessment } from "../assess.js";
import type { ProcessSeries } from "../series.js";

export interface CowSignal {
  ussStart: number;
  ussEnd: number;
  rssGrowth: number;
  sharedDrop: number | undefined;
  /** What the copying is bounded by: the parent's anon when this child appeared (or its own anon, for the root). */
  bound: number | undefined;
}

/** USS grew (trend or plateau) while RSS/anon did not grow by more than a fifth of that. */
export function copyOnWrite(ps: ProcessSeries, uss: Assessment | undefined, resident: Assessment): CowSignal | undefined {
  if (!uss || (uss.shape !== "growing" && uss.shape !== "plateau" && uss.shape !== "step")) return undefined;
  if (resident.shape === "growing" || resident.growth > 0.2 * uss.growth) return undefined;
  const shared = ps.shared.length >= 2 ? ps.shared.first()! - ps.shared.last()! : undefined;
  return {
    ussStart: uss.start,
    ussEnd: uss.end,
    rssGrowth: resident.growth,
    sharedDrop: shared,
    bound: ps.parentAnonAtStart ?? ps.metrics.anon?.first(),
  };
}
