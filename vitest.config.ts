import { defineConfig } from "vitest/config";
import { e2eLanes } from "./test/e2e-lanes.js";
import LongestFirst from "./test/sequencer.js";

// Decided once here and handed to the workers (test/e2e-lane-setup.ts reads it): see test/e2e-lanes.ts.
const lanes = e2eLanes();
process.env.MEMLEAK_E2E_LANES = String(lanes);

export default defineConfig({
  test: {
    // One temp directory per run, removed after it, and by the next run if this one is interrupted.
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { sequencer: LongestFirst },
    // The e2e tests that needed their retry, named at the end of the run (see test/flaky-reporter.ts).
    reporters: ["default", "./test/flaky-reporter.ts"],
    // `npm test` runs both; `npm run test:unit` (vitest run --project unit) the unit tests alone, for the inner loop.
    projects: [
      {
        extends: true,
        // Pure code on fixtures: files run in parallel, one worker per core. vitest's default is a core fewer (one
        // worker, files one after another, on a 2-core machine); the unit project is CPU work alone, and a second
        // worker made it 17% shorter on a loaded 2-core machine (336 s against 406 s, load 13-21).
        test: {
          name: "unit",
          maxWorkers: "100%",
          include: ["test/unit/**/*.test.ts", "test/docs/**/*.test.ts", "test/helpers/**/*.test.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // e2e tests start real Python processes that mostly sleep and allocate on a schedule: two files at a time, each
        // in a memory cgroup of its own, where the host allows it (test/e2e-lanes.ts), longest first (test/sequencer.ts);
        // only once the unit tests are done (a later group), so nothing else of the suite runs beside them.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          setupFiles: ["test/e2e-lane-setup.ts"],
          fileParallelism: lanes > 1,
          maxWorkers: lanes,
          // A real program judged on a shared machine: a failed test runs once more, and passing then is reported as
          // flaky by test/flaky-reporter.ts, never as a clean pass; with MEMLEAK_FAIL_ON_RETRY=1 it fails the run.
          retry: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
