/**
 * The GPU figures `--metrics` serves, one series per process and device: the caching allocator's numbers from
 * memleak's agent (torch.cuda.memory_stats, `device="cuda:0"` as the process numbers it), and the driver's count of
 * each process's memory per GPU (nvidia-smi, `device` the driver's GPU index).
 */
import type { ProcessSample } from "../system/sample.js";
import { cudaLabel, GPU_FIELDS, GPU_METRICS, gpuDevicesOf, type GpuField } from "../sampling/gpu-fields.js";
import type { AgentReport } from "./metric-table.js";

export interface GpuGauge {
  name: string;
  help: string;
  /** The agent's field, or the driver's reading. */
  from: GpuField | "driver";
}

const HELP: Record<GpuField | "driver", string> = {
  Allocated: `CUDA memory in live tensors, per device (torch.cuda.memory_stats ${GPU_FIELDS.Allocated}; memleak's agent)`,
  Reserved: `CUDA memory held by PyTorch's caching allocator, per device (${GPU_FIELDS.Reserved}; memleak's agent)`,
  Active: `CUDA memory in active blocks, per device (${GPU_FIELDS.Active}; memleak's agent)`,
  InactiveSplit: `Free CUDA memory inside split segments, per device (${GPU_FIELDS.InactiveSplit}; memleak's agent)`,
  AllocatedPeak: "",
  AllocRetries: "",
  Ooms: "",
  driver: "The process's GPU memory as the driver counts it, per GPU index (nvidia-smi used_memory)",
};

export const GPU_GAUGES: readonly GpuGauge[] = Object.entries(GPU_METRICS).map(([name, from]) => ({
  name,
  help: HELP[from],
  from,
}));

/** Each gauge's readings for one process this tick: the device label and the value. */
export function gpuReadings(
  p: ProcessSample,
  agent: AgentReport | undefined,
  g: GpuGauge,
): { device: string; value: number }[] {
  if (g.from === "driver") return Object.entries(p.gpu ?? {}).map(([device, value]) => ({ device, value }));
  const gpu = agent?.gpu as Record<string, unknown> | undefined;
  if (!gpu) return [];
  return gpuDevicesOf(Object.keys(gpu)).flatMap((d) => {
    const v = gpu[`cuda${d}${g.from}`];
    return typeof v === "number" && Number.isFinite(v) ? [{ device: cudaLabel(d), value: v }] : [];
  });
}
