import { defineConfig } from "vitest/config";

/**
 * The tests StrykerJS runs against each mutant of src/analysis (stryker.config.json): the analysis unit tests and the
 * gate tests that go through the verdict engine. Files run in parallel: they are pure and start no processes.
 */
export default defineConfig({
  test: {
    include: ["test/unit/analysis/**/*.test.ts", "test/unit/gates.test.ts"],
    // Seconds each uninstrumented, minutes under instrumentation, and they pin scale, not rules.
    exclude: ["test/unit/analysis/stats-scale.test.ts"],
    testTimeout: 60_000,
  },
});
