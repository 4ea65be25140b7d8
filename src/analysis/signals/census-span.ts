/**
 * What a census field did over the analyzed window, measured between the census's walks.
 *
 * The agent walks the heap seldom — a walk is held to 0.5% of a core, so with torch loaded walks are 6–18 s apart —
 * and its last walk's numbers are repeated at every tick in between. A field's plain change over the window then
 * spans the walks inside it, not the window: two walks 12 s apart in a 24 s window saw half the window's growth, and
 * a tensor list leaking 1 MiB/s read as 28% of a 47 MiB growth where it was over half of it (agent.test on a loaded
 * machine, twice: the layer was put in Python objects or the native heap). So the field's change is taken between
 * the walk at or before the window's start and the last walk in it, and compared with the window's growth by rate.
 *
 * Walks are told apart by census.costMs, which each walk sets anew (it is the walk's own duration). Recordings
 * without it keep the plain change over the window.
 */
import type { AgentNumberField } from "../../agent/report-fields.js";
import { levelChange } from "../assess.js";
import { lowerBound } from "../stats/window.js";
import type { ProcessSeries } from "../../series/series.js";

export interface CensusChange {
  /** The change between the two walks (bytes, or items). */
  change: number;
  /** Seconds between the two walks; undefined when walks could not be told apart (the change is the window's). */
  seconds: number | undefined;
  /** The change at the same rate over the whole window: what is compared with the window's growth. */
  overWindow: number;
}

/**
 * The field's change between the walk at or before `from` (or the first walk after it, if none before) and the last
 * walk at or before `to`. Undefined when the field has no reading, or one walk only inside the window.
 */
export function censusChange(
  ps: ProcessSeries,
  field: AgentNumberField,
  from: number,
  to: number,
): CensusChange | undefined {
  const col = ps.agent[field];
  if (col === undefined || col.length === 0) return undefined;
  const walks = walkTimes(ps);
  if (walks === undefined) {
    const change = levelChange(col, from);
    return change === undefined ? undefined : { change, seconds: undefined, overWindow: change };
  }
  // Walks at which the field was reported (it appears only once, say, torch is imported).
  const seen = walks.filter((t) => t >= col.xs[0]! && t <= to);
  const before = seen.filter((t) => t <= from);
  const start = before.at(-1) ?? seen.find((t) => t > from);
  const end = seen.at(-1);
  if (start === undefined || end === undefined || !(end > start)) return undefined;
  const change = valueAt(col, end) - valueAt(col, start);
  const seconds = end - start;
  return { change, seconds, overWindow: to > from ? (change * (to - from)) / seconds : change };
}

/** The ticks at which a new walk's numbers first appear: where census.costMs changes. */
export function walkTimes(ps: ProcessSeries): number[] | undefined {
  const cost = ps.agent["census.costMs"];
  if (cost === undefined || cost.length === 0) return undefined;
  const times = [cost.xs[0]!];
  for (let i = 1; i < cost.length; i++) if (cost.ys[i] !== cost.ys[i - 1]) times.push(cost.xs[i]!);
  return times;
}

/** The column's reading at tick t (the last at or before it). */
function valueAt(col: { xs: readonly number[]; ys: readonly number[] }, t: number): number {
  const i = lowerBound(col.xs, t);
  return col.xs[i] === t ? col.ys[i]! : col.ys[Math.max(0, i - 1)]!;
}
