/**
 * The HTML report's GPU charts: one per process and device that used a GPU (series/gpu-series.ts), with the
 * caching allocator's allocated, reserved and inactive-split bytes where the agent read them, or the driver's count
 * of the process's memory where it did not.
 */
import type { Column } from "../../series/column.js";
import { gpuSeries, type GpuSeries } from "../../series/gpu-series.js";
import type { SeriesSet } from "../../series/series.js";
import type { Finding, VerdictDocument } from "../../analysis/types.js";
import { gpuFieldName } from "../../sampling/gpu-fields.js";
import { gpuLabel } from "../vocabulary.js";

/** chart-data.ts's ChartSpec, as this module fills it (declared here, so that it need not import that module back). */
interface GpuChart<S> {
  xs: number[];
  series: S[];
  id: string;
  group: "gpu";
  title: string;
  detail: string;
  finding?: { kind: Finding["kind"]; metric: Finding["metric"]; isVerdict: boolean };
}

/** What each chart draws: the agent's fields (by sampling/gpu-fields.ts name), or the driver's reading. */
const TORCH_LINES = [
  { field: "Reserved", label: "reserved (caching allocator)", color: "#f28e2b" },
  { field: "Allocated", label: "allocated (live tensors)", color: "#e15759" },
  // What allocated reached between readings (the allocator's own count): a large pass that came and went
  { field: "AllocatedPeak", label: "allocated peak", color: "#76b7b2" },
  { field: "InactiveSplit", label: "inactive split", color: "#b07aa1" },
] as const;

function findingFor(doc: VerdictDocument, g: GpuSeries): Finding | undefined {
  return doc.findings.find(
    (f) =>
      f.subject.type === "gpu" &&
      f.subject.pid === g.ps.pid &&
      f.subject.starttime === g.ps.starttime &&
      f.subject.device === g.device,
  );
}

/**
 * @param lineSeries the chart module's own alignment of columns into drawable series (chart-data.ts), passed in so
 *        that this module does not import it back
 */
export function gpuCharts<S>(
  doc: VerdictDocument,
  set: SeriesSet,
  lineSeries: (lines: { label: string; color: string; col: Column | undefined; width?: number }[]) => {
    xs: number[];
    series: S[];
  },
): GpuChart<S>[] {
  return gpuSeries(set).map((g) => {
    const lines =
      g.index === undefined
        ? [{ label: "used (driver)", color: "#e15759", col: g.col, width: 2 }]
        : TORCH_LINES.map((l) => ({
            label: l.label,
            color: l.color,
            col: g.ps.agent[`gpu.${gpuFieldName(g.index!, l.field)}`],
            ...(l.field === "Allocated" && { width: 2 }),
          }));
    const f = findingFor(doc, g);
    const chart: GpuChart<S> = {
      ...lineSeries(lines),
      id: `gpu-${g.ps.pid}-${g.ps.starttime}-${g.device.replace(/\W/g, "")}`,
      group: "gpu",
      title: gpuLabel(g.ps.pid, g.device, g.source),
      detail: g.ps.comm,
      ...(f && {
        finding: {
          kind: f.kind,
          metric: f.metric,
          isVerdict: f === doc.verdict || (f.kind === doc.verdict.kind && f.summary === doc.verdict.summary),
        },
      }),
    };
    return chart;
  });
}
