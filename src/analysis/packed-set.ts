/**
 * A SeriesSet as plain data that can cross to a worker thread (structured clone keeps Maps and typed arrays, not
 * classes): every Column becomes its points in two Float64Arrays, whose buffers are transferred, not copied.
 */
import { Column } from "./column.js";
import type { ProcessSeries, SeriesSet } from "./series.js";

interface PackedColumn {
  xs: Float64Array;
  ys: Float64Array;
  peak: number | undefined;
}

type Packed<T> = { [K in keyof T]: T[K] extends Column ? PackedColumn : T[K] extends Partial<Record<string, Column>> ? Record<string, PackedColumn> : T[K] };

export type PackedProcess = Omit<Packed<ProcessSeries>, "metrics" | "agent"> & { metrics: Record<string, PackedColumn>; agent: Record<string, PackedColumn> };
export type PackedSet = Omit<Packed<SeriesSet>, "processes" | "tree" | "cgroup"> & {
  processes: Map<string, PackedProcess>;
  tree: Record<string, PackedColumn>;
  cgroup: Record<string, PackedColumn>;
};

/** The set as plain data, and the buffers to transfer with it. */
export function packSet(set: SeriesSet): { packed: PackedSet; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const col = (c: Column): PackedColumn => {
    const xs = Float64Array.from(c.xs);
    const ys = Float64Array.from(c.ys);
    transfer.push(xs.buffer, ys.buffer);
    return { xs, ys, peak: c.peak };
  };
  const each = (r: Partial<Record<string, Column>>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, col(v!)]));
  const processes = new Map<string, PackedProcess>();
  for (const [k, ps] of set.processes) processes.set(k, { ...ps, metrics: each(ps.metrics), shared: col(ps.shared), agent: each(ps.agent) });
  const packed: PackedSet = { ...set, processes, tree: each(set.tree), treeCount: col(set.treeCount), cgroup: each(set.cgroup), cgroupOomKills: col(set.cgroupOomKills) };
  return { packed, transfer };
}

export function unpackSet(p: PackedSet): SeriesSet {
  const col = (c: PackedColumn) => Column.of(Array.from(c.xs), Array.from(c.ys), c.peak);
  const each = <T>(r: Record<string, PackedColumn>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, col(v)])) as T;
  const processes = new Map<string, ProcessSeries>();
  for (const [k, ps] of p.processes) processes.set(k, { ...ps, metrics: each(ps.metrics), shared: col(ps.shared), agent: each(ps.agent) });
  return { ...p, processes, tree: each(p.tree), treeCount: col(p.treeCount), cgroup: each(p.cgroup), cgroupOomKills: col(p.cgroupOomKills) };
}
