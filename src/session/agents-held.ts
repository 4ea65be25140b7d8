/**
 * The agents a session's document lists (`sampling.agents.in`): where each process's agent was at the last tick the
 * process was seen. The placement is worked out again at every tick from the live processes, so a program that had
 * exited by the last tick left the list empty — `run` of a leaking program that ran to its end said `in: []` beside
 * the holder its agent had named (one run in nine of a user's trials, 2026-12-05).
 */
import type { AgentReason, Placement } from "../analysis/agent-placement.js";

export interface AgentHeld {
  pid: number;
  reason: AgentReason;
  siblings: number;
}

export class AgentsHeld {
  private readonly held = new Map<number, AgentHeld>();

  /**
   * After a placement: each live process's agent as placed now — wanted, and `reports` (it said hello, and is not
   * quietened) — or none; a process no longer live keeps its last.
   */
  update(live: ReadonlySet<number> | readonly number[], placement: Placement, reports: (pid: number) => boolean): void {
    // forEach, and the entry kept while it says the same: this runs at every tick for every process (issue 49).
    live.forEach((pid) => {
      const w = placement.wanted.get(pid);
      if (!w || !reports(pid)) {
        this.held.delete(pid);
        return;
      }
      const had = this.held.get(pid);
      if (had?.reason !== w.reason || had.siblings !== w.siblings)
        this.held.set(pid, { pid, reason: w.reason, siblings: w.siblings });
    });
  }

  list(): AgentHeld[] {
    return [...this.held.values()];
  }
}
