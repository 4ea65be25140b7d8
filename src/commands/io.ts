/**
 * What a command may touch of the outside world besides the file system: two output streams and the environment.
 * Commands return a CommandResult and never call process.exit; only cli.ts turns results and errors into exit codes.
 */

export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Colour allowed on stdout (a TTY, and NO_COLOR unset). */
  color: boolean;
  /** stdout is a terminal (live view) rather than a log or a pipe. */
  isTTY: boolean;
  /** Terminal width, when known. */
  columns: number | undefined;
  env: NodeJS.ProcessEnv;
  /**
   * Subscribe to SIGINT/SIGTERM/SIGHUP (only cli.ts installs process signal handlers). Returns an unsubscribe
   * function. While anyone is subscribed, the signal does not kill memleak.
   */
  onSignal(handler: (signal: NodeJS.Signals) => void): () => void;
}

export const EXIT = {
  ok: 0,
  gateFailed: 1,
  usage: 2,
  cannotObserve: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface CommandResult {
  /** One of EXIT, or (run only) the launched command's own non-zero status passed through. */
  exitCode: number;
}

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
