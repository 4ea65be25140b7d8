import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // One temp directory per run, removed after it, and by the next run if this one is interrupted.
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
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
        // e2e tests start real Python processes; on a 2-core machine running them in parallel distorts the timings
        // they depend on (sampling intervals, growth rates), so files run one after another, and only once the unit
        // tests are done (a later group): nothing else of the suite's runs beside them.
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
