/**
 * The cgroup chart's countdown: the memory the kernel cannot reclaim (what the time to the limit counts), memory.high
 * where set, and the projection from the last reading to the limit at the trend, drawn past the end of the run.
 * Pure: a chart spec in, the same chart with these added.
 */
import type { SeriesSet } from "../../series/series.js";
import type { TimeToLimit, VerdictDocument } from "../../analysis/types.js";
import { lowerBound } from "../../analysis/stats/window.js";

/** The part of a chart this file adds to (chart-data.ts ChartSpec and ChartSeries; named here, not imported, so the
 *  two files do not import each other). */
interface Line {
  label: string;
  color: string;
  values?: (number | null)[];
  constant?: number;
  dash?: number[];
  width?: number;
}
interface Chart<L extends Line> {
  xs: number[];
  series: L[];
  xMax?: number;
}

/** The projection is drawn at most this many times the run's length past its end: a chart of 5 minutes with a limit
 *  2 days away would otherwise be a line squashed against its left edge. Past it, the line stops at the edge. */
export const MAX_PROJECTION_SHARE = 3;

const COUNTED_COLOR = "#b07aa1";
const PROJECTION_COLOR = "#d62728";

/** The countdown the cgroup's memory is under: the cgroup finding's, or the verdict's when it counts the cgroup. */
export function cgroupCountdown(doc: VerdictDocument): TimeToLimit | undefined {
  const all = [doc.verdict, ...doc.findings];
  return (
    all.find((f) => f.subject.type === "cgroup" && f.timeToLimit)?.timeToLimit ??
    all.find((f) => f.timeToLimit?.metric === "cgroup-unreclaimable")?.timeToLimit
  );
}

export function withLimitProjection<L extends Line, C extends Chart<L | Line>>(
  chart: C,
  set: SeriesSet,
  doc: VerdictDocument,
): C {
  const series: (L | Line)[] = [...chart.series];
  let xs = chart.xs;
  const high = set.cgroupHigh;
  if (typeof high === "number")
    series.push({ label: "memory.high", color: "#ff9da7", constant: high, dash: [2, 3], width: 2 });
  const t = cgroupCountdown(doc);
  const counted = set.cgroup["cgroup-unreclaimable"];
  if (!t || !counted || counted.length === 0) return { ...chart, series };
  // The counted memory on the chart's own times: the reading nearest each (they are the same ticks as the chart's).
  const countedValues: (number | null)[] = chart.xs.map((x) => {
    const i = lowerBound(counted.xs, x);
    const j = i > 0 && (i === counted.xs.length || x - counted.xs[i - 1]! < counted.xs[i]! - x) ? i - 1 : i;
    return Math.round(counted.ys[j]!);
  });
  // Past the end: where the estimate reaches the limit, or the chart's edge first.
  const horizon = Math.max(set.duration, 1) * (1 + MAX_PROJECTION_SHARE);
  const reach = t.at + t.seconds;
  const endX = Math.min(reach, horizon);
  const endY = t.level + t.bytesPerSecond * (endX - t.at);
  xs = [...xs];
  const pad = (s: L | Line): L | Line => (s.values ? { ...s, values: [...s.values] } : s);
  const padded = series.map(pad);
  const projection: (number | null)[] = xs.map(() => null);
  // The projection starts at the last reading's trend level: at the last x of the chart.
  projection[projection.length - 1] = Math.round(t.level);
  xs.push(Math.round(endX * 1000) / 1000);
  for (const s of padded) s.values?.push(null);
  countedValues.push(null);
  projection.push(Math.round(endY));
  padded.push({ label: `${t.counted} (what the limit counts)`, color: COUNTED_COLOR, values: countedValues, width: 2 });
  padded.push({
    label: `projection: ${reach > horizon ? "beyond the chart" : "reaches the limit"} in ~${Math.round(t.seconds)} s`,
    color: PROJECTION_COLOR,
    values: projection,
    dash: [3, 3],
    width: 2,
  });
  return { ...chart, xs, series: padded, xMax: Math.max(set.duration, endX) };
}
