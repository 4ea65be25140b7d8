/**
 * Which exit code memleak ends with, from the gates and (for `run`) the launched command's own exit. Pure: the
 * commands work out the inputs, and a CI step's colour is decided here alone.
 */
import type { VerdictDocument } from "../analysis/types.js";
import { blockingGates } from "./gates.js";
import { EXIT, type ExitCode } from "../base/errors.js";
import type { CommandExit } from "../base/command-io.js";
import { endedBySignalSent, shellExitCode } from "../base/command-exit.js";

export type { CommandExit };
export { DURATION_SIGNAL, endedBySignalSent, shellExitCode } from "../base/command-exit.js";

/** 1 when a gate fails the step (a failed gate, or an inconclusive one under --strict); 0 otherwise. */
export function gatesExitCode(doc: VerdictDocument): ExitCode {
  return blockingGates(doc.gates).length > 0 ? EXIT.gateFailed : EXIT.ok;
}

/**
 * `run`'s exit code. A failed gate wins, so that a leak is told apart from the command's own failure; otherwise a
 * failing command must not turn a CI step green, so its status is passed through as a shell would give it.
 * A command memleak stopped itself at `--duration` (`sent`: the signal it sent) and that died of that signal did not
 * fail: a service watched for ten minutes never exits on its own, and its SIGTERM (143) made every such step red
 * whatever the gates said. Its shutdown failing in another way (an exit status of its own) is still passed through.
 */
export function runExitCode(gates: ExitCode, command: CommandExit, sent?: NodeJS.Signals): number {
  if (gates !== EXIT.ok) return gates;
  const succeeded = command.code === 0 && command.signal === null;
  if (succeeded || endedBySignalSent(command, sent)) return EXIT.ok;
  return shellExitCode(command);
}
