/**
 * The shape of one metric over the analyzed window, in the terms every rule uses: did it grow (robust trend), did it
 * level off (plateau), was it one step, by how much and how fast. Pure: a Column in, numbers out.
 */
import type { Column } from "../series/column.js";
import { lowerEnvelope, type Envelope } from "./stats/envelope.js";
import { detectPlateau, type Plateau } from "./stats/plateau.js";
import { median } from "./stats/quantiles.js";
import { detectStep, type Step } from "./stats/step.js";
import { trendTest, type Trend } from "./stats/trend.js";
import { SHAPE_MAX_POINTS } from "./stats/shape.js";
import { cleanSeries, lowerBound, sliceByTime, thin, type Series } from "./stats/window.js";
import { earlyGrowth, type EarlyGrowth } from "./stats/sequential.js";
import type { Rate } from "./types.js";
import { MIN_SAMPLES, MIN_SECONDS, secondsShort, tooShortForShapes } from "../series/enough-samples.js";
import { minGrowth } from "./growth-floor.js";

// The growth floor (2 MiB, or 2% of the level) lives at the bottom of the house, where the report reads it too.
export { minGrowth };

/**
 * Growth finished within max(3 s, 5% of the window) of a series' start counts as start-up. 3 s: the interpreter and
 * a plain script's imports (1–2 s in the recordings; importing torch takes longer and is cut as warm-up instead,
 * torch_losses_item: 5.9 s). 5%: so that on long watches a model load in the first minute is start-up too. Boundary
 * tests: rules/growth.test.ts (a step at 2.5 / 4 s of 30 s; at 14 / 26 s of 400 s).
 */
export const STARTUP_MIN_SECONDS = 3;
export const STARTUP_SHARE = 0.05;

/** When the start-up of a series from `first` to `last` (seconds) ends (STARTUP_MIN_SECONDS, STARTUP_SHARE). */
export function startupEnd(first: number, last: number): number {
  return first + Math.max(STARTUP_MIN_SECONDS, STARTUP_SHARE * (last - first));
}

/**
 * A series is at its level once it stays within this share of the growth floor of it (stats/plateau.ts
 * levelledFrom), however quiet it is otherwise: an offset a quarter of the smallest growth worth reporting is no rise
 * still going on. A cgroup's usage steps by a few hundred KiB as the kernel charges pages in per-CPU batches (64 pages
 * on 6.x kernels) and page cache comes and goes: a steady script's run cgroup, flat at 28.9 MiB for 10 s, went to
 * 29.1 MiB at 16 s, and its 28 MiB start-up was dated from there (ci.test's steady smoke step: `plateau`, 3 runs in 6
 * beside busy loops). A quarter, so that what the level leaves out can never by itself rise by the floor after it
 * (risesAfter).
 */
export const LEVEL_FLOOR_SHARE = 0.25;

export type Shape = "insufficient" | "growing" | "plateau" | "step" | "flat" | "falling";

export interface Assessment {
  shape: Shape;
  /** Why the data was insufficient, when it was. */
  reason?: string;
  samples: number;
  from: number;
  to: number;
  start: number;
  end: number;
  peak: number;
  /** Level change over the window: median of the last tenth − median of the first tenth (robust to spikes). */
  growth: number;
  rate: Rate;
  /** Mann–Kendall two-sided p-value of the trend (block means). */
  p: number;
  trend?: Trend;
  /** Set when the growth was seen in the lows only (stats/envelope.ts): the series swings more than it grows. */
  envelope?: Envelope;
  plateau?: Plateau;
  step?: Step;
  /** Set when the window was too short for the shape rules and growth was called by the early test (stats/sequential.ts). */
  early?: EarlyGrowth;
  /** Bytes of the growth that were memleak's own agent arriving (signals/own-footprint.ts), when a step was taken out. */
  own?: number;
  /** Too little since the process's last import or library load for a trend: its growth is start-up (imports.ts). */
  importing?: boolean;
}

/** When growth that stopped stopped (seconds): the plateau's level, or the step's jump; undefined for other shapes. */
export function stoppedAt(a: Assessment): number | undefined {
  return a.shape === "plateau" ? a.plateau?.levelFrom : a.shape === "step" ? a.step?.at : undefined;
}

/**
 * How much growth that stopped grew: for a plateau, the larger of the thirds' rise and the whole series' level change
 * (a load over the first third rises less between the thirds' medians than from the start: 192 of 408 MiB); for a
 * step, its jump.
 */
