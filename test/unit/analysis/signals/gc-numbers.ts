/**
 * The agent's gc numbers (gc.get_count(), gc.get_stats(), gc.get_threshold()) as memleak_agent.py reports them, for a
 * collector whose generation-1 runs and full collections come at set times: what signals/gc-backlog.ts reads to tell
 * garbage waiting for a full collection from a leak. Shared by rules/gc-backlog.test.ts and classify-backlogs.test.ts.
 */
export interface Gc {
  /** Seconds between generation-1 runs that free garbage (Infinity: none after start-up). */
  gen1Every: number;
  /** Time of a full collection, if one runs. */
  fullAt?: number;
  threshold?: number;
  /** gc.get_count()[2] added on top (a full collection held back by the quarter rule). */
  extraPending?: number;
  /** No generation-1 run after this time (start-up garbage only). */
  freesUntil?: number;
  /** The program imports modules until this time (10 a second). */
  importsUntil?: number;
  /** The agent stops reporting at this time. */
  reportsUntil?: number;
  /** Full collections every this many seconds from `fullAt` on (a program calling gc.collect() in a loop). */
  fullEvery?: number;
}

/** The agent's gc numbers at time t. */
export function gcNumbers(g: Gc) {
  return (t: number) => {
    if (t >= (g.reportsUntil ?? Infinity)) return {};
    const gen1Runs = Number.isFinite(g.gen1Every) ? Math.floor(Math.min(t, g.freesUntil ?? Infinity) / g.gen1Every) : 0;
    const full = g.fullAt !== undefined && t >= g.fullAt;
    const fulls = !full ? 0 : g.fullEvery ? 1 + Math.floor((t - g.fullAt!) / g.fullEvery) : 1;
    const sinceFull = full && Number.isFinite(g.gen1Every) ? Math.floor((t - g.fullAt!) / g.gen1Every) : gen1Runs;
    return {
      py: {
        allocatedBlocks: 47_000,
        gcCount2: sinceFull + (g.extraPending ?? 0),
        gcRuns2: fulls,
        // 92 objects from start-up (the first generation-1 run), then 40 per run, as gc_sawtooth's promoted requests
        gcCollected1: 92 + 40 * gen1Runs,
        gcCollected2: 400 * fulls,
        gcThreshold2: g.threshold ?? 10,
        modules: 100 + 10 * Math.floor(Math.min(t, g.importsUntil ?? 0)),
      },
    };
  };
}
