/**
 * Notes beside a finding's verdict (its caveats): what an early call cannot know, memleak's own footprint, garbage a
 * full collection gave back, file pages, a process the agent did not see inside.
 */
import { copiedItemsText, copyHowText } from "../copied-lines.js";
import { formatBytes } from "../../base/units.js";
import type { GcFreedFacts, GcWaitingFacts } from "../../analysis/phrases.js";
import type { KeptTemporaries, Settling } from "../../analysis/phrases.js";
import { formatRate } from "./numbers.js";
import type { Wordings } from "./words.js";

const freed = (f: GcFreedFacts) =>
  `the older generations' collections freed ${f.olderFreed.toLocaleString("en-US")} objects in this window, ${f.releases === 1 ? "once" : `${f.releases} times`} as memory fell by up to ${formatBytes(f.largestRelease)}`;

/** Why growth cannot be judged yet when it may be garbage waiting for a full collection (signals/gc-backlog.ts). */
/** Anon that grows while the live heap does not (analysis/signals/live-heap.ts allocatorSettling). */
export function settlingReason(f: Settling): string {
  if (f.freedKept !== undefined)
    return `the allocators may still be filling up: anon +${formatBytes(f.growth)} while malloc's free bytes grew +${formatBytes(f.freedKept)} and the live heap (malloc in use + Python objects) did not grow; waiting for anon to level off — a rise that goes on past a tenth of the live heap is judged as growth`;
  return `the allocators may still be filling up: anon +${formatBytes(f.growth)}, while the live heap (malloc in use + Python objects) does not grow and swings by up to ${formatBytes(f.swing)} as the program frees what it uses; waiting for anon to level off — growth beyond that swing is a leak`;
}

/**
 * What the live heap does under a rise of freed memory malloc keeps (analysis/signals/kept-temporaries.ts), before its
 * own rise passed the growth floor. What rises comes first: the live view cuts the line at the terminal's width.
 */
export function keptReason(f: KeptTemporaries): string {
  return `the lows of its live heap (malloc in use + Python objects) rise steadily ${formatBytes(f.liveStart)} → ${formatBytes(f.liveEnd)} at ${formatRate(f.rate)} over ${f.seconds.toFixed(0)} s, under the ${formatBytes(f.floor)} a verdict needs so far; ${keptPart(f)} — a longer run tells whether what it uses keeps growing`;
}

/** Anon's rise, and the part of it that is freed memory malloc keeps. */
export function keptPart(f: KeptTemporaries): string {
  return `anon's rise of ${formatBytes(f.anonGrowth)} is mostly freed memory malloc keeps (its free bytes +${formatBytes(f.freedKept)}), not memory in use`;
}

export function gcWaitingReason(f: GcWaitingFacts): string {
  const due =
    f.dueIn === 0
      ? "a full collection is due now"
      : `a full collection comes due after ${f.dueIn} more generation-1 run${f.dueIn === 1 ? "" : "s"}`;
  // What it may be comes first: the live view cuts the line at the terminal's width.
  return `garbage cycles may be waiting for a full collection: +${formatBytes(f.growth)} since the last one (${freed(f)}); ${due}, and memory that stays up after it is a leak`;
}

const filePages = (f: { growth: number; files: string | undefined }) =>
  `resident file pages grew ${formatBytes(f.growth)}${f.files ? ` (mapped: ${f.files})` : ""}: page cache the kernel can drop, not counted as growth here`;

export const NOTE_WORDS: Wordings<
  | "leak.early"
  | "mapped.file-pages"
  | "mapped.in-summary"
  | "copied.in-summary"
  | "copied.before-summary"
  | "own.step"
  | "gc.released"
  | "gc.off"
  | "agent.missing"
> = {
  "leak.early": (f) =>
    `called early, on ${f.seconds.toFixed(0)} s after warm-up (a sequential test, each look held to p ≤ ${f.alpha}): it still grows at the end, but a load that has not finished yet (a dataset read into memory, a model being built) looks the same until it levels off`,
  "mapped.file-pages": filePages,
  "mapped.in-summary": (f, say) => `${say(f.of)}; ${filePages(f)}`,
  "copied.in-summary": (f, say) =>
    `${say(f.of)}; it read \`${f.name}\` (${copiedItemsText(f)}, ${formatBytes(f.bytes)}) without copying it: ${formatBytes(f.private)} of it private`,
  "copied.before-summary": (f, say) => {
    const o = f.object;
    const named = o
      ? `: ~${formatBytes(o.private)} of it \`${o.name}\` (${copiedItemsText(o)}), ${copyHowText(o)}`
      : "";
    return `${say(f.of)}; it had copied ${formatBytes(f.copied)} of its parent's pages before memleak first read it (USS ${formatBytes(f.uss)} at that reading, anon ${formatBytes(f.anon)} against its parent's ${formatBytes(f.parentAnon)})${named}`;
  },
  "own.step": (f) => {
    const times = (ts: readonly number[]) => ts.map((t) => `${t.toFixed(0)} s`).join(", ");
    const looks = f.looks ?? [];
    const agent =
      f.at.length > 0
        ? `memleak's agent, injected at ${times(f.at)},${looks.length > 0 ? ` and its look at what a worker copied, at ${times(looks)},` : ""}`
        : `memleak's look at what it copied, at ${times(looks)},`;
    const what = [
      ...(f.at.length > 0
        ? [`its modules and thread${f.at.length > 1 ? ", and pages forked workers copied" : ""}`]
        : []),
      ...(looks.length > 0 ? ["the look's module and its walk"] : []),
    ];
    return `${agent} added ${formatBytes(f.added)} (${what.join("; ")}): not counted as growth`;
  },
  "gc.released": (f) =>
    `memory rose ${formatBytes(f.growth)} and came back down at the full garbage collection at ${f.at.toFixed(0)} s (lows ${formatBytes(f.lowBefore)} before, ${formatBytes(f.lowAfter)} after): garbage cycles waiting for the collector, not a leak (${freed(f)})`,
  "gc.off": (f) =>
    `the garbage collector is off in PID ${f.pid} (gc.isenabled() is False${f.count0 !== undefined ? `, ${Math.round(f.count0).toLocaleString("en-US")} allocations since its last collection` : ""}): objects in reference cycles are never freed`,
  "agent.missing": (f) =>
    `allocator retention not ruled out: without the agent (${f.why}), memleak cannot tell freed-but-kept memory from live memory — ${formatBytes(f.level)} of anonymous memory could be either`,
};
