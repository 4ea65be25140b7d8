/**
 * Which exit code memleak ends with, from the gates and (for `run`) the launched command's own exit. Pure: the
 * commands work out the inputs, and a CI step's colour is decided here alone.
 */
import { constants } from "node:os";
import type { VerdictDocument } from "../analysis/types.js";
import { blockingGates } from "./gates.js";
import { EXIT, type ExitCode } from "../base/errors.js";
import type { CommandExit } from "../base/command-io.js";

export type { CommandExit };

/** 1 when a gate fails the step (a failed gate, or an inconclusive one under --strict); 0 otherwise. */
export function gatesExitCode(doc: VerdictDocument): ExitCode {
  return blockingGates(doc.gates).length > 0 ? EXIT.gateFailed : EXIT.ok;
}

/** The exit code a shell would report for the command: its own, or 128 + the signal that killed it. */
export function shellExitCode(exit: CommandExit): number {
  if (exit.code !== null) return exit.code;
  const n = exit.signal ? (constants.signals as Record<string, number>)[exit.signal] : undefined;
  return 128 + (n ?? 1);
}

/**
 * Whether the command's end is the signal memleak itself sent it when `--duration` was up (`sent`): killed by it, or
 * an exit status of 128 + its number, which a shell between memleak and the program reports for the same death.
 */
export function endedBySignalSent(command: CommandExit, sent: NodeJS.Signals | undefined): boolean {
  if (sent === undefined) return false;
  if (command.signal === sent) return true;
  return command.code !== null && command.code === shellExitCode({ code: null, signal: sent });
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
