/**
 * Order statistics: quantiles, median and MAD. Non-finite entries are ignored; an empty input gives undefined.
 */
import { lerp, saturate } from "./saturating.js";
import { float64Scratch } from "./scratch.js";

/** Scale that makes the median absolute deviation estimate a Gaussian standard deviation (1 / Φ⁻¹(3/4)). */
export const MAD_SCALE = 1.4826;

/** quantile's copy of its input: reordered in place, and done with before quantile returns (scratch.ts). */
const copySpace = float64Scratch();

function finiteCopy(values: ArrayLike<number>): Float64Array {
  const out = copySpace(values.length);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v)) out[k++] = v as number;
  }
  return out.subarray(0, k);
}

/** Quantile p of an ascending, non-empty array, interpolating linearly between order statistics (R's type 7). */
export function quantileOfSorted(sorted: Float64Array, p: number): number {
  const pos = Math.min(1, Math.max(0, p)) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return lerp(sorted[lo]!, sorted[hi]!, pos - lo);
}

/**
 * Puts the k-th smallest of a[lo..hi] at a[k], the smaller ones before it and the larger after (quickselect with a
 * three-way partition, so that runs of equal values — zero slopes between equal readings — cost one pass). Expected
 * O(n): the quantiles of 200,000 pairwise slopes without sorting them, which cost more than the rest of a verdict.
 */
function select(a: Float64Array, k: number, lo = 0, hi = a.length - 1): number {
  while (lo < hi) {
    // Median of three: sorted or reversed input (slopes come out in pair order) does not degrade to O(n²).
    const mid = lo + ((hi - lo) >> 1);
    const x = a[lo]!,
      y = a[mid]!,
      z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let lt = lo;
    let gt = hi;
    let i = lo;
    while (i <= gt) {
      const v = a[i]!;
      if (v < pivot) {
        a[i] = a[lt]!;
        a[lt++] = v;
        i++;
      } else if (v > pivot) {
        a[i] = a[gt]!;
        a[gt--] = v;
      } else i++;
    }
    if (k < lt) hi = lt - 1;
    else if (k > gt) lo = gt + 1;
    else return pivot;
  }
  return a[k]!;
}

/** Below this many values quickselect alone is as cheap as narrowing first. */
const BAND_MIN_LENGTH = 8192;
/** Values read, evenly spaced, to place the band: sorted, their order statistics say where the k-th lies. */
const BAND_PROBES = 4096;
/**
 * How far either side of the k-th's expected place among the probes the band reaches: 4 standard deviations of a
 * probe rank (√(probes · ¼) = 32 at most) for a random order, so the band misses (and the whole array is selected
 * as before) about once in 30,000; a band then holds ~6% of the values.
 */
const BAND_HALF_WIDTH = 128;

const probeSpace = float64Scratch();
const bandSpace = float64Scratch();

/**
 * The k-th smallest of `a` and, when `next`, the (k+1)-th, or undefined when the band missed them (or a value is
 * NaN): the same order statistics select gives (as select, −0 or +0 where both are among the values), found by one
 * pass that counts the values under a band around where the k-th is expected (placed by order statistics of evenly
 * spaced probes) and copies out those inside it, then quickselect on that copy alone. select on 200,000 Theil–Sen
 * slopes is a few partition passes over all of them; this is one pass of two comparisons. `a` is left as it was.
 */
function selectInBand(a: Float64Array, k: number, next: boolean): [number, number] | undefined {
  const n = a.length;
  const probes = probeSpace(BAND_PROBES);
  for (let i = 0; i < BAND_PROBES; i++) probes[i] = a[Math.floor(((i + 0.5) * n) / BAND_PROBES)]!;
  // The band's two edges are two order statistics of the probes: selected, not sorted for (a sort of 4,096 cost
  // more than the pass). After the first, the second is among the probes past it.
  const at = Math.floor((k * BAND_PROBES) / n);
  const lowRank = at - BAND_HALF_WIDTH;
  const highRank = at + BAND_HALF_WIDTH;
  const low = lowRank < 0 ? -Infinity : select(probes, lowRank);
  const high = highRank >= BAND_PROBES ? Infinity : select(probes, highRank, Math.max(0, lowRank + 1));
  const band = bandSpace(n);
  let below = 0;
  let inside = 0;
  let nan = 0;
  // Without branches: which side a slope falls is a coin toss, and a mispredicted branch per value cost more than
  // the pass (the value is written at `inside` always, and kept by moving `inside` on only when it is in the band).
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    band[inside] = v;
    const under = +(v < low);
    const over = +(v > high);
    below += under;
    nan += +Number.isNaN(v);
    inside += 1 - under - over;
  }
  // select's answer with a NaN among the values depends on where it sits: select gives it.
  if (nan > 0) return undefined;
  const last = next ? k + 1 : k;
  if (k < below || last >= below + inside) return undefined;
  const values = band.subarray(0, inside);
  const first = select(values, k - below);
  if (!next) return [first, first];
  // After select every value past k - below is at least the k-th: the (k+1)-th is the smallest of them.
  let second = Infinity;
  for (let i = k - below + 1; i < inside; i++) if (values[i]! < second) second = values[i]!;
  return [first, second];
}

/**
 * The same as quantileOfSorted on the sorted array, without sorting: may reorder `a` in place. After select(k) every
 * value past k is at least a[k], so the next order statistic is the smallest of them.
 */
export function quantileInPlace(a: Float64Array, p: number): number {
  const pos = Math.min(1, Math.max(0, p)) * (a.length - 1);
  const lo = Math.floor(pos);
  const interpolate = pos !== lo && lo + 1 < a.length;
  const banded = a.length >= BAND_MIN_LENGTH ? selectInBand(a, lo, interpolate) : undefined;
  if (banded) return interpolate ? lerp(banded[0], banded[1], pos - lo) : banded[0];
  const low = select(a, lo);
  if (!interpolate) return low;
  let next = Infinity;
  for (let i = lo + 1; i < a.length; i++) if (a[i]! < next) next = a[i]!;
  return lerp(low, next, pos - lo);
}

/** Quantile p (clamped to [0, 1]) of the finite values, interpolated (R's type 7); undefined if there are none. */
export function quantile(values: ArrayLike<number>, p: number): number | undefined {
  if (Number.isNaN(p)) return undefined;
  const finite = finiteCopy(values);
  return finite.length === 0 ? undefined : quantileInPlace(finite, p);
}

export function median(values: ArrayLike<number>): number | undefined {
  return quantile(values, 0.5);
}

/**
 * Median absolute deviation from the median, scaled by 1.4826 so that it estimates the standard deviation of
 * Gaussian noise. It is the noise scale used throughout because spikes do not move it until they are half the
 * samples.
 */
export function mad(values: ArrayLike<number>): number | undefined {
  const center = median(values);
  if (center === undefined) return undefined;
  const deviations: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v)) deviations.push(Math.abs(saturate((v as number) - center)));
  }
  return saturate(median(deviations)! * MAD_SCALE);
}
