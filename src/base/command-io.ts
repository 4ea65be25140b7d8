/**
 * What a command may touch of the outside world besides the file system: two output streams and the environment.
 * Commands return a CommandResult and never call process.exit; only cli.ts turns results and errors into exit codes.
 */

export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Colour allowed on stdout (cli/terminal-policy.ts: a terminal, NO_COLOR, FORCE_COLOR, TERM=dumb). */
  color: boolean;
  /** stdout is a terminal that can redraw (the live view) rather than a log, a pipe or TERM=dumb. */
  isTTY: boolean;
  /** Sparklines in ASCII rather than block characters (TERM=dumb). */
  ascii: boolean;
  /** Terminal width, when known (read when asked: a resized terminal reports its new size). */
  readonly columns: number | undefined;
  /** Terminal height, when known: the live view is cut to it, or its top rows would scroll away and stay behind. */
  readonly rows?: number | undefined;
  env: NodeJS.ProcessEnv;
  /** The OS memleak runs on (process.platform): run and watch need Linux. */
  platform: string;
  /** stdin is a terminal: a Ctrl-C there reaches `run`'s command directly, so memleak does not forward it again. */
  stdinIsTTY: boolean;
  /** memleak's own PID: its cgroup is where `run` isolates the command, and it is no outsider of the cgroup watched. */
  pid: number;
  /**
   * Subscribe to SIGINT/SIGTERM/SIGHUP (only cli.ts installs process signal handlers). Returns an unsubscribe
   * function. While anyone is subscribed, the signal does not kill memleak.
   */
  onSignal(handler: (signal: NodeJS.Signals) => void): () => void;
}

export interface CommandResult {
  /** One of EXIT, or (run only) the launched command's own non-zero status passed through. */
  exitCode: number;
}

/**
 * How a launched command ended (run's command, each trial of run --try), as Node's "exit" event tells it: a code, or
 * the signal that killed it. gates/exit-policy.ts turns it into memleak's exit code.
 */
export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}
