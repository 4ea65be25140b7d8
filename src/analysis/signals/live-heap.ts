/**
 * The live heap, as the in-process agent measures it: malloc's in-use bytes plus Python's small objects (pymalloc's
 * blocks, which live in arenas malloc never sees, counted at TYPICAL_BLOCK bytes each). Resident memory says what the
 * process holds; this says what it uses. The two part ways when malloc keeps freed memory (fragmentation): a leak
 * then first fills the holes malloc already holds, and resident memory stays flat while the live heap climbs — a
 * leak hidden in retained memory, which the anon trend alone would call a plateau or stable (issue 27's second
 * program: RSS flat after ~80 s while malloc's in-use bytes between its 10–40 MB temporaries rose 3.8 → 11.0 MiB).
 */
import { assess, levelChange, type Assessment } from "../assess.js";
import { Column } from "../column.js";
import type { ProcessSeries } from "../series.js";
import { TYPICAL_BLOCK } from "./fragmentation.js";
import { otherAllocator } from "./layer.js";

/**
 * malloc's in-use bytes + pymalloc blocks × TYPICAL_BLOCK, at the agent reports that carry malloc's numbers (both
 * fields come in the same report, so their times are the same; a report without the blocks counts none). Undefined
 * without the agent's malloc numbers, or under jemalloc/tcmalloc (glibc's counters see nothing there).
 */
export function liveHeapColumn(ps: ProcessSeries): Column | undefined {
  if (otherAllocator(ps)) return undefined;
  const inUse = ps.agent["malloc.inUse"];
  if (!inUse || inUse.length === 0) return undefined;
  const blocks = ps.agent["py.allocatedBlocks"];
  const blocksAt = new Map<number, number>();
  if (blocks) for (let i = 0; i < blocks.xs.length; i++) blocksAt.set(blocks.xs[i]!, blocks.ys[i]!);
  const ys = inUse.ys.map((y, i) => y + (blocksAt.get(inUse.xs[i]!) ?? 0) * TYPICAL_BLOCK);
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

/**
 * The live heap's trend over the analysed window, when it grows on its own terms: the shape rules say "growing"
 * (a robust trend over the growth floor, or rising lows under swings — not a plateau, not only the early test, whose
 * few seconds of a heap that is still filling after start-up prove nothing). Undefined otherwise.
 */
export function liveHeapLeak(ps: ProcessSeries, from: number): Assessment | undefined {
  const col = liveHeapColumn(ps);
  if (!col) return undefined;
  const a = assess(col, Math.max(from, ps.firstSeen), ps.firstSeen);
  return a.shape === "growing" && !a.early ? a : undefined;
}
