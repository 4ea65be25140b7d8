/**
 * Whether the suite runs as CI: CI=true, as .ci/run, GitHub Actions and GitLab set it. Under CI nothing is skipped for
 * a missing prerequisite (prerequisite.ts) and a test that passed only on its retry fails the run (flaky-reporter.ts).
 */
export const underCI = (env: NodeJS.ProcessEnv = process.env): boolean => env.CI === "true";
