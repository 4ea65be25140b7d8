/**
 * Allocator retention, judged from the in-process agent's numbers (src/agent): what the process holds resident
 * (RSS anon) against what is live, and whether malloc itself says it holds the difference as free memory.
 *
 *   live  = malloc's in-use bytes (mallinfo2 uordblks + hblkhd)
 *         + small Python objects, which pymalloc keeps in its own arenas that mallinfo2 never sees
 *           (sys.getallocatedblocks() × TYPICAL_BLOCK: ints are 32-byte blocks, small tuples and strings 48–96)
 *   held  = anon − live
 *   retention when held ≥ HELD_MIN_BYTES and ≥ HELD_SHARE of anon, AND malloc's own free-but-held bytes (fordblks)
 *   cover at least FREE_COVERS of it — without that, the difference is live memory malloc does not count (a big
 *   Python list of ints), not retention. Or when the trim probe gives ≥ TRIM_SHARE of anon back: proof on its own.
 */
import type { ProcessSeries } from "../../series/series.js";
import { endLevel, levels } from "../assess.js";
import type { TrimResult } from "../../agent/agent-results.js";
import { otherAllocator } from "./layer.js";

/**
 * Held must be at least half of anon. Measured by scripts/threshold-margins.mjs on the recordings and the calibration
 * set: the retention recordings hold 0.63 (partial_frag), 0.98 (frag_burst) and 0.99 (thread_arenas) of their anon;
 * every other process the agent saw holds at most 0.42 (torch_losses_leak, a leak whose malloc keeps some free), and
 * partial_frag_below, built to sit under the line, 0.37. Half is the middle of that gap. Boundary tests:
 * rules/fragmentation.test.ts (45% / 55%).
 */
export const HELD_SHARE = 0.5;
/**
 * And at least 64 MiB: glibc sizes each non-main arena's heap at HEAP_MAX_SIZE, 64 MiB on 64-bit (malloc/arena.c),
 * so less than that is within one arena's ordinary slack. The smallest retention recording holds 144 MiB
 * (partial_frag). Boundary tests: 60 / 70 MiB.
 */
export const HELD_MIN_BYTES = 64 * 2 ** 20;
/**
 * malloc's own free bytes (fordblks) must cover half of held, or the difference is live memory malloc does not count
 * (pymalloc arenas of a big list of small ints, mmap'd buffers). The retention recordings cover 0.96–1.05 of it;
 * a 9-million-int list covers ~0 (classify.test.ts). Boundary tests: 45% / 55%.
 */
export const FREE_COVERS = 0.5;
/**
 * The trim probe (--trim-probe: malloc_trim(0) at the end) proves retention on its own when it gives back at least
 * 30% of what the process held resident during the watch. Measured with --trim-probe on the scenarios: frag_burst
 * gave back 89% of its anon, partial_frag 83%, leak_main 0.6%. Against the watch's level, not the anon just before
 * the trim: a program that frees its live data before it exits leaves little besides the free memory, and the trim
 * then gives back most of a small remainder (partial_frag_below: 85% of the 75 MB left at exit, 26% of the 242 MB
 * it held). Boundary tests: 28% / 32%, and 30 / 34 MiB.
 */
export const TRIM_SHARE = 0.3;
/**
 * Agent reports before retention is judged on a window too short for a trend: retention is a state, visible in one
 * reading, but the end level is the median of the last ≥ 3 reports (assess.ts levels), so with 3 one odd report
 * (taken mid-burst) does not decide it. Boundary tests: rules/fragmentation.test.ts (2 / 3 reports).
 */
export const STATE_MIN_READINGS = 3;
/** Bytes per pymalloc block to count small Python objects as live: generous, so live memory is not called retention. */
export const TYPICAL_BLOCK = 64;

export interface Retention {
  /** Resident anonymous memory at the end. */
  anon: number;
  /** Live bytes at the end: malloc in use + small Python objects. */
  live: number;
  /** malloc's in-use bytes alone. */
  mallocInUse: number;
  /** malloc's free-but-held bytes (fordblks). */
  mallocFree: number;
  held: number;
  heldShare: number;
  /** Growth of malloc's in-use bytes over the whole series: a leak grows it, retention does not. */
  liveGrowth: number;
  arenas: number | undefined;
  trimmed: number | undefined;
  decided: boolean;
  /** Agent reports with malloc's numbers (a trim probe's result counts as enough: it is a measurement in itself). */
  readings: number;
}

export function retention(ps: ProcessSeries, trim?: TrimResult): Retention | undefined {
  const anonCol = ps.metrics.anon ?? ps.metrics.rss;
  // Under jemalloc or tcmalloc the agent sends no in-use bytes; those of a process that re-exec'd itself with the
  // allocator preloaded (jemalloc_leak.py) are glibc's from before the exec, and say nothing about it now.
  const inUseCol = otherAllocator(ps) ? undefined : ps.agent["malloc.inUse"];
  const trimBefore = trim?.anonBefore ?? ps.agent["trim.anonBefore"]?.last();
  const trimAfter = trim?.anonAfter ?? ps.agent["trim.anonAfter"]?.last();
  if (!anonCol || anonCol.length === 0 || ((!inUseCol || inUseCol.length === 0) && trimBefore === undefined))
    return undefined;
  // The level it ends at, or what it held when the trim probe started if that is more: malloc_trim(0) at exit gives
  // memory back over seconds on a busy machine (frag_burst beside two busy loops: 624 MiB falling to 82 MiB over the
  // last 4.5 s of 20), and those samples, the probe's doing, are the last tenth the end level is the median of.
  const anon = Math.max(levels(anonCol.ys).end, trimBefore ?? -Infinity);
  const mallocInUse = endLevel(inUseCol) ?? NaN;
  const mallocFree = endLevel(ps.agent["malloc.free"]) ?? 0;
  const small = (endLevel(ps.agent["py.allocatedBlocks"]) ?? 0) * TYPICAL_BLOCK;
  const live = mallocInUse + small;
  const held = anon - live;
  const trimmed = trimBefore !== undefined && trimAfter !== undefined ? trimBefore - trimAfter : undefined;
  const heldDuringWatch = Math.max(trimBefore ?? 0, anon);
  const byTrim =
    trimmed !== undefined &&
    heldDuringWatch > 0 &&
    trimmed / heldDuringWatch >= TRIM_SHARE &&
    trimmed >= HELD_MIN_BYTES / 2;
  const byHeld =
    Number.isFinite(held) && held >= HELD_MIN_BYTES && held / anon >= HELD_SHARE && mallocFree >= FREE_COVERS * held;
  const inUse = inUseCol && inUseCol.length > 0 ? levels(inUseCol.ys) : undefined;
  return {
    anon,
    live,
    mallocInUse,
    mallocFree,
    held,
    heldShare: anon > 0 ? held / anon : 0,
    liveGrowth: inUse ? inUse.end - inUse.start : NaN,
    arenas: ps.agent["malloc.arenas"]?.last(),
    trimmed,
    decided: byTrim || byHeld,
    readings: byTrim ? Infinity : (inUseCol?.length ?? 0),
  };
}
