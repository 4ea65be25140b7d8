/**
 * How a launched command's end reads (run's command, each trial of run --try): the status a shell would report for
 * it, and whether it died of the signal memleak sent it at --duration. Pure; gates/exit-policy.ts decides memleak's
 * exit code from these, trial/compare.ts whether a trial failed.
 */
import { constants } from "node:os";
import type { CommandExit } from "./command-io.js";

/** The exit code a shell would report for the command: its own, or 128 + the signal that killed it. */
export function shellExitCode(exit: CommandExit): number {
  if (exit.code !== null) return exit.code;
  const n = exit.signal ? (constants.signals as Record<string, number>)[exit.signal] : undefined;
  return 128 + (n ?? 1);
}

/** The signal `run` sends the command when --duration is up, as timeout(1) does. */
export const DURATION_SIGNAL: NodeJS.Signals = "SIGTERM";

/**
 * Whether the command's end is the signal memleak itself sent it when `--duration` was up (`sent`): killed by it, or
 * an exit status of 128 + its number, which a shell between memleak and the program reports for the same death.
 */
export function endedBySignalSent(command: CommandExit, sent: NodeJS.Signals | undefined): boolean {
  if (sent === undefined) return false;
  if (command.signal === sent) return true;
  return command.code !== null && command.code === shellExitCode({ code: null, signal: sent });
}
