/** Runs an injection helper (gdb, or the target's python) to its end, whatever it leaves behind. */
import { spawn } from "node:child_process";

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * How long the helper's output may stay open after it exited: a process it forked (gdb forks) holds the same stdout
 * and stderr, and waiting for them to close waited for that process — a stopped gdb fork kept a `watch` alive for
 * 90 minutes after Ctrl-C had printed its report.
 */
export const OUTPUT_GRACE_MS = 1000;

/**
 * Runs a helper in its own process group (a session: detached), so that a Ctrl-C meant for memleak never reaches a
 * debugger in the middle of an inferior call. On timeout the group is interrupted (gdb then unwinds the call and
 * detaches: `set unwindonsignal on`), and killed only if it does not end after that. Once the helper has exited,
 * whatever is left of its group is killed — a fork of gdb still attached would keep the target stopped — and its
 * output is read for OUTPUT_GRACE_MS at most.
 */
export function runHelper(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let exitCode: number | null = null;
    const group = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        /* the group is empty: nothing left to stop */
      }
    };
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout = (stdout + d).slice(-16_384)));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-16_384)));
    const interrupt = setTimeout(() => {
      timedOut = true;
      group("SIGINT");
    }, timeoutMs);
    const kill = setTimeout(() => group("SIGKILL"), timeoutMs + 5000);
    let grace: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (code: number | null, message?: string) => {
      if (done) return;
      done = true;
      clearTimeout(interrupt);
      clearTimeout(kill);
      clearTimeout(grace);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ code, stdout, stderr: message ?? stderr, timedOut });
    };
    child.once("error", (err) => finish(127, err.message));
    child.once("exit", (code) => {
      exitCode = code;
      group("SIGKILL");
      grace = setTimeout(() => finish(exitCode), OUTPUT_GRACE_MS);
    });
    child.once("close", (code) => finish(code ?? exitCode));
  });
}
