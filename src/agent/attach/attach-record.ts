/**
 * What became of one process's agent in `watch` or `run` (the Attacher, session/attacher.ts, and RunAgents,
 * session/run-agents.ts, write it; the recording keeps it and the report says it). Here, below both, so that the
 * recording and the report read it without reaching up into the session.
 */
export interface AttachRecord {
  pid: number;
  /**
   * attached: injected and said hello; inherited: forked from a process with the agent; failed: see reason; skipped:
   * read from /proc only, never given an agent (reason: why, agent-placement.ts); released: its agent was told to
   * leave (reason: why it was no longer needed).
   */
  status: "attached" | "inherited" | "failed" | "skipped" | "released";
  reason?: string;
  method?: string;
  /** From the start of the injection to the agent's hello. */
  ms?: number;
  /** When the injection started (epoch ms): the agent's memory arrives from then on, before its first report. */
  startedAt?: number;
  /** In a container (another PID namespace): the pid the process has there; `pid` is the host's. */
  pidInside?: number;
}
