/**
 * Test helper: three real trials of fixtures/scenarios/thread_arenas.py recorded by `memleak run --try
 * MALLOC_ARENA_MAX=2 --try trim=2 --duration 20s --record fixtures/trials/arenas.jsonl` (fixtures/trials/README.md),
 * as run-trials.ts hands its runs to compareRuns.
 */
import { analyzeRecording } from "../../src/recording/replay.js";
import type { TrialRun } from "../../src/trial/compare.js";
import { BASELINE, type TrialSetting } from "../../src/trial/settings.js";
import { FIXTURES } from "./fixtures.js";

export const ARENA_TRIALS: [string, TrialSetting][] = [
  ["arenas.as-it-is.jsonl", BASELINE],
  [
    "arenas.MALLOC_ARENA_MAX-2.jsonl",
    { kind: "env", text: "MALLOC_ARENA_MAX=2", name: "MALLOC_ARENA_MAX", value: "2" },
  ],
  ["arenas.trim-2.jsonl", { kind: "trim", text: "trim=2", every: 2 }],
];

/** The recorded trials as run-trials.ts hands them to compareRuns (the in-effect checks were made live: not recorded). */
export async function arenaTrials(): Promise<TrialRun[]> {
  return Promise.all(
    ARENA_TRIALS.map(async ([file, setting]) => {
      const a = await analyzeRecording(`${FIXTURES}trials/${file}`);
      const t = a.doc.target;
      return {
        setting,
        doc: a.doc,
        set: a.set,
        exit: { code: t.exitCode ?? null, signal: (t.signal ?? null) as NodeJS.Signals | null },
        inEffect: setting.kind === "baseline" ? undefined : { seen: true as const, how: "seen when it was recorded" },
      };
    }),
  );
}
