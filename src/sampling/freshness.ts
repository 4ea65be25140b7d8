/**
 * How old the PSS/USS numbers of the samples were: at every tick, each process's time since its last smaps_rollup
 * read (0 when read that tick). Kept as a histogram of 100 ms bins, so a week-long watch costs the same 24 KB; the
 * median is exact to the bin (ages past 10 minutes share the last one), the maximum exact.
 */
const BIN_MS = 100;
const BINS = 6_000; // ten minutes; older ages land in the last bin (the maximum stays exact)

export class AgeStats {
  private readonly bins = new Uint32Array(BINS);
  private n = 0;
  private maxMs = 0;

  add(ageMs: number): void {
    if (!(ageMs >= 0)) return;
    this.bins[Math.min(BINS - 1, Math.floor(ageMs / BIN_MS))]!++;
    this.n++;
    if (ageMs > this.maxMs) this.maxMs = ageMs;
  }

  get count(): number {
    return this.n;
  }

  /** Seconds; undefined before any age was added. */
  median(): number | undefined {
    if (this.n === 0) return undefined;
    let seen = 0;
    for (let i = 0; i < BINS; i++) {
      seen += this.bins[i]!;
      // The bin's middle: a 100 ms resolution is far finer than any target age.
      if (seen * 2 >= this.n) return Math.min(((i + 0.5) * BIN_MS) / 1000, this.maxMs / 1000);
    }
    return this.maxMs / 1000;
  }

  /** Seconds; undefined before any age was added. */
  max(): number | undefined {
    return this.n === 0 ? undefined : this.maxMs / 1000;
  }
}
