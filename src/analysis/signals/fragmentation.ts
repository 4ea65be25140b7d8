/**
 * Allocator retention, judged from the in-process agent's numbers (src/agent): glibc's own count of bytes in use
 * (mallinfo2 uordblks + hblkhd) against the process's resident anonymous memory, and the trim probe (malloc_trim(0)
 * at the end: how much RSS came back). Seen from outside, retention and a leak are the same curve; these numbers are
 * what tell them apart.
 */
import type { ProcessSeries } from "../series.js";
import { levels } from "../assess.js";
import type { TrimResult } from "../../agent/messages.js";

/** Held memory at least this share of anon, and at least this large, to call it retention. */
export const HELD_SHARE = 0.5;
export const HELD_MIN_BYTES = 64 * 2 ** 20;
/** A trim that gives back this share of anon proves retention on its own. */
export const TRIM_SHARE = 0.3;

export interface Retention {
  /** Resident anonymous memory at the end. */
  anon: number;
  /** Bytes the allocator says are in use, at the end. */
  live: number;
  held: number;
  heldShare: number;
  /** Whether live bytes grew along with anon (then it is a leak that also holds memory, not retention). */
  liveGrowth: number;
  arenas: number | undefined;
  trimmed: number | undefined;
  decided: boolean;
}

export function retention(ps: ProcessSeries, trim?: TrimResult): Retention | undefined {
  const anonCol = ps.metrics.anon ?? ps.metrics.rss;
  const liveCol = ps.agent["malloc.inUse"];
  const trimBefore = trim?.anonBefore ?? ps.agent["trim.anonBefore"]?.last();
  const trimAfter = trim?.anonAfter ?? ps.agent["trim.anonAfter"]?.last();
  if (!anonCol || anonCol.length === 0 || ((!liveCol || liveCol.length === 0) && trimBefore === undefined)) return undefined;
  const anon = levels(anonCol.ys).end;
  const liveLevels = liveCol && liveCol.length > 0 ? levels(liveCol.ys) : undefined;
  const live = liveLevels?.end ?? NaN;
  const held = anon - live;
  const trimmed = trimBefore !== undefined && trimAfter !== undefined ? trimBefore - trimAfter : undefined;
  const byTrim = trimmed !== undefined && trimBefore! > 0 && trimmed / trimBefore! >= TRIM_SHARE && trimmed >= HELD_MIN_BYTES / 2;
  const byHeld = Number.isFinite(held) && held >= HELD_MIN_BYTES && held / anon >= HELD_SHARE;
  return {
    anon,
    live,
    held,
    heldShare: anon > 0 ? held / anon : 0,
    liveGrowth: liveLevels ? liveLevels.end - liveLevels.start : NaN,
    arenas: ps.agent["malloc.arenas"]?.last(),
    trimmed,
    decided: byTrim || byHeld,
  };
}
