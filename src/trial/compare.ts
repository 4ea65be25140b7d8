/**
 * The trials side by side: each setting's numbers against the command as it is, what counts as a difference (the
 * noise), whether each setting helps, and the one to use with its evidence — or, for a leak, that none helps (the
 * proof that it is not the allocator). Pure.
 */
import type { CommandExit } from "../base/command-io.js";
import type { VerdictDocument } from "../analysis/types.js";
import { formatBytes } from "../base/units.js";
import { DURATION_SIGNAL, endedBySignalSent } from "../base/command-exit.js";
import type { InEffect } from "./in-effect.js";
import { commonMetric, trialMeasures, type LevelMeasures, type TrialMeasures } from "./measures.js";
import type { SeriesSet } from "../series/series.js";
import type { TrialSetting } from "./settings.js";

/**
 * The least difference counted, whatever the spread: two launches of one program differ by more than either's own
 * reading-to-reading noise says. An idle Python's two trials ended 3.8 MiB apart beside a busy CI lane (CI on 1609985,
 * in PSS; on 686ccc8 again, in USS, its first try), each flat within 100 KiB: 1 MiB called that "helps". 4 MiB.
 */
export const NOISE_FLOOR_BYTES = 4 * 1024 * 1024;
/** …nor 2% of the baseline's level (ASLR, timing: two launches of one program differ by about that here). */
export const NOISE_FLOOR_SHARE = 0.02;
/** A difference counts past twice the two trials' combined reading-to-reading noise. */
export const NOISE_SPREADS = 2;
/**
 * …nor 30% of the baseline's growth: how much a growing program grows in a trial is the work it did, which differs from
 * one launch to the next. Measured: a JSON service whose pool keeps a slice of each request, 20 s trials on a quiet
 * machine, the command as it is against three settings that do nothing (FOO=1, BAR=2, BAZ=3), three times: growth
 * 24.0–35.6 MiB about baselines of 28.4–29.7, the differences up to 24% of the baseline's growth, and with the 4 MiB
 * floor alone one inert setting read "worse" in each of the first two runs and one "helps: growth −18%", recommended.
 */
export const NOISE_GROWTH_SHARE = 0.3;

export interface TrialResult {
  setting: TrialSetting;
  exit: CommandExit;
  stopReason: VerdictDocument["target"]["stopReason"];
  inEffect: InEffect | undefined;
  measures: TrialMeasures;
}

/** The trial less the baseline: negative is less memory. */
export interface Difference {
  peak?: number;
  end?: number;
  growth?: number;
  /**
   * growth's change as a share of the baseline's growth (−0.92: 92% less), when the baseline grew past the noise and
   * the trial still grows.
   */
  growthShare?: number;
  cgroupPeak?: number;
  cgroupEnd?: number;
}

export type Effect = "baseline" | "helps" | "no-difference" | "worse" | "not-in-effect" | "failed";

export interface ComparedTrial extends TrialResult {
  effect: Effect;
  /** Bytes: a difference smaller than this is noise (NOISE_SPREADS × the combined spread, or the floors and the growth's share). */
  noise?: number;
  vsBaseline?: Difference;
}

export interface Comparison {
  trials: ComparedTrial[];
  /** Seconds from each trial's start at which its growth is counted: the latest warm-up of them all. */
  measuredFrom: number;
  /** The setting to use, or null, and the sentence that says why; the other settings that help, each with its cuts. */
  recommendation: { setting: string | null; text: string; also?: string[] };
}

const diff = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined ? a - b : undefined);

function difference(t: TrialMeasures, b: TrialMeasures, noise: number): Difference {
  const d: Difference = {};
  const set = (k: keyof Difference, v: number | undefined) => v !== undefined && (d[k] = v);
  set("peak", diff(t.tree?.peak, b.tree?.peak));
  set("end", diff(t.tree?.end, b.tree?.end));
  set("growth", diff(t.tree?.growth, b.tree?.growth));
  // As a share only while the trial still grows: one that gives memory back is said in bytes ("−357%" says nothing).
  if (d.growth !== undefined && b.tree?.growth !== undefined && b.tree.growth > noise && (t.tree?.growth ?? -1) >= 0)
    d.growthShare = d.growth / b.tree.growth;
  set("cgroupPeak", diff(t.cgroup?.peak, b.cgroup?.peak));
  set("cgroupEnd", diff(t.cgroup?.end, b.cgroup?.end));
  return d;
}

/** The noise of a difference between two trials' levels, bytes. */
export function noiseBetween(base: LevelMeasures | undefined, trial: LevelMeasures | undefined): number {
  // The end and the peak move with the growth: one bound for all three.
  const floor = Math.max(
    NOISE_FLOOR_BYTES,
    NOISE_FLOOR_SHARE * (base?.end ?? 0),
    NOISE_GROWTH_SHARE * Math.max(0, base?.growth ?? 0),
  );
  const sb = base?.spread ?? 0;
  const st = trial?.spread ?? 0;
  return Math.max(floor, NOISE_SPREADS * Math.sqrt(sb * sb + st * st));
}

