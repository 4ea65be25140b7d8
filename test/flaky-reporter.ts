/**
 * The e2e tests that passed only on their retry, listed at the end of the run with the first attempt's failure.
 *
 * An e2e test judges a real program on a shared 2-core machine: a verdict can come out differently when the machine is
 * loaded (a torch import that takes 10 s, a census walk that comes late), and the e2e project retries a failed test
 * once (vitest.config.ts). A retry that passes must not look like a clean pass: that is how a real misreading hides
 * (holder.test's thread leak, 1 run in 12, was the allocators' settling rule reading a freed list as churn). So every
 * such test is named here, on stderr, with what it said the first time, and the list is the last thing the run prints.
 * With MEMLEAK_FAIL_ON_RETRY=1 such a test also fails the run: a green run then means every test passed the first
 * time. .ci/run sets it (issue 47): the first-try failures its runs found were fixed one by one, each a misreading
 * under load or a test that depended on the machine's speed.
 */
import type { Reporter, TestCase } from "vitest/node";
import { failsOnRetry } from "./helpers/under-ci.js";

/**
 * A long message's start and its end: a custom message (a run's whole log) comes before vitest's own "expected …"
 * sentence, which the first 400 characters alone cut off (run-placement's first failure on c7d9618 said only its log).
 * 600 of each: a test's own account of a first failure (several-causes.test's cut of its recording) is a few hundred
 * characters, and 300 cut it in the middle.
 */
export function shortened(message: string, keep = 600): string {
  return message.length <= 2 * keep + 40 ? message : `${message.slice(0, keep)} … ${message.slice(-keep)}`;
}

export default class FlakyReporter implements Reporter {
  private readonly flaky: { name: string; retries: number; first: string; actual?: string }[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const d = testCase.diagnostic();
    if (!d?.flaky) return;
    const errors = testCase.result().errors ?? [];
    // The message's start on one line: a verdict printed as JSON begins with a bracket, so its first line said nothing.
    const message = errors[0]?.message?.replace(/\s*\n\s*/g, " ").trim();
    const first = message ? shortened(message) : "(its first failure was not kept)";
    // vitest's message names an array or object by its size alone ("expected [ Array(1) ] to deeply equal []": CI run
    // 33's first try of the GC-cycle watch, which never said which progress line read leak); the value it got is kept
    // beside the message, whole, and shown after it.
    const actual = errors[0]?.actual?.replace(/\s*\n\s*/g, " ").trim();
    this.flaky.push({
      name: `${testCase.module.relativeModuleId} > ${testCase.fullName}`,
      retries: d.retryCount,
      first,
      ...(actual && !message?.includes(actual) ? { actual: shortened(actual) } : {}),
    });
  }

  onTestRunEnd(): void {
    if (this.flaky.length === 0) return;
    const lines = this.flaky.map(
      (f) => `  ${f.name}\n    retried ${f.retries}×; first: ${f.first}${f.actual ? `\n    it got: ${f.actual}` : ""}`,
    );
    process.stderr.write(`\n${this.flaky.length} test(s) passed only on a retry (flaky):\n${lines.join("\n")}\n`);
    if (failsOnRetry()) {
      process.stderr.write(
        "A test that passed only on its retry fails the run (MEMLEAK_FAIL_ON_RETRY=1): fix what it shows.\n",
      );
      // vitest exits with process.exitCode, and only ever raises it to 1 itself.
      process.exitCode = 1;
    }
  }
}
