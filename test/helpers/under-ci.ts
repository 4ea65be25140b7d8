/**
 * Whether the suite runs as CI: CI=true, as .ci/run, GitHub Actions and GitLab set it. Under CI nothing is skipped for
 * a missing prerequisite (prerequisite.ts).
 */
export const underCI = (env: NodeJS.ProcessEnv = process.env): boolean => env.CI === "true";

/** MEMLEAK_FAIL_ON_RETRY=1: a test that passed only on its retry fails the run (flaky-reporter.ts). */
export const failsOnRetry = (env: NodeJS.ProcessEnv = process.env): boolean => env.MEMLEAK_FAIL_ON_RETRY === "1";
