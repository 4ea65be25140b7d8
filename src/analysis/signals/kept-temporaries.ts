/**
 * Anon's rise split by malloc's own numbers, for a program that frees big temporaries. glibc serves a 10–40 MB buffer
 * built from small pieces out of its heap once it has raised its mmap threshold, and keeps what the buffer leaves
 * when it is freed: anon climbs in steps to the temporaries' high-water mark, and malloc's free bytes climb with it.
 * That rise is memory the program no longer uses. A leak under it shows only in the live heap (malloc in use +
 * Python objects), which climbs steadily through the steps. leak_under_temporaries under `run` for 40 s: anon
 * 23 → 40 MiB in two steps, malloc's free bytes 16.5 → 31 MiB with them, its in-use bytes 2.9 → 4.6 MiB at 56 KiB/s —
 * the leak, 60 KB/s of kept strings. Judged on anon it was a plateau at 99% ("one step of 16.0 MiB, then levelled
 * off") at 30 s and a leak at 303 KiB/s, five times its rate, at 40 s, with its holder "a bystander"; judged on the
 * live heap it is a leak at its own rate, or, while the live heap has not yet risen by the growth floor, not enough
 * data, saying what rises.
 */
import { levelChange, levels, minGrowth, rateOf, type Assessment } from "../assess.js";
import { blockMinima, lowerEnvelope, lowsRiseAt, type Envelope } from "../stats/envelope.js";
import { median, quantile } from "../stats/quantiles.js";
import { DEFAULT_ALPHA, TREND_BLOCKS } from "../stats/trend.js";
import { cleanSeries, sliceByTime } from "../stats/window.js";
import type { ProcessSeries } from "../../series/series.js";
import type { KeptTemporaries } from "../phrases.js";
import { liveHeapColumn } from "./live-heap.js";

/**
 * The share of anon's rise that the growth of malloc's free bytes must cover for that rise to be freed memory malloc
 * keeps: most of it (leak_under_temporaries: 15 of 16.4 MiB, 28.5 of 29.7 MiB from its start). A leak whose kept
 * objects are themselves most of anon's growth covers little (the in-use bytes are what rise).
 */
export const KEPT_COVERS = 0.5;

/**
 * The live heap's lows must still rise over the window's last half by at least this share of their whole rise: a
 * steady leak's do by about half, a cache filled in the window's first seconds by nothing.
 */
export const LATE_RISE_SHARE = 0.25;

/**
 * The lows' trend test may pass at the trend test's own level (1%) rather than the envelope's 0.1% while their rise is
 * under the growth floor: the answer is then "not enough data, what it uses rises", which calls nothing, and a
 * plateau said at 99% over a live heap climbing at p 0.0013 is the wrong answer. The agent reads malloc every other
 * report at 1 Hz, so a 30 s window's 12 blocks hold ties (two blocks with the same reading as their low), and ten
 * lows each above the one before stop short of 0.001 (leak_under_temporaries, 40 s under `run`, one run in five here).
 * A leak is still called only at ENVELOPE_ALPHA.
 */
export const UNDER_FLOOR_ALPHA = DEFAULT_ALPHA;

export interface KeptSplit {
  /** The live heap's lows over the judged window, as an assessment (shape "growing", its envelope set). */
  live: Assessment;
  /** Whether their rise passed the growth floor, which makes it a leak. */
  overFloor: boolean;
  facts: KeptTemporaries;
}

/**
 * Where anon's rise from `anonFrom` is mostly freed memory malloc keeps and the live heap's lows rise
 * steadily under it (judged from `from`): their course, over or under the growth floor. By the lows, because the agent
 * now and then reads while a temporary is alive (leak_under_temporaries: in-use bytes 28.6 MiB at one reading between
 * 5.5 and 5.6 MiB), and the levels of a tenth with two such readings in it moved by 9 MiB where the leak moved 2.
 * Undefined when malloc's free bytes do not cover the rise, when the lows do not rise on their own (flat, a fill that
 * stopped, noise), or without the agent's malloc numbers.
 */
export function keptTemporaries(ps: ProcessSeries, anonFrom: number, from: number): KeptSplit | undefined {
  // Both over the same window: a step's jump beside the free bytes' whole rise said "16 MiB of anon, +28.5 MiB free".
  const anonGrowth = levelChange(ps.metrics.anon ?? ps.metrics.rss, anonFrom);
  if (anonGrowth === undefined || !(anonGrowth > 0)) return undefined;
  const freedKept = freedKeptGrowth(ps, anonFrom);
  if (freedKept === undefined || freedKept < KEPT_COVERS * anonGrowth) return undefined;
  const col = liveHeapColumn(ps);
  if (!col) return undefined;
  const judged = sliceByTime({ xs: col.xs, ys: col.ys }, Math.max(from, ps.firstSeen));
  const w = cleanSeries(judged.xs, judged.ys);
  const lows = lowerEnvelope(w.xs, w.ys);
  if (!lows || !(lows.increasing || risesUnderFloor(lows, minGrowth(lows.start)))) return undefined;
  const minima = blockMinima(w, TREND_BLOCKS).ys;
  const middle = median(minima.slice(Math.floor(minima.length / 2) - 1, Math.floor(minima.length / 2) + 2))!;
  if (lows.end - middle < LATE_RISE_SHARE * lows.rise) return undefined;
  const n = w.xs.length;
  const live: Assessment = {
    shape: "growing",
    samples: n,
    from: w.xs[0]!,
    to: w.xs[n - 1]!,
    start: lows.start,
    end: lows.end,
    peak: Math.max(...w.ys),
    growth: lows.rise,
    rate: rateOf(lows.theilSen.slope, lows.start),
    p: lows.mannKendall.p,
    envelope: lows,
  };
  const facts: KeptTemporaries = {
    anonGrowth,
    freedKept,
    liveStart: live.start,
    liveEnd: live.end,
    rate: live.rate,
    seconds: live.to - live.from,
    floor: minGrowth(live.start),
  };
  return { live, overFloor: lows.increasing && live.growth >= facts.floor, facts };
}

/** Lows that rise at UNDER_FLOOR_ALPHA, by less than the floor: enough to say what rises, not to call a leak. */
function risesUnderFloor(lows: Envelope, floor: number): boolean {
  return lowsRiseAt(lows, UNDER_FLOOR_ALPHA) && !lows.increasing && lows.rise < floor;
}

/**
 * How much malloc's free bytes grew from `from`: by their levels, or from their first level to the highs of their last
 * third where that is more. A reading taken while a temporary is alive counts its bytes in use, not free
 * (leak_under_temporaries under run: the agent, which reads while the program sleeps, caught a buffer at 4 of the last
 * 7 reports, free 3–7 MiB between 30 MiB), and the highs are the free bytes between the temporaries.
 */
function freedKeptGrowth(ps: ProcessSeries, from: number): number | undefined {
  const col = ps.agent["malloc.free"];
  if (!col) return undefined;
  // As levelChange reads it, from the one slice the highs are read from too.
  const ys = sliceByTime({ xs: col.xs, ys: col.ys }, from).ys;
  if (ys.length < 2) return undefined;
  const { start, end } = levels(ys);
  const lastThird = ys.slice(-Math.max(1, Math.floor(ys.length / 3)));
  return Math.max(end - start, (quantile(lastThird, 0.9) ?? -Infinity) - start);
}
