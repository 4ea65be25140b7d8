/**
 * `run --try --json`: the comparison as one document (memleak.trials/1; docs/formats.md). Each trial carries the
 * numbers compared, not its whole verdict document: `--record` keeps each trial's recording for that.
 */
import type { Comparison, Difference, Effect } from "./compare.js";
import type { InEffect } from "./in-effect.js";
import type { TrialMeasures } from "./measures.js";
import { settingHow } from "./settings.js";

export interface TrialsDocument {
  schema: "memleak.trials/1";
  command: string[];
  /** Seconds from each trial's start from which growth is counted (the latest warm-up of them all). */
  measuredFrom: number;
  trials: {
    setting: string;
    /** How memleak made it: "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "MALLOC_ARENA_MAX=2". */
    how: string;
    effect: Effect;
    inEffect?: InEffect;
    exit: { code: number | null; signal: string | null };
    stopReason?: string | undefined;
    measures: TrialMeasures;
    noise?: number;
    vsBaseline?: Difference;
    /** The trial's recording, with --record. */
    recording?: string;
  }[];
  recommendation: Comparison["recommendation"];
  gates?: { name: string; result: "pass" | "fail"; passed: boolean; message: string }[];
}

export function trialsDocument(
  cmp: Comparison,
  command: string[],
  recordings: (string | undefined)[],
  gates: TrialsDocument["gates"],
): TrialsDocument {
  return {
    schema: "memleak.trials/1",
    command,
    measuredFrom: cmp.measuredFrom,
    trials: cmp.trials.map((t, i) => ({
      setting: t.setting.text,
      how: settingHow(t.setting),
      effect: t.effect,
      ...(t.inEffect && { inEffect: t.inEffect }),
      exit: t.exit,
      stopReason: t.stopReason,
      measures: t.measures,
      ...(t.noise !== undefined && { noise: t.noise }),
      ...(t.vsBaseline && { vsBaseline: t.vsBaseline }),
      ...(recordings[i] && { recording: recordings[i] }),
    })),
    recommendation: cmp.recommendation,
    ...(gates && { gates }),
  };
}

/** --fail-unless-helps: fails when no setting tried helps (in effect, past the noise). */
export function helpsGate(cmp: Comparison): NonNullable<TrialsDocument["gates"]>[number] {
  const passed = cmp.recommendation.setting !== null;
  return {
    name: "helps",
    result: passed ? "pass" : "fail",
    passed,
    message: passed ? `${cmp.recommendation.setting} helps` : cmp.recommendation.text,
  };
}