export function stoppedGrowth(a: Assessment): number {
  if (a.shape === "plateau" && a.plateau) return Math.max(a.plateau.rise, a.growth);
  return (a.shape === "step" ? a.step?.jump : undefined) ?? a.growth;
}

/** How many points a level is the median of: a tenth of the series, 3 at least (`levels`). */
export const levelPoints = (n: number) => Math.max(3, Math.floor(n / 10));

/** Median of the first and of the last tenth of a series (at least 3 points each). */
export function levels(ys: readonly number[]): { start: number; end: number } {
  const k = levelPoints(ys.length);
  return { start: median(ys.slice(0, k)) ?? NaN, end: median(ys.slice(-k)) ?? NaN };
}

/** The level a column ends at (median of its last tenth); undefined when it is empty. */
export function endLevel(col: Column | undefined): number | undefined {
  return col && col.length > 0 ? levels(col.ys).end : undefined;
}

/** Level change of a column from `from` (seconds) to its end, by `levels`; undefined with fewer than 2 points. */
export function levelChange(col: Column | undefined, from: number): number | undefined {
  if (!col || col.length < 2) return undefined;
  const w = sliceByTime({ xs: col.xs, ys: col.ys }, from);
  if (w.ys.length < 2) return undefined;
  const l = levels(w.ys);
  return l.end - l.start;
}

export function rateOf(bytesPerSecond: number, startLevel: number): Rate {
  return {
    bytesPerSecond,
    percentPerHour: startLevel > 0 ? (bytesPerSecond * 3600 * 100) / startLevel : 0,
  };
}

/**
 * @param col the metric
 * @param from seconds: start of the analyzed window (after warm-up)
 * @param fullFrom seconds: start of the whole series (plateaus are judged on the whole, warm-up included, because
 *        the growth a plateau levels off from is often the warm-up itself)
 * @param execAt seconds: when the process exec'd its program, if memleak saw it (a pyenv shim's bash ran 4.5 s
 *        before python on a busy machine): the window and the start-up count from there
 */
export function assess(col: Column, from: number, fullFrom = from, execAt = -Infinity): Assessment {
  // Judged from the exec on when what follows it is long enough for the shape rules. A CI step of 10 s whose shim
  // took 1 s keeps every sample instead (fork_cow.10s-under-load: 11 after the exec), as the early test needs, and its
  // start-up counts from the process's birth as before: a window holding the bash's samples never has its rise excused.
  const programStart = shapesFitFrom(col.xs, execAt) ? execAt : -Infinity;
  const window = sliceByTime({ xs: col.xs, ys: col.ys }, afterStartup(col, from, programStart));
  const whole = sliceByTime({ xs: col.xs, ys: col.ys }, fullFrom);
  const base = windowLevels(col, window, whole, from, fullFrom);
  const { samples: n, from: x0, to: x1, start } = base;
  if (tooShortForShapes(n, x1 - x0)) {
    const reason =
      n < MIN_SAMPLES
        ? `${n} samples after warm-up (needs ${MIN_SAMPLES})`
        : `${secondsShort(x1 - x0)} s after warm-up (needs ${MIN_SECONDS} s)`;
    return assessEarly(window, base, reason);
  }

  const floor = minGrowth(start);
  const trend = trendTest(window.xs, window.ys, { minSlope: floor / Math.max(1, x1 - x0) });
  // The growth floor is applied to the plateau below, to the detector's rise (thirds) or to `growth` (tenths of the
  // analyzed window), whichever is larger: a bounded fill just over the floor that stopped long ago rises less
  // between thirds than between tenths, and would otherwise be "growing" by one measure and "did not grow" by the
  // other — a leak. Not the whole series' tenths: those include start-up (imports), which is no plateau.
  // detectPlateau and detectStep each thin the whole series to SHAPE_MAX_POINTS the same way: thinned once here, the
  // series each is given is already clean and short, and comes back from their own thin() as it is.
  const shapes = thin(cleanSeries(whole.xs, whole.ys), SHAPE_MAX_POINTS);
  const plateau = detectPlateau(shapes.xs, shapes.ys, { levelTolerance: LEVEL_FLOOR_SHARE * floor });
  // Steps, like plateaus, are judged on the whole series: the jump is often at the start (a model loaded, a child
  // that imported a library), where the warm-up cut would hide it.
  const step = detectStep(shapes.xs, shapes.ys);
  const out: Assessment = { ...base };
  if (trend.ok) {
    out.trend = trend;
    out.p = trend.mannKendall.p;
    out.rate = rateOf(trend.theilSen.slope, start);
  }
  if (plateau.ok) out.plateau = plateau;
  if (step.ok) out.step = step;

  Object.assign(out, shapeOf(out, { window, whole, trend, plateau, step, floor, programStart }));
  if (out.shape === "plateau" || out.shape === "step") Object.assign(out, stoppedOverWhole(out, whole));
  return out;
}

