/**
 * Each command's --help, as users read it (kept in test/e2e/__snapshots__/help.test.ts.snap: a change to the help is
 * a reviewed change), and each of its examples run as written against real processes: an example that stops working
 * fails here. $PID stands for a real `sleep` started for the run; the Prometheus example, which needs a server, is
 * parsed only (test/e2e/prometheus.test.ts runs analyze --prometheus against a real one).
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { EXAMPLES } from "../../src/cli/help-text.js";
import { COMMANDS } from "../../src/cli/option-spec.js";
import { parseCLI } from "../../src/cli/parse.js";
import { memleak } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp.js";

/** The example's words, as a shell would split them (single quotes kept together, without the quotes). */
function words(argv: string): string[] {
  return [...argv.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1);
}

const examples = COMMANDS.flatMap((command) => EXAMPLES[command].map((e) => [command, e.argv] as const));

describe("--help", () => {
  it.each(COMMANDS)("%s --help: its usage, grouped options, examples and units", async (command) => {
    const r = await memleak([command, "--help"], { COLUMNS: "80" });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nExamples:\n {2}# /);
    for (const e of EXAMPLES[command]) expect(r.stdout).toContain(e.argv);
    expect(r.stdout).toMatchSnapshot();
  });

  it("the command list shows the -- that run and pytest need", async () => {
    const r = await memleak(["--help"]);
    expect(r.stdout).toMatch(/^ {2}run -- <command> \[args\.\.\.\]/m);
    expect(r.stdout).toMatch(/^ {2}pytest -- \[pytest arguments\.\.\.\]/m);
  });

  it("watch --help says what watch does, not what run does to its command", async () => {
    const r = await memleak(["watch", "--help"]);
    expect(r.stdout).not.toMatch(/SIGTERM|SIGKILL|the command/);
  });
});

describe("--help's examples, run as written", { concurrent: true }, () => {
  it.each(examples)("%s: %s", async (_command, argv) => {
    const args = words(argv);
    if (args.some((a) => a.startsWith("http://"))) {
      expect(parseCLI(args)).toMatchObject({ kind: "analyze" });
      return;
    }
    const sleeper = spawn("sleep", ["60"], { stdio: "ignore" });
    // Written files (run.jsonl, report.html) go to a directory of the test's, not the repository.
    const dir = tempDir("help-example");
    const real = args.map((a) =>
      a === "$PID" ? String(sleeper.pid) : /^(run\.jsonl|report\.html)$/.test(a) ? `${dir}/${a}` : a,
    );
    // watch without -d runs until Ctrl-C: the sleeper's exit ends it instead, 3 s after memleak first speaks (it has
    // found the process by then; a timer from the spawn raced memleak's start on a loaded machine: "no process").
    let timer: NodeJS.Timeout | undefined;
    const endsBySleeper = real[0] === "watch" && !real.includes("-d");
    try {
      const r = await memleak(
        real,
        {},
        endsBySleeper ? () => (timer ??= setTimeout(() => sleeper.kill("SIGKILL"), 3000)) : undefined,
      );
      // Each example's status: 0, where -d stops the command too (its death by memleak's SIGTERM is not a failure).
      // None of the examples with a gate is shown on what fails it (a steady script, copy-on-write).
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/unknown option|error:/);
    } finally {
      clearTimeout(timer);
      sleeper.kill("SIGKILL");
    }
  });
});
