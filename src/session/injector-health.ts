/**
 * Whether what fails is the debugger, not the process: `watch` loads its agent one process at a time, and a debugger
 * that cannot work on this machine (its Python broken by the environment, ptrace refused to every process) failed the
 * same way in each — 64 lldb runs of ~0.5 s of CPU each in a 64-worker watch's first minute, one line of "same reason
 * as above" for each. The same failure in two live processes before any agent came in is taken as the debugger's:
 * no more are tried, and that is said once.
 */
export interface InjectorGivenUp {
  /** The two processes it failed in, first and second. */
  pids: [number, number];
  method: string;
  reason: string;
}

export class InjectorHealth {
  private first: { pid: number; reason: string } | undefined;
  private worked = false;
  givenUp: InjectorGivenUp | undefined;

  /** An agent came in through the debugger: a later failure is the process's. */
  succeeded(): void {
    this.worked = true;
  }

  /** A failure of the debugger in a process still alive after it. True when it is the one that gives the debugger up. */
  failed(pid: number, method: string, reason: string): boolean {
    if (this.worked || this.givenUp) return false;
    if (this.first === undefined || this.first.reason !== reason || this.first.pid === pid) {
      this.first = { pid, reason };
      return false;
    }
    this.givenUp = { pids: [this.first.pid, pid], method, reason };
    return true;
  }
}

/** The line said once, and the reason recorded for each Python process left without an agent because of it. */
export function givenUpText(g: InjectorGivenUp): string {
  return `${g.method} failed the same way in PID ${g.pids[0]} and PID ${g.pids[1]}: no other process is tried`;
}
