/**
 * A SeriesSet as plain data that can cross to a worker thread (structured clone keeps Maps and typed arrays, not
 * classes): every Column becomes its points in two Float64Arrays, whose buffers are transferred, not copied.
 */
import { Column } from "./column.js";
import { mapColumns, type SeriesSet, type SetOf } from "./series.js";

interface PackedColumn {
  xs: Float64Array;
  ys: Float64Array;
  peak: number | undefined;
}

export type PackedSet = SetOf<PackedColumn>;

/** The set as plain data, and the buffers to transfer with it. */
export function packSet(set: SeriesSet): { packed: PackedSet; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const packed = mapColumns(set, (c: Column): PackedColumn => {
    const xs = Float64Array.from(c.xs);
    const ys = Float64Array.from(c.ys);
    transfer.push(xs.buffer, ys.buffer);
    return { xs, ys, peak: c.peak };
  });
  return { packed, transfer };
}

export function unpackSet(p: PackedSet): SeriesSet {
  return mapColumns(p, (c) => Column.of(Array.from(c.xs), Array.from(c.ys), c.peak));
}
