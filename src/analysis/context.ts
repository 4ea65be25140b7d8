/** What every rule needs besides its own series. */
import type { Column } from "../series/column.js";
import type { AgentResults } from "../agent/agent-results.js";

export type { AgentResults };
import { minGrowth } from "./assess.js";
import { median } from "./stats/quantiles.js";
import { detectWarmup } from "./stats/warmup.js";

export interface AnalysisOptions {
  /** Seconds to leave out at the start; undefined = detect it (capped at a quarter of the window). */
  warmup?: number;
  /** The command, for messages. */
  command?: string[];
  /**
   * memleak launched the command (`run`, `pytest`), as the recording's header says (`mode`): each agent came with its
   * interpreter's start, none was injected, and advice speaks of `run`'s options. Unset: `watch`, or a series from
   * elsewhere (Prometheus). Not read off `command`: a watch records the watched process's command line too.
   */
  launched?: boolean;
}

export interface Context {
  /** Seconds since the first sample from which trends are fitted. */
  from: number;
  warmup: number;
  /**
   * When the root exec'd its program, if memleak saw it after the root's birth (ProcessSeries.execAt): the start-up
   * of the tree and the cgroup counts from there too.
   */
  programStart?: number | undefined;
  duration: number;
  /** The first sample's time (ms since the epoch): agent answers carry epoch times. */
  t0?: number | undefined;
  /** The agent reported for at least one process (so "fragmentation could not be decided" is not said for nothing). */
  agentSeen: boolean;
  /** memleak launched the command (AnalysisOptions.launched): no agent was injected. */
  launched?: boolean;
  agentResults?: AgentResults | undefined;
  /** `watch`: processes the agent could not be loaded into, and why (said in their findings). */
  agentMissing?: Map<number, string> | undefined;
}

/**
 * Start-up offsets under this share of the growth floor are not warm-up: they cannot make or hide growth worth a
 * verdict, and cutting them only throws data away. Half, so that an offset that could push a just-sub-floor growth
 * over the floor is still cut. Measured on the recordings (scripts/threshold-margins.mjs): with noise as the only
 * scale, 18 of 27 warm-ups were the 25% cap; with this floor, see fixtures/calibration/README.md.
 */
export const WARMUP_MIN_OFFSET_SHARE = 0.5;

/** Warm-up for a column: the user's, or what detectWarmup suggests. */
export function warmupFor(col: Column | undefined, options: AnalysisOptions): number {
  if (options.warmup !== undefined) return options.warmup;
  if (!col || col.length < 20) return 0;
  const level = median(col.ys) ?? 0;
  const w = detectWarmup(col.xs, col.ys, { minOffset: WARMUP_MIN_OFFSET_SHARE * minGrowth(level) });
  return w.ok ? w.seconds : 0;
}