/** The window's span and levels, and the whole series' peak: an assessment with no shape yet ("insufficient"). */
function windowLevels(col: Column, window: Series, whole: Series, from: number, fullFrom: number): Assessment {
  const n = window.xs.length;
  const x0 = window.xs[0] ?? from;
  const x1 = window.xs[n - 1] ?? from;
  const { start, end } = levels(window.ys);
  // Over the whole column the exact peak is known even after compaction averaged the stored points.
  const coversAll = fullFrom <= (col.xs[0] ?? 0);
  const peak = coversAll && col.peak !== undefined ? col.peak : whole.ys.reduce((m, y) => (y > m ? y : m), -Infinity);
  return {
    shape: "insufficient",
    samples: n,
    from: x0,
    to: x1,
    start,
    end,
    peak,
    growth: end - start,
    rate: rateOf(0, start),
    p: 1,
  };
}

/** What the shape rules judge: the window, the whole series, and what the detectors found in them. */
interface Detected {
  window: Series;
  whole: Series;
  trend: ReturnType<typeof trendTest>;
  plateau: ReturnType<typeof detectPlateau>;
  step: ReturnType<typeof detectStep>;
  /** The growth floor of the window's start level. */
  floor: number;
  /** When the program the process exec'd started (-Infinity: from its birth). */
  programStart: number;
}

/**
 * The window's shape, from its assessment so far (`a`: its span, levels and growth) and what the detectors found;
 * with lows that rise, the envelope's numbers too.
 */
function shapeOf(a: Assessment, d: Detected): Pick<Assessment, "shape"> & Partial<Assessment> {
  const { window, whole, trend, plateau, step, floor } = d;
  const grew = trend.ok && trend.direction === "increasing" && a.growth >= floor;
  // Big periodic temporaries swing the block means more than a leak moves them; the lows still rise with a leak.
  // Also when the block means did rise but the levels did not by the floor: with swings, the window's first tenth can
  // sit in a high and its last in a low (swing_leak under load, CI 2026-12-02: "stable", block means rising at
  // p 0.0049, levels "113 MiB → 64.5 MiB") — the lows are the level a leak raises, not either end's phase.
  const envelope =
    !grew && trend.ok && trend.direction !== "decreasing"
      ? lowerEnvelope(window.xs, window.ys, floor / Math.max(1, a.to - a.from), floor)
      : undefined;
  const lowsRise = envelope?.increasing === true;
  // An upward step clear of the floor is growth that stopped, even when what follows drifts down a little and so
  // hides the rise from a whole-window trend test (page cache that is slowly reclaimed after a one-off load).
  const steppedUp = step.ok && step.isStep && step.jump >= minGrowth(median(whole.ys.slice(0, 3)) ?? a.start);
  const startup = wholeStartup(whole, d.programStart);
  const roseEnough = plateau.ok && Math.max(plateau.rise, a.growth) >= floor;
  const plateaued =
    plateau.ok &&
    plateau.state === "plateau" &&
    roseEnough &&
    !((plateau.levelFrom ?? Infinity) <= startup) &&
    !risesAfter(whole, plateau.levelFrom, floor);
  const stepped = steppedUp && step.ok && step.at > startup;
  if (plateaued) return { shape: "plateau" };
  if (stepped) return { shape: "step" };
  if (grew) return { shape: "growing" };
  if (lowsRise)
    return {
      shape: "growing",
      envelope,
      p: envelope.mannKendall.p,
      start: envelope.start,
      end: envelope.end,
      growth: envelope.rise,
      rate: rateOf(envelope.theilSen.slope, envelope.start),
    };
  if (trend.ok && trend.direction === "decreasing") return { shape: "falling" };
  return { shape: "flat" };
}

/** Growth that was over within the first seconds is start-up (the interpreter, imports), not a plateau. */
function wholeStartup(whole: Series, programStart: number): number {
  const wholeStart = whole.xs[0] ?? 0;
  const wholeEnd = whole.xs[whole.xs.length - 1] ?? wholeStart;
  return startupEnd(Math.max(wholeStart, programStart), wholeEnd);
}