/**
 * A command that ended with a failure on its own, or on a signal passed on to it (Ctrl-C: `interrupted`, sampling
 * stopped as it was sent): its numbers are not the program's steady behaviour, and its status is what memleak exits
 * with (run-trials.ts), 130 for a Ctrl-C as a shell expects. One that --duration stopped failed only where its
 * shutdown did on its own (an exit status of its own, another signal), as `run` judges it (gates/exit-policy.ts): its
 * death by memleak's SIGTERM is not a failure.
 */
export const failedOnItsOwn = (t: Pick<TrialResult, "stopReason" | "exit">) => {
  const failed = t.exit.signal !== null || (t.exit.code !== null && t.exit.code !== 0);
  if (t.stopReason === "exited" || t.stopReason === "interrupted") return failed;
  if (t.stopReason === "duration") return failed && !endedBySignalSent(t.exit, DURATION_SIGNAL);
  return false;
};

/**
 * The growth's change as the effect reads it: each trial's growth counted from none, since memory that fell is no
 * growth to cut or to add to. An idle Python's baseline whose Σ USS fell 4.35 MiB after its warm-up (its start-up
 * settling) against a trial flat within 60 KiB read as growth "+4.41 MiB: worse" (CI on c7d9618), the same end level.
 */
function growthChange(t: TrialMeasures, b: TrialMeasures): number | undefined {
  if (t.tree?.growth === undefined || b.tree?.growth === undefined) return undefined;
  return Math.max(0, t.tree.growth) - Math.max(0, b.tree.growth);
}

function effectOf(t: TrialResult, d: Difference, noise: number, grew: number | undefined): Effect {
  if (failedOnItsOwn(t)) return "failed";
  if (t.inEffect && !t.inEffect.seen) return "not-in-effect";
  const cut = Math.max(-(d.end ?? 0), -(grew ?? 0));
  const up = Math.max(d.end ?? 0, grew ?? 0, d.peak ?? 0);
  // A peak is one reading, the noisiest number here: a higher one outweighs a cut only when it rises by more.
  if (cut > noise && (d.peak ?? 0) < cut) return "helps";
  if (up > noise) return "worse";
  return "no-difference";
}

const sign = (n: number) => (n < 0 ? "−" : "+");
const minus = (n: number) => `${sign(n)}${formatBytes(Math.abs(n))}`;

/**
 * A change of bytes as every line of the trials says it, with a true minus sign ("−4.14 MiB", "+12.0 MiB", "0 B"): a
 * helper's trials read "helps: end −158 MiB" beside "worse: end -4.14 MiB" and "-974 KiB" in the table.
 */
export const signedChange = (n: number | undefined): string =>
  n === undefined ? "–" : n === 0 ? formatBytes(0) : minus(n);
const percent = (share: number) => `${sign(share)}${Math.round(Math.abs(share) * 100)}%`;

/** "growth −92% (−310 MiB), end −300 MiB, peak −380 MiB": the cuts past the noise, then any rise past it ("; but peak +69 MiB"). */
export function cutsText(d: Difference, noise: number): string {
  const parts: string[] = [];
  if (d.growth !== undefined && d.growth < -noise)
    parts.push(
      d.growthShare !== undefined
        ? `growth ${percent(d.growthShare)} (${minus(d.growth)})`
        : `growth ${minus(d.growth)}`,
    );
  if (d.end !== undefined && d.end < -noise) parts.push(`end ${minus(d.end)}`);
  if (d.peak !== undefined && d.peak < -noise) parts.push(`peak ${minus(d.peak)}`);
  // A cost that came with the cut is said beside it: trim's first calls come after the burst that set the peak.
  const rises = (["end", "growth", "peak"] as const)
    .filter((k) => (d[k] ?? 0) > noise)
    .map((k) => `${k} ${minus(d[k]!)}`);
  return parts.join(", ") + (rises.length > 0 ? `; but ${rises.join(", ")}` : "");
}

/** "trim=2: growth −92% (−310 MiB), end −300 MiB": a setting that helps, and its cuts past the noise. */
const settingCuts = (t: ComparedTrial) => `${t.setting.text}: ${cutsText(t.vsBaseline!, t.noise!)}`;

