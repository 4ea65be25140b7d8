/**
 * A time series that stays bounded however long the watch: when it reaches `capacity` points it halves its
 * resolution by averaging neighbouring pairs (times and values). A 72-hour 1 Hz watch thus keeps ≤ capacity points
 * per metric, at ~13 s resolution for the default capacity — plenty for trend tests, which look at hours of data.
 */
export const DEFAULT_CAPACITY = 20_000;

export class Column {
  xs: number[] = [];
  ys: number[] = [];
  /** How many raw points each stored point stands for now (1, 2, 4, …). */
  private stride = 1;
  private pendingX = 0;
  private pendingY = 0;
  private pendingN = 0;
  /** Exact maximum of every raw value pushed: compaction averages spikes away, the peak must not be. */
  peak: number | undefined;

  /**
   * The same series at a coarser resolution (at most `coarseCapacity` points), kept up as points arrive: the
   * interim verdicts of a long watch are worked out on it, at a cost that does not grow with the watch.
   */
  readonly coarse: Column | undefined;

  constructor(
    private capacity = DEFAULT_CAPACITY,
    coarseCapacity?: number,
  ) {
    this.coarse = coarseCapacity !== undefined && coarseCapacity < capacity ? new Column(coarseCapacity) : undefined;
  }

  push(x: number, y: number): void {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    this.coarse?.push(x, y);
    if (this.peak === undefined || y > this.peak) this.peak = y;
    this.pendingX += x;
    this.pendingY += y;
    this.pendingN++;
    if (this.pendingN < this.stride) return;
    this.xs.push(this.pendingX / this.pendingN);
    this.ys.push(this.pendingY / this.pendingN);
    this.pendingX = this.pendingY = this.pendingN = 0;
    if (this.xs.length >= this.capacity) this.compact();
  }

  /**
   * Holds at most `capacity` points from now on: compacted at once while it holds more (its stride doubles each
   * time), and grown into again if the capacity rises. The series builder lowers it as a big tree's columns add up.
   */
  setCapacity(capacity: number): void {
    this.capacity = capacity;
    while (this.xs.length >= this.capacity && this.xs.length > 1) this.compact();
  }

  private compact(): void {
    const xs: number[] = [];
    const ys: number[] = [];
    const n = this.xs.length;
    for (let i = 0; i + 1 < n; i += 2) {
      xs.push((this.xs[i]! + this.xs[i + 1]!) / 2);
      ys.push((this.ys[i]! + this.ys[i + 1]!) / 2);
    }
    if (n % 2 === 1) {
      // An odd last point (a capacity lowered mid-stride) is not dropped: it waits, as the raw points it stands for,
      // with those already pending, for the next stored point at the new stride.
      this.pendingX += this.xs[n - 1]! * this.stride;
      this.pendingY += this.ys[n - 1]! * this.stride;
      this.pendingN += this.stride;
    }
    this.xs = xs;
    this.ys = ys;
    this.stride *= 2;
  }

  /**
   * The points, and the pending partial one (the mean of the raw points not yet a stored point) as the last: what a
   * reader that must not lag behind the newest sample sees (a coarse twin at stride 64 holds back up to 63 samples).
   */
  withPending(): Column {
    if (this.pendingN === 0) return this;
    return Column.of(
      [...this.xs, this.pendingX / this.pendingN],
      [...this.ys, this.pendingY / this.pendingN],
      this.peak,
    );
  }

  /** A column holding these points as they are (no compaction ahead): for a set rebuilt from its packed form. */
  static of(xs: number[], ys: number[], peak: number | undefined): Column {
    const c = new Column(Math.max(xs.length + 1, 2));
    c.xs = xs;
    c.ys = ys;
    c.peak = peak;
    return c;
  }

  /**
   * Forgets the points after `x` (seconds): the newest only, as stored at stride 1 (a short run's last seconds; a long
   * compacted column's last stored point may stand for raw points on both sides, and is kept). The exact peak stays.
   */
  dropAfter(x: number): void {
    this.coarse?.dropAfter(x);
    if (this.pendingN > 0 && this.pendingX / this.pendingN > x) this.pendingX = this.pendingY = this.pendingN = 0;
    if (this.stride !== 1) return;
    while (this.xs.length > 0 && this.xs[this.xs.length - 1]! > x) {
      this.xs.pop();
      this.ys.pop();
    }
  }

  get length(): number {
    return this.xs.length;
  }

  first(): number | undefined {
    return this.ys[0];
  }

  last(): number | undefined {
    return this.ys[this.ys.length - 1];
  }

  /** The exact maximum of all values pushed (not of the stored, possibly averaged, points). */
  max(): number | undefined {
    return this.peak;
  }
}
