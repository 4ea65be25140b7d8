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
  update(live: Iterable<number>, placement: Placement, reports: (pid: number) => boolean): void {
    for (const pid of live) {
      const w = placement.wanted.get(pid);
      if (w && reports(pid)) this.held.set(pid, { pid, reason: w.reason, siblings: w.siblings });
      else this.held.delete(pid);
    }
  }

  list(): AgentHeld[] {
    return [...this.held.values()];
  }
}
