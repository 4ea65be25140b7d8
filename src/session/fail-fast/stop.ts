/**
 * --fail-fast under `run`: once a gate has failed for sure, the command and its descendants are asked to stop
 * (SIGTERM), and made to (SIGKILL) if they are still there FAIL_FAST_GRACE_MS later.
 */
import type { HostFs } from "../../system/host-fs.js";
import { alive } from "../../system/isolate.js";
import { processTree } from "../../system/process-tree.js";
import { signalAll } from "../command-signals.js";
import type { Wakeup } from "../wakeup.js";

/** How long a command stopped by --fail-fast has to exit after SIGTERM before it is killed. */
export const FAIL_FAST_GRACE_MS = 5000;

/** What FailFastStop does to processes: the real thing, or a test's record of it. */
export interface ProcessControl {
  /** The tree under `pid`, parent first. */
  tree(pid: number): number[];
  signal(pids: number[], signal: NodeJS.Signals): void;
  alive(pid: number): boolean;
}

export const hostProcesses = (fs: HostFs): ProcessControl => ({
  tree: (pid) => processTree(fs, pid).map((p) => p.pid),
  signal: signalAll,
  alive,
});

export class FailFastStop {
  private stopped: { pids: number[]; at: number } | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly processes: ProcessControl,
    command: { readonly pid?: number | undefined },
    wakeup: Wakeup,
    private readonly now: () => number = Date.now,
  ) {
    wakeup.onStop((reason) => {
      if (reason !== "gate-failed" || command.pid === undefined) return;
      // The tree as it is now: once the command itself has exited, its descendants can no longer be found from it,
      // and a grandchild that ignores SIGTERM would outlive the step.
      this.stopped = { pids: processes.tree(command.pid), at: this.now() };
      processes.signal(this.stopped.pids, "SIGTERM");
    });
    // During the session: the command itself must be made to exit, or the session would wait for it for ever.
    this.timer = setInterval(() => this.killOverdue(), 500);
    this.timer.unref();
  }

  /** After the session: descendants that outlived the command get the rest of their grace period, then SIGKILL. */
  async finish(): Promise<void> {
    clearInterval(this.timer);
    while (
      this.stopped &&
      this.stopped.pids.some(this.processes.alive) &&
      this.now() - this.stopped.at < FAIL_FAST_GRACE_MS
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    this.killOverdue();
  }

  /** Whatever of the stopped tree is still there once the grace period is over gets SIGKILL. */
  private killOverdue(): void {
    const stopped = this.stopped;
    if (stopped && this.now() - stopped.at >= FAIL_FAST_GRACE_MS)
      this.processes.signal(stopped.pids.filter(this.processes.alive), "SIGKILL");
  }
}
