/**
 * Expected failures and the exit codes they map to: at the bottom of the house, because every layer that can meet
 * one (a PID that is gone, a recording that is not one, a command that does not exist) raises it, and only cli.ts
 * turns it into an exit.
 */

export const EXIT = {
  ok: 0,
  gateFailed: 1,
  usage: 2,
  cannotObserve: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An expected failure with a one-line message for the user and the exit code it maps to. */
export class MemleakError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = "MemleakError";
  }
}

export const usageError = (message: string) => new MemleakError(message, EXIT.usage);
export const observeError = (message: string) => new MemleakError(message, EXIT.cannotObserve);
