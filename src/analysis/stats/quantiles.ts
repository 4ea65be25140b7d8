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

/**
 * The same as quantileOfSorted on the sorted array, without sorting: reorders `a` in place. After select(k) every
 * value past k is at least a[k], so the next order statistic is the smallest of them.
 */
export function quantileInPlace(a: Float64Array, p: number): number {
  const pos = Math.min(1, Math.max(0, p)) * (a.length - 1);
  const lo = Math.floor(pos);
  const low = select(a, lo);
  if (pos === lo || lo + 1 >= a.length) return low;
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
