import { defineConfig } from "vitest/config";

/**
 * The tests StrykerJS runs against each mutant of src/analysis (stryker.config.json): the analysis unit tests and the
 * gate tests that go through the verdict engine. Files run in parallel: they are pure and start no processes.
 * MUTATION_TESTS (comma-separated test files) narrows the set to the tests aimed at the file being mutated: on a loaded
 * 2-core machine the whole set takes 30–60 s per surviving mutant, and a score against fewer tests is a lower bound
 * of the whole set's (MUTATION.md says which files were run so).
 */
export default defineConfig({
  test: {
    include: process.env.MUTATION_TESTS
      ? process.env.MUTATION_TESTS.split(",")
      : ["test/unit/analysis/**/*.test.ts", "test/unit/series/**/*.test.ts", "test/unit/gates/gates.test.ts"],
    // Seconds each uninstrumented, minutes under instrumentation, and they pin scale, not rules.
    // The calibration recordings are left to `npm test` under Stryker (recordings.test.ts already runs real ones per
    // mutant); scripts/threshold-mutation.mjs, which runs the suite once per threshold move, keeps them (CALIBRATION=1).
    exclude: [
      "test/unit/analysis/stats-scale.test.ts",
      ...(process.env.CALIBRATION === "1" ? [] : ["test/unit/analysis/calibration.test.ts"]),
    ],
    testTimeout: 60_000,
  },
});
