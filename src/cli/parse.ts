/**
 * argv → what to do, without running anything: a pure function, testable without spawning.
 * commander is told never to exit or print by itself; its output and errors come back in the result.
 */
import { Command, CommanderError, Option } from "commander";
import { parsePid } from "../system/target.js";
import { MemleakError } from "../commands/io.js";

export const VERSION = "0.1.0";

export type Invocation =
  | { kind: "snapshot"; pid: number; json: boolean; root: string | undefined }
  | { kind: "print"; text: string; exitCode: 0 }
  | { kind: "error"; message: string; exitCode: 2 };

function buildProgram(onAction: (inv: Invocation) => void, output: { text: string }): Command {
  const program = new Command("memleak")
    .description("Why does the memory of your Python/PyTorch process or container keep growing?")
    .version(VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => (output.text += s),
      writeErr: (s) => (output.text += s),
      outputError: () => {},
    })
    .showSuggestionAfterError(true);

  program
    .command("snapshot")
    .description("one reading of a process tree: RSS/PSS/USS/anon/file/shmem/swap per process, and its memory cgroup")
    .argument("<pid>", "the process to read (its descendants are included)")
    .option("--json", "print JSON instead of tables")
    .addOption(new Option("--root <dir>", "read /proc and /sys under this directory (captured trees)").hideHelp())
    .exitOverride()
    .configureOutput({ writeOut: (s) => (output.text += s), writeErr: (s) => (output.text += s), outputError: () => {} })
    .action((pidText: string, o: { json?: boolean; root?: string }) => {
      onAction({ kind: "snapshot", pid: parsePid(pidText), json: Boolean(o.json), root: o.root });
    });

  return program;
}

/** argv without the node and script entries (process.argv.slice(2)). */
export function parseCLI(args: string[]): Invocation {
  let invocation: Invocation | undefined;
  const output = { text: "" };
  const program = buildProgram((inv) => (invocation = inv), output);
  try {
    program.parse(args, { from: "user" });
  } catch (err) {
    if (err instanceof MemleakError) return { kind: "error", message: err.message, exitCode: 2 };
    if (err instanceof CommanderError) {
      // Help and version (asked for, or shown because no command was given) are output, not errors.
      if (err.exitCode === 0 || err.code === "commander.help") return { kind: "print", text: output.text, exitCode: 0 };
      return { kind: "error", message: err.message.replace(/^error: /, ""), exitCode: 2 };
    }
    throw err;
  }
  if (invocation) return invocation;
  // No command: show help, as `git` does.
  return { kind: "print", text: program.helpInformation(), exitCode: 0 };
}