/** "jemalloc (peak +10.9 MiB; noise ±5.36 MiB)": a setting that made it worse, and its rises past the noise. */
function settingRises(t: ComparedTrial, base: ComparedTrial): string {
  // The growth as the effect read it (each counted from none): not a rise that was only the baseline settling down.
  const d = { ...t.vsBaseline, growth: growthChange(t.measures, base.measures) };
  const rises = (["end", "growth", "peak"] as const)
    .filter((k) => (d[k] ?? 0) > t.noise!)
    .map((k) => `${k} ${minus(d[k]!)}`);
  return `${t.setting.text} (${rises.join(", ")}; noise ±${formatBytes(t.noise!)})`;
}

const HELD_BY_THE_PROGRAM = "no setting changes the growth: it is held by the program (a leak, not the allocator)";

function recommend(trials: ComparedTrial[], base: ComparedTrial): Comparison["recommendation"] {
  const helping = trials.filter((t) => t.effect === "helps");
  const grew = (base.measures.tree?.growth ?? 0) > noiseBetween(base.measures.tree, base.measures.tree);
  // What matters most: the growth when the baseline grows, else the level it holds.
  const score = (t: ComparedTrial) => -(grew ? (t.vsBaseline?.growth ?? 0) : (t.vsBaseline?.end ?? 0));
  const best = helping.sort((a, b) => score(b) - score(a))[0];
  if (trials.length === 0)
    return { setting: null, text: "no setting was tried: the trials stopped after the command as it is" };
  const isLeak = base.measures.verdict.kind === "leak";
  if (!best) {
    if (isLeak) return { setting: null, text: HELD_BY_THE_PROGRAM };
    // A setting that made it worse is named: "beyond the noise" would contradict its own line just above.
    const worse = trials.filter((t) => t.effect === "worse").map((t) => settingRises(t, base));
    if (worse.length > 0) return { setting: null, text: `no setting tried helps; worse: ${worse.join("; ")}` };
    const noise = Math.max(...trials.map((t) => t.noise ?? 0), NOISE_FLOOR_BYTES);
    return { setting: null, text: `no setting tried changes the memory beyond the noise (±${formatBytes(noise)})` };
  }
  // A leak that every setting leaves growing as fast: what they cut is what the allocator kept free beside it, said
  // after the answer, which is the program's, and no setting to use: the gate fails. (A JSON service's pool keeping a
  // slice of each request read trim "helps, end −4.64 MiB" and passed the gate; that cut is now within the noise too.)
  const kind = best.measures.verdict.kind;
  if (isLeak && kind === "leak" && !((best.vsBaseline?.growth ?? 0) < -(best.noise ?? 0))) {
    const kept = helping.map(settingCuts).join("; ");
    return { setting: null, text: `${HELD_BY_THE_PROGRAM}; cut only in what the allocator kept free: ${kept}` };
  }
  // A verdict that changed to a decided one says so; "not enough data" is no improvement to name.
  const kinds =
    kind !== base.measures.verdict.kind && kind !== "insufficient-data"
      ? ` (${base.measures.verdict.kind} → ${kind})`
      : "";
  const still = kind === "leak" ? "; it still grows: a leak as well" : "";
  const also = helping.filter((t) => t !== best).map(settingCuts);
  return {
    setting: best.setting.text,
    text: `${settingCuts(best)}${kinds}${still}`,
    ...(also.length > 0 && { also }),
  };
}

/** The trials (the baseline first), measured from `measuredFrom` seconds, compared. */
export function compareTrials(results: readonly TrialResult[], measuredFrom: number): Comparison {
  const [base, ...rest] = results;
  if (!base) throw new Error("compareTrials: no baseline");
  const baseline: ComparedTrial = { ...base, effect: "baseline" };
  const trials = rest.map((t): ComparedTrial => {
    const noise = noiseBetween(base.measures.tree, t.measures.tree);
    const vsBaseline = difference(t.measures, base.measures, noise);
    const grew = growthChange(t.measures, base.measures);
    return { ...t, noise, vsBaseline, effect: effectOf(t, vsBaseline, noise, grew) };
  });
  return { trials: [baseline, ...trials], measuredFrom, recommendation: recommend(trials, baseline) };
}

/** One trial as `run` left it: its verdict, its readings, how the command ended, whether the setting was seen. */
export interface TrialRun {
  setting: TrialSetting;
  doc: VerdictDocument;
  set: SeriesSet;
  exit: CommandExit;
  inEffect: InEffect | undefined;
}

/** The runs (the command as it is first) measured from the latest warm-up of them all, and compared. */
export function compareRuns(runs: readonly TrialRun[]): Comparison {
  // Growth is counted from the same second in every trial, so that none counts its start-up.
  const from = Math.max(0, ...runs.map((r) => r.doc.window.warmup));
  const metric = commonMetric(runs.map((r) => r.set));
  return compareTrials(
    runs.map((r) => ({
      setting: r.setting,
      exit: r.exit,
      stopReason: r.doc.target.stopReason,
      inEffect: r.inEffect,
      measures: trialMeasures(r.doc, r.set, from, metric),
    })),
    from,
  );
}
