/**
 * Decides which processes get a fresh smaps_rollup read this tick.
 *
 * smaps_rollup costs ~10 ms per GiB resident and holds the target's mmap lock while the kernel walks its page tables,
 * so reading a 10 GB PyTorch process every 100 ms would burn a core and slow the target. Instead the reads share a
 * CPU budget (a fraction of one core) through a token bucket:
 *  - tokens (milliseconds of read time) accrue at `budget` ms per ms of wall time, capped at `burstMs`;
 *  - each tick the stalest processes are read first (never-read ones before all others), while tokens remain;
 *  - a read is charged its measured cost afterwards, so the bucket may go briefly negative by at most one read.
 * Over any long window the read time is ≤ budget × window (+ one read), and every process is refreshed about every
 * Σ(read costs) / budget seconds — so every process keeps getting fresh PSS/USS, just less often when it is huge.
 */

export interface SmapsCandidate {
  /** Identifies one process across PID reuse: "pid:starttime". */
  key: string;
  rss: number | undefined;
  /**
   * The process has not run nor changed its resident memory since its last read (sampler.ts): what it copies, keeps
   * or frees cannot have moved, only its share of pages others write. It is read every `everyMs` even while eager.
   */
  still?: boolean;
}

/** A first guess before a process has been measured: ~10 ms per GiB resident (the kernel walks the page tables) plus a fixed syscall cost. */
export function estimateCostMs(rss: number | undefined): number {
  return 0.05 + ((rss ?? 0) / 2 ** 30) * 10;
}

/**
 * One read in this many of each process is timed (process.cpuUsage before and after: two getrusage calls, which sum
 * every thread of memleak); the others are charged the process's smoothed cost. On 64 small processes with PSS every
 * 2 s, timing every read was a tenth of what their bare reads cost (bench g); a process's smaps cost follows its
 * resident size and mappings, which move slowly.
 */
export const TIME_EVERY_NTH_READ = 8;

export class SmapsBudget {
  private tokens: number;
  private readonly readsOf = new Map<string, number>();
  private lastNow: number | undefined;
  private readonly lastRead = new Map<string, number>();
  private readonly cost = new Map<string, number>();
  private spentMs = 0;
  private reads = 0;

  /**
   * @param budget fraction of one core for smaps reads (0.007 = 0.7%)
   * @param burstMs most read time that may be saved up; by default what one second of budget buys, but at least
   *                enough for one small read so a tiny budget still makes progress.
   */
  constructor(
    readonly budget: number,
    readonly burstMs = Math.max(budget * 1000, 1),
    /**
     * The age PSS/USS should not exceed (--pss-every): a process read more recently than this is not read again,
     * however much budget is left; the budget caps how fresh a big tree can be kept. Undefined: read whenever the
     * budget allows.
     */
    readonly everyMs?: number,
    /**
     * For this long after the first plan, `everyMs` does not apply to a process that moved (not `still`): it is read
     * as often as the budget allows.
     */
    readonly eagerForMs = 0,
  ) {
    this.tokens = burstMs;
  }

  private firstPlan: number | undefined;

  /**
   * Keys to read now, stalest first, as far as the bucket allows (estimated costs). With `everyMs`, only those due:
   * never read, or read at least everyMs ago less `slackMs` (half a tick, so that a read due between two ticks is
   * made at the nearer one: the age stays within the target plus half a tick, as far as the budget allows).
   */
  plan(nowMs: number, candidates: SmapsCandidate[], slackMs = 0): string[] {
    if (this.lastNow !== undefined) {
      this.tokens = Math.min(this.burstMs, this.tokens + (nowMs - this.lastNow) * this.budget);
    }
    this.lastNow = nowMs;
    this.firstPlan ??= nowMs;
    const eager = nowMs - this.firstPlan < this.eagerForMs;
    const due = candidates.filter((c) => {
      const every = eager && !c.still ? undefined : this.everyMs;
      const last = this.lastRead.get(c.key);
      return every === undefined || last === undefined || nowMs - last >= every - slackMs;
    });
    const ordered = [...due].sort(
      (a, b) => (this.lastRead.get(a.key) ?? -Infinity) - (this.lastRead.get(b.key) ?? -Infinity),
    );
    const chosen: string[] = [];
    let available = this.tokens;
    for (const c of ordered) {
      if (available <= 0) break;
      chosen.push(c.key);
      available -= this.cost.get(c.key) ?? estimateCostMs(c.rss);
    }
    return chosen;
  }

  /** Whether the next read of `key` is to be timed (its first, then one in TIME_EVERY_NTH_READ). */
  timeNext(key: string): boolean {
    return !this.cost.has(key) || (this.readsOf.get(key) ?? 0) % TIME_EVERY_NTH_READ === 0;
  }

  /**
   * Charge a read that happened (or was attempted) at nowMs and took costMs; a read that was not timed (costMs
   * undefined) is charged the process's smoothed cost. Returns what was charged.
   */
  charge(key: string, nowMs: number, costMs?: number): number {
    const prev = this.cost.get(key);
    const charged = costMs ?? prev ?? estimateCostMs(undefined);
    this.spend(charged);
    this.reads++;
    this.readsOf.set(key, (this.readsOf.get(key) ?? 0) + 1);
    this.lastRead.set(key, nowMs);
    // Smooth the per-process estimate: one read can be slow because the machine was busy.
    if (costMs !== undefined) this.cost.set(key, prev === undefined ? costMs : prev * 0.7 + costMs * 0.3);
    return charged;
  }

  /**
   * Charge a read that failed (the process exited, or its smaps was refused): the attempt's cost comes out of the
   * bucket and the process is not tried again at once, but its cost estimate and its count of reads are left alone —
   * a first read that failed set a 0.05 ms estimate that the next seven untimed reads of a 10 GB process then paid.
   */
  chargeFailed(key: string, nowMs: number, costMs: number): void {
    this.spend(costMs);
    this.lastRead.set(key, nowMs);
  }

  /** Whether the bucket holds any read time now (for reads the plan does not schedule, see sampling/mapped-files.ts). */
  canSpend(): boolean {
    return this.tokens > 0;
  }

  /** Charge read time spent outside the plan: it comes out of the same share of one core. */
  spend(costMs: number): void {
    this.tokens -= costMs;
    this.spentMs += costMs;
  }

  /** Forget processes that are gone, so the maps stay bounded over a long watch. */
  retain(keys: Set<string>): void {
    for (const k of this.lastRead.keys()) if (!keys.has(k)) this.lastRead.delete(k);
    for (const k of this.cost.keys()) if (!keys.has(k)) this.cost.delete(k);
    for (const k of this.readsOf.keys()) if (!keys.has(k)) this.readsOf.delete(k);
  }

  lastReadAt(key: string): number | undefined {
    return this.lastRead.get(key);
  }

  totals(): { reads: number; spentMs: number } {
    return { reads: this.reads, spentMs: this.spentMs };
  }
}
