/**
 * The process boundary: reads argv and the environment, runs one command, and turns its result or error into
 * process.exitCode. Nothing else in memleak touches argv, exit codes or signals. Command modules are imported
 * lazily so `memleak --help` does not load the whole tool.
 */
import { parseCLI } from "./cli/parse.js";
import { MemleakError, type CommandIO, type ExitCode } from "./commands/io.js";

function terminalIO(): CommandIO {
  const isTTY = Boolean(process.stdout.isTTY);
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "";
  return {
    stdout: (s) => void process.stdout.write(s),
    stderr: (s) => void process.stderr.write(s),
    color: isTTY && !noColor,
    isTTY,
    columns: process.stdout.columns,
    env: process.env,
  };
}

async function main(): Promise<ExitCode> {
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
    // A bug, not bad input: say so, with the stack, so it can be reported.
    process.stderr.write(`memleak: internal error (please report it): ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 70;
  },
);