/**
 * Growth that stopped is described over the whole series (the rise is usually in the warm-up), and its rate is
 * the average rate of the rise, not the flat tail's slope.
 */
function stoppedOverWhole(a: Assessment, whole: Series): Partial<Assessment> {
  const l = levels(whole.ys);
  const span = Math.max(1e-9, (whole.xs[whole.xs.length - 1] ?? 0) - (whole.xs[0] ?? 0));
  const rate = a.shape === "plateau" && a.plateau ? a.plateau.growthRate : (l.end - l.start) / span;
  return {
    from: whole.xs[0] ?? a.from,
    start: l.start,
    end: l.end,
    growth: l.end - l.start,
    samples: whole.xs.length,
    rate: rateOf(rate, l.start),
  };
}

/**
 * Where the trend window starts: `from`, or STARTUP_MIN_SECONDS after the series' first point (or the program's
 * start, when the process exec'd it later) when that is later and leaves a window long enough for the shape rules. A
 * process seen from its birth spends its first seconds going from nothing to its working level (the interpreter, its imports, the first of its periodic temporaries), which a
 * warm-up fitted on noise as large as the swings does not cut: gc_sawtooth beside two busy loops, whose 25 MiB
 * teeth start from 0.3 MiB, was called a leak at 29–39 s on that first rise. A window too short for the shape rules
 * keeps it: the early test (stats/sequential.ts), which calls CI leaks within seconds, needs every sample.
 */
function afterStartup(col: Column, warmedUp: number, programStart: number): number {
  const firstPoint = col.xs[0];
  // What ran before the exec was another program (bash, env), not part of the window.
  const from = Math.max(warmedUp, programStart);
  if (firstPoint === undefined) return from;
  const first = Math.max(firstPoint, programStart);
  if (first + STARTUP_MIN_SECONDS <= from) return from;
  const cut = first + STARTUP_MIN_SECONDS;
  return shapesFitFrom(col.xs, cut) ? cut : from;
}

/**
 * Whether the points of `xs` (seconds, ascending) from `t` on are enough for the shape rules: the one test behind
 * every later start a rule may choose (after start-up, after an exec, after a freed burst of the live heap).
 */
export function shapesFitFrom(xs: readonly number[], t: number): boolean {
  const i = lowerBound(xs, t);
  const n = xs.length - i;
  return n > 0 && !tooShortForShapes(n, xs[xs.length - 1]! - xs[i]!);
}

/**
 * A window too short for the shape rules: "growing" when the early test calls it and the growth is over the floor,
 * otherwise insufficient (with the shape rules' reason: the early test is not the only thing waiting for data).
 * Nothing else can be said this early: a plateau or a step needs the level after the rise.
 */
function assessEarly(window: Series, base: Assessment, reason: string): Assessment {
  const early = earlyGrowth(window.xs, window.ys, MIN_SAMPLES, MIN_SECONDS);
  const floor = minGrowth(base.start);
  // Over the floor by the level change AND by the rate: the end of a load at the start of the window and a slow
  // creep after it change the level by the load's tail while the rate says a few KiB/s (one_off_load at 24 s:
  // +64 MiB of level, 8 KiB/s × 17 s = 136 KiB).
  const rose = base.growth >= floor && early.slope * (base.to - base.from) >= floor;
  if (!early.called || !rose) return { ...base, reason };
  return { ...base, shape: "growing", early, p: early.p, rate: rateOf(early.slope, base.start) };
}

/**
 * Whether a series still grows, by more than the growth floor and with a significant trend, after the level it
 * "plateaued" at. The plateau detector compares the tail's rate with the average rate of the whole series, start-up
 * included: after a big start-up (a model built, a cache warmed for 20 s) a steady leak's rate can be under a
 * quarter of that average and look levelled off (fixtures/calibration/long_warmup_leak: 225 KB/s after ~190 MB of
 * start-up). A bounded cache's remaining approach to its asymptote stays under the floor.
 */
function risesAfter(whole: Series, levelFrom: number | undefined, floor: number): boolean {
  if (levelFrom === undefined) return false;
  const after = sliceByTime(whole, levelFrom);
  const n = after.xs.length;
  if (n < MIN_SAMPLES) return false;
  const span = Math.max(1, after.xs[n - 1]! - after.xs[0]!);
  const t = trendTest(after.xs, after.ys, { minSlope: floor / span });
  const l = levels(after.ys);
  return t.ok && t.direction === "increasing" && l.end - l.start >= floor;
}
