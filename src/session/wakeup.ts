/** How a session's sampling loop waits between ticks, and why it stopped. */

export type StopReason = "exited" | "duration" | "interrupted" | "gate-failed";

/** Lets the loop sleep until the next tick, or wake early when told to stop or when the target exits. */
export class Wakeup {
  private wake: (() => void) | undefined;
  private readonly listeners: ((reason: StopReason) => void)[] = [];
  stopped: StopReason | undefined;

  /**
   * The first reason given is the stop's: `run --duration` stops as it sends the command SIGTERM (the exit that
   * follows is the duration's doing, said as "duration", not as a command that ended).
   */
  stop(reason: StopReason): void {
    if (this.stopped === undefined) {
      this.stopped = reason;
      for (const l of this.listeners) l(reason);
    }
    this.wake?.();
  }

  /** Told once, when the first stop reason is given (run stops its command when a gate fails under --fail-fast). */
  onStop(listener: (reason: StopReason) => void): void {
    this.listeners.push(listener);
  }

  sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }
}

/** Why sampling stopped, in the words of the "memleak: stopped: …" line (watch and run). */
export function stopText(reason: StopReason, pid: number, duration?: number): string {
  if (reason === "exited") return `PID ${pid} exited`;
  if (reason === "duration") return `--duration ${duration ?? ""}s reached`;
  if (reason === "gate-failed") return "a gate failed (--fail-fast)";
  return "interrupted";
}
