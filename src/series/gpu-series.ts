/**
 * Every GPU series of a set, one per process and device: the agent's allocated bytes (torch.cuda.memory_stats, the
 * device as the process numbers it) where the agent read them, else the driver's count of the process's memory on
 * each GPU (nvidia-smi). What the GPU rules, the gates, the charts and the exported metrics all walk.
 */
import type { Column } from "./column.js";
import type { ProcessSeries, SeriesSet } from "./series.js";
import type { MetricName } from "./metric-name.js";
import { cudaLabel, gpuDevices, gpuFieldName } from "../sampling/gpu-fields.js";

export interface GpuSeries {
  ps: ProcessSeries;
  /** "cuda:0" (torch) or the driver's GPU index ("0"). */
  device: string;
  source: "torch" | "driver";
  metric: Extract<MetricName, "gpu-allocated" | "gpu-used">;
  col: Column;
  /** torch only: the device's index, to find its other columns (sampling/gpu-fields.ts `gpuFieldName`). */
  index?: number;
}

/** The GPU series of one process: the agent's where it has any (they say more), else the driver's. */
export function processGpuSeries(ps: ProcessSeries): GpuSeries[] {
  const torch = gpuDevices(Object.keys(ps.agent)).flatMap((index): GpuSeries[] => {
    const col = ps.agent[`gpu.${gpuFieldName(index, "Allocated")}`];
    return col && col.length > 0
      ? [{ ps, device: cudaLabel(index), source: "torch", metric: "gpu-allocated", col, index }]
      : [];
  });
  if (torch.length > 0) return torch;
  return Object.entries(ps.gpuUsed)
    .filter(([, col]) => col.length > 0)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([device, col]) => ({ ps, device, source: "driver", metric: "gpu-used", col }));
}

export const gpuSeries = (set: SeriesSet): GpuSeries[] => [...set.processes.values()].flatMap(processGpuSeries);
