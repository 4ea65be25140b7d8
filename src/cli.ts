/**
 * The process boundary: reads argv and the environment, installs the signal handlers, runs one command, and turns
 * its result or error into process.exitCode. Nothing else in memleak touches argv, exit codes or signals. Command
 * modules are imported lazily so `memleak --help` does not load the whole tool.
 */
import { parseCLI } from "./cli/parse.js";
import type { CommandIO } from "./base/command-io.js";
import { EXIT, MemleakError } from "./base/errors.js";
import { terminalPolicy } from "./cli/terminal-policy.js";
import { INTERNAL_ERROR_EXIT, reportInternalError } from "./base/internal-error.js";

const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

function terminalIO(): CommandIO {
  const terminal = terminalPolicy(process.env, Boolean(process.stdout.isTTY));
  const handlers = new Set<(s: NodeJS.Signals) => void>();
  const onProcessSignal = (signal: NodeJS.Signals) => {
    for (const h of handlers) h(signal);
  };
  return {
    stdout: (s) => void process.stdout.write(s),
    stderr: (s) => void process.stderr.write(s),
    color: terminal.color,
    isTTY: terminal.live,
    ascii: terminal.ascii,
    get columns() {
      return process.stdout.columns;
    },
    get rows() {
      return process.stdout.rows;
    },
    env: process.env,
    platform: process.platform,
    // Read when asked, not here: touching process.stdin opens a stream on fd 0, which most commands never need.
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    pid: process.pid,
    onSignal(handler) {
      if (handlers.size === 0) for (const s of SIGNALS) process.on(s, onProcessSignal);
      handlers.add(handler);
      return () => {
        handlers.delete(handler);
        if (handlers.size === 0) for (const s of SIGNALS) process.off(s, onProcessSignal);
      };
    },
  };
}

async function main(): Promise<number> {
  const inv = parseCLI(process.argv.slice(2));
  const io = terminalIO();
  switch (inv.kind) {
    case "print":
      io.stdout(inv.text);
      return inv.exitCode;
    case "error":
      io.stderr(`memleak: ${inv.message}\n(see memleak --help)\n`);
      return inv.exitCode;
    case "snapshot": {
      const { snapshotCommand } = await import("./commands/snapshot.js");
      return (await snapshotCommand(inv, io)).exitCode;
    }
    case "watch": {
      const { watchCommand } = await import("./commands/watch.js");
      return (await watchCommand(inv, io)).exitCode;
    }
    case "run": {
      if (inv.tries.length > 0) {
        const { runTrials } = await import("./commands/run-trials.js");
        return (await runTrials(inv, io)).exitCode;
      }
      const { runCommand } = await import("./commands/run.js");
      return (await runCommand(inv, io)).exitCode;
    }
    case "pytest": {
      const { pytestCommand } = await import("./commands/pytest.js");
      return (await pytestCommand(inv, io)).exitCode;
    }
    case "analyze": {
      if (inv.prometheus) {
        const { analyzePrometheusCommand } = await import("./commands/analyze-prometheus.js");
        return (await analyzePrometheusCommand({ ...inv, prometheus: inv.prometheus }, io)).exitCode;
      }
      const { analyzeCommand } = await import("./commands/analyze.js");
      return (await analyzeCommand({ ...inv, file: inv.file ?? "" }, io)).exitCode;
    }
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof MemleakError) {
      process.stderr.write(`memleak: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    // The system refused something (a full disk, a missing $TMPDIR, a path that is a directory): one line, exit 3,
    // like every other "could not do its job here". Not a bug, so no stack trace.
    const sys = err as NodeJS.ErrnoException;
    if (typeof sys?.code === "string" && /^E[A-Z0-9]+$/.test(sys.code) && typeof sys.syscall === "string") {
      const hint = sys.syscall === "mkdtemp" ? " (is $TMPDIR a writable directory?)" : "";
      // eslint-disable-next-line no-control-regex
      process.stderr.write(`memleak: ${sys.message.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")}${hint}\n`);
      process.exitCode = EXIT.cannotObserve;
      return;
    }
    // A bug, not bad input: one line, and the stack in a file to report (base/internal-error.ts).
    process.stderr.write(reportInternalError(err, process.argv.slice(2)));
    process.exitCode = INTERNAL_ERROR_EXIT;
  },
);
