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
 * The values of `a` from a little under its `first`-th smallest to a little over its `last`-th, and how many are
 * below them, or undefined when the band missed (or a value is NaN): one pass counts the values under a band around
 * where those ranks are expected (placed by order statistics of evenly spaced probes) and copies out those inside it.
 * Quickselect on that copy then gives the same order statistics select gives on all of `a` (as select, −0 or +0
 * where both are among the values). select on 200,000 Theil–Sen slopes is a few partition passes over all of them;
 * this is one pass of two comparisons. `a` is left as it was. Exported for its tests: the band's width is the
 * selection's cost, which the answers cannot show. `values` is a scratch view, overwritten by the next call.
 */
export function bandOf(
  a: Float64Array,
  first: number,
  last: number,
): { values: Float64Array; below: number } | undefined {
  const n = a.length;
  // A NaN rank (a NaN p) is select's to answer, as it always was.
  if (!(first >= 0 && last < n)) return undefined;
  const probes = probeSpace(BAND_PROBES);
  for (let i = 0; i < BAND_PROBES; i++) probes[i] = a[Math.floor(((i + 0.5) * n) / BAND_PROBES)]!;
  // The band's two edges are two order statistics of the probes: selected, not sorted for (a sort of 4,096 cost
  // more than the pass). After the first, the second is among the probes past it.
  const lowRank = Math.floor((first * BAND_PROBES) / n) - BAND_HALF_WIDTH;
  const highRank = Math.floor((last * BAND_PROBES) / n) + BAND_HALF_WIDTH;
  const low = lowRank < 0 ? -Infinity : select(probes, lowRank);
  const high = highRank >= BAND_PROBES ? Infinity : select(probes, highRank, Math.max(0, lowRank + 1));
  const band = bandSpace(n);
  let below = 0;
  let inside = 0;
  let poison = 0;
  // Without branches: which side a slope falls is a coin toss, and a mispredicted branch per value cost more than
  // the pass (the value is written at `inside` always, and kept by moving `inside` on only when it is in the band).
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    band[inside] = v;
    const under = +(v < low);
    const over = +(v > high);
    below += under;
    // v − v is 0 for a finite value, NaN for a NaN or ±Infinity: one subtraction a value where counting the NaNs
    // turned a comparison into a number (a third of the pass, §i‴).
    poison += v - v;
    inside += 1 - under - over;
  }
  // select's answer with a NaN among the values depends on where it sits: select gives it. An infinity goes to select
  // too, which answers it as it always has (no slope is infinite: they saturate at ±MAX).
  if (Number.isNaN(poison) || first < below || last >= below + inside) return undefined;
  return { values: band.subarray(0, inside), below };
}

/** Where quantile p of n values lies: the order statistic below it, and whether the next one is interpolated to. */
interface Place {
  readonly pos: number;
  readonly lo: number;
  readonly interpolate: boolean;
}

function placeOf(n: number, p: number): Place {
  const pos = Math.min(1, Math.max(0, p)) * (n - 1);
  const lo = Math.floor(pos);
  return { pos, lo, interpolate: pos !== lo && lo + 1 < n };
}

/**
 * Quantile `place` of `values`, found by select (which reorders them); `offset` values below them are not there, and
 * select starts at `from`, where no value before it is larger than any from it on (selectedInTurn).
 */
function selected(values: Float64Array, offset: number, place: Place, from = 0): number {
  const k = place.lo - offset;
  const low = select(values, k, from);
  if (!place.interpolate) return low;
  // After select every value past k is at least the k-th: the next order statistic is the smallest of them.
  let next = Infinity;
  for (let i = k + 1; i < values.length; i++) if (values[i]! < next) next = values[i]!;
  return lerp(low, next, place.pos - place.lo);
}

/**
 * The same as quantileOfSorted on the sorted array, without sorting: may reorder `a` in place. After select(k) every
 * value past k is at least a[k], so the next order statistic is the smallest of them.
 */
export function quantileInPlace(a: Float64Array, p: number): number {
  const place = placeOf(a.length, p);
  const band = a.length >= BAND_MIN_LENGTH ? bandOf(a, place.lo, place.lo + (place.interpolate ? 1 : 0)) : undefined;
  return band ? selected(band.values, band.below, place) : selected(a, 0, place);
}

/**
 * selected() at each of `places`, the same numbers, with less partitioning: after select(k) no value before k is
 * larger and none after it smaller, so the places are taken in ascending order and each select works only on the
 * values from the previous place's k on (the k-th smallest of all is then the k-th of those). Theil–Sen's slope and
 * Sen's two bounds were three selections over the whole band, or over all 4,950 slopes of a 100-point fit (§i‴).
 * Not for values with a NaN, which compares neither way and so is no "larger" or "smaller".
 */
function selectedInTurn(values: Float64Array, offset: number, places: Place[]): number[] {
  const order = places.map((_, i) => i).sort((i, j) => places[i]!.lo - places[j]!.lo);
  const out: number[] = new Array<number>(places.length);
  let from = 0;
  for (const i of order) {
    out[i] = selected(values, offset, places[i]!, from);
    from = places[i]!.lo - offset;
  }
  return out;
}

function hasNaN(values: Float64Array): boolean {
  for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i]!)) return true;
  return false;
}

/**
 * quantileInPlace at each of `ps`, the same numbers, from one band around them all where it holds them: Theil–Sen's
 * slope and Sen's interval are three quantiles of the same slopes, a few percent of them apart, and three passes over
 * 44,850 slopes (300 points) cost more than the selections (BENCHMARKS §i″). The selections in turn (selectedInTurn).
 */
export function quantilesInPlace(a: Float64Array, ps: readonly number[]): number[] {
  const places = ps.map((p) => placeOf(a.length, p));
  if (places.length === 0) return [];
  if (a.length < BAND_MIN_LENGTH)
    // A NaN among them, or a NaN p: one selection after another, as quantileInPlace has always answered.
    return hasNaN(a) || places.some((x) => !(x.lo >= 0))
      ? ps.map((p) => quantileInPlace(a, p))
      : selectedInTurn(a, 0, places);
  const first = Math.min(...places.map((x) => x.lo));
  const last = Math.max(...places.map((x) => x.lo + (x.interpolate ? 1 : 0)));
  const band = bandOf(a, first, last);
  // bandOf gives no band where there is a NaN, among the values or the ranks.
  if (!band) return ps.map((p) => quantileInPlace(a, p));
  return selectedInTurn(band.values, band.below, places);
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
