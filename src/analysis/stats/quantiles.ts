/**
 * Order statistics: quantiles, median and MAD. Non-finite entries are ignored; an empty input gives undefined.
 */
import { lerp, saturate } from "./saturating.js";

/** Scale that makes the median absolute deviation estimate a Gaussian standard deviation (1 / Φ⁻¹(3/4)). */
export const MAD_SCALE = 1.4826;


function sortedFinite(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v)) out[k++] = v as number;
  }
  return out.subarray(0, k).sort();
}

/** Quantile p of an ascending, non-empty array, interpolating linearly between order statistics (R's type 7). */
export function quantileOfSorted(sorted: Float64Array, p: number): number {
  const pos = Math.min(1, Math.max(0, p)) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return lerp(sorted[lo]!, sorted[hi]!, pos - lo);
}

/** Quantile p (clamped to [0, 1]) of the finite values, interpolated (R's type 7); undefined if there are none. */
export function quantile(values: ArrayLike<number>, p: number): number | undefined {
  if (Number.isNaN(p)) return undefined;
  const sorted = sortedFinite(values);
  return sorted.length === 0 ? undefined : quantileOfSorted(sorted, p);
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
