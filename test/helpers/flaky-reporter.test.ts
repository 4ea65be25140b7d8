/**
 * The suite's own flaky reporter on a real vitest run: a test that fails its first attempt and passes its retry is
 * named with its first failure, and with MEMLEAK_FAIL_ON_RETRY=1 the run exits 1 (issue 47: a green run means every test
 * passed the first time). vitest runs as a child process on a config of its own in a temp directory.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./fixtures.js";
import { tempDir } from "./temp.js";

const dir = tempDir("flaky-reporter");
const REPORTER = join(REPO, "test/flaky-reporter.ts");

/** A test that fails the first time it runs in a directory (a marker file says it ran) and passes on its retry. */
const FLAKY_TEST = `import { existsSync, writeFileSync } from "node:fs";
import { it, expect } from "vitest";
it("passes the second time", () => {
  const marker = process.env.FLAKY_MARKER;
  const first = !existsSync(marker);
  writeFileSync(marker, "");
  expect(first ? "first try" : "retry").toBe("retry");
});
`;
/** The same, its failure's message led by a long log (as a test that passes memleak's stderr as the message does). */
const FLAKY_LOGGED_TEST = FLAKY_TEST.replace(
  'expect(first ? "first try" : "retry")',
  'expect(first ? "first try" : "retry", "log line ".repeat(150))',
);
/** The same, failing on an array vitest's message names only by its size. */
const FLAKY_ARRAY_TEST = FLAKY_TEST.replace(
  'expect(first ? "first try" : "retry").toBe("retry")',
  'expect(first ? ["memleak: so far: leak in PID 12 " + "(the reasons it gave) ".repeat(8)] : []).toEqual([])',
);
const STEADY_TEST = `import { it, expect } from "vitest";
it("passes the first time", () => expect(1).toBe(1));
`;

function runVitest(name: string, test: string, env: Record<string, string>) {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "a.test.mjs"), test);
  writeFileSync(
    join(root, "vitest.config.mjs"),
    `export default { test: { include: ["a.test.mjs"], retry: 1, reporters: ["default", ${JSON.stringify(REPORTER)}] } };\n`,
  );
  const childEnv: NodeJS.ProcessEnv = { ...process.env, FLAKY_MARKER: join(root, "ran"), ...env };
  if (!("MEMLEAK_FAIL_ON_RETRY" in env)) delete childEnv.MEMLEAK_FAIL_ON_RETRY;
  // vitest's own test-run markers in the environment would make the child think it is a worker of this run.
  for (const key of Object.keys(childEnv)) if (key.startsWith("VITEST")) delete childEnv[key];
  const r = spawnSync(join(REPO, "node_modules/.bin/vitest"), ["run", "--config", "vitest.config.mjs"], {
    cwd: root,
    env: childEnv,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe("test/flaky-reporter.ts on a real vitest run", { timeout: 90_000 }, () => {
  it("by default, CI or not: a test passing on its retry is named with its first failure, and the run passes", () => {
    const r = runVitest("default", FLAKY_TEST, { CI: "true" });
    expect(r.stderr).toContain("1 test(s) passed only on a retry (flaky):");
    expect(r.stderr).toMatch(
      /a\.test\.mjs > passes the second time\n {4}retried 1×; first: expected 'first try' to be 'retry'/,
    );
    expect(r.stderr).not.toContain("fails the run");
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("a first failure whose message starts with a long log keeps the log's start and the assertion at its end", () => {
    const r = runVitest("logged", FLAKY_LOGGED_TEST, {});
    expect(r.stderr).toMatch(
      /retried 1×; first: log line log line .* … .*log line ?: expected 'first try' to be 'retry'/,
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("a first failure on an array shows the array it got, not only vitest's 'Array(1)'", () => {
    const r = runVitest("array", FLAKY_ARRAY_TEST, {});
    expect(r.stderr).toMatch(
      /retried 1×; first: .*Array\(1\).*\n {4}it got: .*memleak: so far: leak in PID 12 \(the reasons it gave\)/,
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("with MEMLEAK_FAIL_ON_RETRY=1: the same run fails, saying why", () => {
    const r = runVitest("strict", FLAKY_TEST, { MEMLEAK_FAIL_ON_RETRY: "1" });
    expect(r.stderr).toContain("1 test(s) passed only on a retry (flaky):");
    expect(r.stderr).toContain("A test that passed only on its retry fails the run (MEMLEAK_FAIL_ON_RETRY=1)");
    expect(r.status, r.stdout + r.stderr).toBe(1);
  });

  it("with MEMLEAK_FAIL_ON_RETRY=1 a run that passed the first time passes, with no list", () => {
    const r = runVitest("strict-steady", STEADY_TEST, { MEMLEAK_FAIL_ON_RETRY: "1" });
    expect(r.stderr).not.toContain("passed only on a retry");
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
