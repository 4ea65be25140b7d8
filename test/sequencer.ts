/**
 * The order test files start in. With two e2e lanes (test/e2e-lanes.ts) the lanes finish together only if the longest
 * files start first; vitest's own order takes the durations of the last run on this machine and, before them, runs
 * whatever failed last first — a CI runner with no cache would get another pairing every time. So e2e files start in
 * the fixed order of E2E_LONGEST_FIRST, the same everywhere; a file missing from it starts first.
 * test/helpers/sequencer.test.ts keeps the list whole and in order.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Seconds each took in a full run with the files one after another (2026-11-26 05:56, plus later changes), longest first. */
export const E2E_LONGEST_FIRST: readonly (readonly [file: string, seconds: number])[] = [
  ["kept-alive.test.ts", 400],
  ["cow-objects.test.ts", 145],
  ["run-trials.test.ts", 120],
  ["watch-placement.test.ts", 118],
  ["watch.test.ts", 106],
  ["run.test.ts", 104],
  ["holder.test.ts", 96],
  ["watch-safety.test.ts", 92],
  ["several-causes.test.ts", 67],
  ["time-to-limit.test.ts", 61],
  ["run-placement.test.ts", 60],
  ["watch-containers.test.ts", 58],
  ["interpreters.test.ts", 54],
  ["cow-early.test.ts", 48],
  ["agent.test.ts", 45],
  ["gpu.test.ts", 45],
  ["holder-forked.test.ts", 42],
  ["ci.test.ts", 40],
  ["prometheus.test.ts", 40],
  ["watch-trace.test.ts", 32],
  ["live-view.test.ts", 29],
  ["trace-native.test.ts", 28],
  ["trace-sites-live.test.ts", 25],
  ["watch-scope.test.ts", 20],
  ["sampler.test.ts", 17],
  ["feedback.test.ts", 15],
  ["pytest-agent-options.test.ts", 14],
  ["package.test.ts", 10],
  ["snapshot.test.ts", 10],
  ["help.test.ts", 10],
  ["html-report.test.ts", 7],
  ["html-trials.test.ts", 6],
  ["pytest.test.ts", 5],
  ["help-imports.test.ts", 2],
  ["docs-outputs.test.ts", 2],
  ["interim-worker.test.ts", 1],
  ["lane.test.ts", 0],
  ["snapshot-self.test.ts", 0],
];

const RANK = new Map(E2E_LONGEST_FIRST.map(([file], i) => [`test/e2e/${file}`, i]));

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (s: TestSpecification) => RANK.get(relative(s.project.config.root, s.moduleId)) ?? -1;
    // Only e2e files are reordered, among themselves (they sit together: vitest sorts by group first).
    const e2e = sorted.filter((s) => s.project.name === "e2e").sort((a, b) => rank(a) - rank(b));
    return sorted.map((s) => (s.project.name === "e2e" ? e2e.shift()! : s));
  }
}
