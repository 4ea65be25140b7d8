/**
 * What the in-process agent tells at the end of a run, as the analysis reads it: the allocation sites tracemalloc
 * found (--trace-python), and what malloc_trim gave back. The agent's messages are checked against these shapes
 * (agent/messages.ts); the analysis needs nothing else of the agent.
 */

export interface TraceSite {
  file: string;
  line: number;
  sizeDiff: number;
  countDiff: number;
  size: number;
}

export interface TraceResult {
  type: "trace";
  pid: number;
  t: number;
  sites: TraceSite[];
  traced: number;
  tracedPeak: number;
}

export interface TrimResult {
  type: "trim";
  pid: number;
  t: number;
  anonBefore: number;
  anonAfter: number;
}
