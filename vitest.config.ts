import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One temp directory per run, removed after it, and by the next run if this one is interrupted.
    globalSetup: ["test/global-setup.ts"],
    // e2e tests start real Python processes; on a 2-core machine running them in parallel distorts the timings
    // they depend on (sampling intervals, growth rates), so files run one after another.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
