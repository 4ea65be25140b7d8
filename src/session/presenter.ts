/**
 * What the user sees while a session samples: on a terminal the live view, redrawn every tick; in a log a progress
 * line every PROGRESS_EVERY_S (a redrawn block would fill a CI log); and warnings, above the live view when there is
 * one (a raw write would be drawn over).
 */
import { shortCommand } from "../base/command-text.js";
import { processKey } from "../sampling/process-key.js";
import type { LiveRegion } from "../report/live/region.js";
import { renderLive, renderProgress, type LiveState } from "../report/live/view.js";
import type { Sample } from "../system/sample.js";
import type { SamplerTotals } from "../sampling/sampler.js";
import type { CommandIO } from "../base/command-io.js";

export const PROGRESS_EVERY_S = 10;

/** What the view shows of the session so far, built only when it is drawn. */
export type SessionView = Omit<LiveState, "mode" | "rootPid" | "command" | "elapsed">;

/** Short command names of the processes in this sample: all the live view shows. */
export function liveNames(sample: Sample, seen: SamplerTotals["seen"]): Map<number, string> {
  return new Map(
    sample.processes.map((p) => {
      const known = seen.get(processKey(p));
      return [p.pid, shortCommand({ cmdline: known?.cmdline ?? [p.comm], comm: "" })] as const;
    }),
  );
}

export class SessionPresenter {
  private readonly command: string;
  private lastProgress = 0;
  /** Processes whose smaps_rollup was refused, said once each: without it, PSS and USS are missing, silently. */
  private readonly deniedSaid = new Set<number>();

  constructor(
    private readonly io: Pick<CommandIO, "stderr" | "color">,
    private readonly region: LiveRegion | undefined,
    private readonly target: { mode: "run" | "watch"; rootPid: number; command?: string[] | undefined },
  ) {
    this.command = target.command ? shortCommand({ cmdline: target.command, comm: "" }) : `PID ${target.rootPid}`;
  }

  /** A line for the user on stderr. */
  say(line: string): void {
    if (this.region) this.region.say(line);
    else this.io.stderr(line);
  }

  /** Warns about the processes whose PSS and USS could not be read that were not warned about yet. */
  sayDenied(denied: Iterable<number>): void {
    const fresh = [...denied].filter((pid) => !this.deniedSaid.has(pid));
    if (fresh.length === 0) return;
    for (const pid of fresh) this.deniedSaid.add(pid);
    this.say(
      `memleak: warning: PSS and USS unreadable for PID ${fresh.join(", ")}: /proc/PID/smaps_rollup needs the process's uid or CAP_SYS_PTRACE (run as root or with sudo); judged on RSS and anonymous memory\n`,
    );
  }

  /** Called every tick; `view` is called only when something is drawn (every tick on a terminal, seldom in a log). */
  tick(elapsed: number, view: () => SessionView): void {
    const progressDue = !this.region && elapsed - this.lastProgress >= PROGRESS_EVERY_S;
    if (!this.region && !progressDue) return;
    const state: LiveState = {
      mode: this.target.mode,
      rootPid: this.target.rootPid,
      command: this.command,
      elapsed,
      ...view(),
    };
    if (this.region) this.region.update(renderLive(state, this.io.color, this.region.width));
    else {
      this.io.stderr(renderProgress(state) + "\n");
      this.lastProgress = elapsed;
    }
  }

  /** Removes the live view, before the report is printed in its place. */
  clear(): void {
    this.region?.clear();
  }
}
