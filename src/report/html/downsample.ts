/**
 * Thinning series for DRAWING only (the analysis always sees every stored point). A chart is at most ~1000 pixels
 * wide, so more points than about two per pixel only cost bytes and time: a 72-hour 1 Hz recording has 260k samples
 * per metric. Each line keeps, per pixel-wide bucket, its lowest and its highest point, in the order they happened,
 * so a one-sample spike or dip still shows at full height (averaging would flatten it).
 *
 * uPlot wants every series of a chart on one x array, so all lines of a chart are thinned onto one shared grid of
 * buckets: slot 0 of a bucket holds whichever extreme came first, slot 1 the other. A point's x moves by at most one
 * bucket (≤ 1/1000 of the chart), which no one can see.
 */

export interface Line {
  readonly xs: readonly number[];
  readonly ys: readonly number[];
}

/** One x array and, per line, a value or null (no point there) for each x. */
export interface Aligned {
  xs: number[];
  ys: (number | null)[][];
}

export const MAX_POINTS = 2000;

/** Merges the (sorted) xs of all lines into one sorted array without duplicates. */
export function unionXs(lines: readonly (Line | undefined)[]): number[] {
  const all: number[] = [];
  for (const l of lines) if (l) for (const x of l.xs) all.push(x);
  all.sort((a, b) => a - b);
  const out: number[] = [];
  for (const x of all) if (out.length === 0 || out[out.length - 1] !== x) out.push(x);
  return out;
}

/** Every point kept, on the union of the lines' xs (short recordings: nothing to thin). */
function alignExact(lines: readonly (Line | undefined)[], xs: number[]): Aligned {
  const ys = lines.map((l) => {
    const row: (number | null)[] = new Array<number | null>(xs.length).fill(null);
    if (!l) return row;
    let j = 0;
    for (let i = 0; i < l.xs.length; i++) {
      while (xs[j]! < l.xs[i]!) j++;
      row[j] = l.ys[i]!;
    }
    return row;
  });
  return { xs, ys };
}

/** Lowest and highest point per bucket, on a grid of `buckets` buckets × 2 slots spanning [x0, x1]. */
function alignBuckets(lines: readonly (Line | undefined)[], x0: number, x1: number, buckets: number): Aligned {
  const width = (x1 - x0) / buckets || 1;
  const rows = lines.map((l) => {
    const row: (number | null)[] = new Array<number | null>(buckets * 2).fill(null);
    if (!l) return row;
    let b = -1;
    let lo = 0,
      loAt = 0,
      hi = 0,
      hiAt = 0;
    const flush = () => {
      if (b < 0) return;
      row[2 * b] = loAt <= hiAt ? lo : hi;
      row[2 * b + 1] = loAt <= hiAt ? hi : lo;
    };
    for (let i = 0; i < l.xs.length; i++) {
      const y = l.ys[i]!;
      const k = Math.min(buckets - 1, Math.max(0, Math.floor((l.xs[i]! - x0) / width)));
      if (k !== b) {
        flush();
        b = k;
        lo = hi = y;
        loAt = hiAt = i;
      } else if (y < lo) {
        lo = y;
        loAt = i;
      } else if (y > hi) {
        hi = y;
        hiAt = i;
      }
    }
    flush();
    return row;
  });
  // Slots where no line has a point (a process that lived for part of the time, sparse PSS) are dropped.
  const xs: number[] = [];
  const ys: (number | null)[][] = rows.map(() => []);
  for (let s = 0; s < buckets * 2; s++) {
    if (rows.every((r) => r[s] === null)) continue;
    xs.push(x0 + (Math.floor(s / 2) + (s % 2 === 0 ? 0.25 : 0.75)) * width);
    rows.forEach((r, i) => ys[i]!.push(r[s]!));
  }
  return { xs, ys };
}

/**
 * Puts the lines of one chart on one x array with at most `maxPoints` points: as they are when they fit, else
 * thinned to the lowest and highest point per bucket. Lines must have sorted xs (Column guarantees it).
 */
export function alignForDrawing(lines: readonly (Line | undefined)[], maxPoints = MAX_POINTS): Aligned {
  const xs = unionXs(lines);
  if (xs.length <= maxPoints) return alignExact(lines, xs);
  return alignBuckets(lines, xs[0]!, xs[xs.length - 1]!, Math.max(1, Math.floor(maxPoints / 2)));
}

/** One line thinned the same way; nulls dropped. */
export function downsample(line: Line, maxPoints = MAX_POINTS): { xs: number[]; ys: number[] } {
  const a = alignForDrawing([line], maxPoints);
  const xs: number[] = [];
  const ys: number[] = [];
  a.xs.forEach((x, i) => {
    const y = a.ys[0]![i];
    if (y !== null && y !== undefined) {
      xs.push(x);
      ys.push(y);
    }
  });
  return { xs, ys };
}
