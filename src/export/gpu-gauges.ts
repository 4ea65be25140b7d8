/**
 * The GPU figures `--metrics` serves, one series per process and device: the caching allocator's numbers from
 * memleak's agent (torch.cuda.memory_stats, `device="cuda:0"` as the process numbers it), and the driver's count of
 * each process's memory per GPU (nvidia-smi, `device` the driver's GPU index).
 */
import type { ProcessSample } from "../sample.js";
import { cudaLabel, GPU_FIELDS, gpuDevicesOf, type GpuField } from "../gpu-fields.js";
import type { AgentReport } from "./metric-table.js";

export interface GpuGauge {
  name: string;
  help: string;
  /** The agent's field, or the driver's reading. */
  from: GpuField | "driver";
}

export const GPU_GAUGES: readonly GpuGauge[] = [
  { name: "memleak_process_gpu_allocated_bytes", help: `CUDA memory in live tensors, per device (torch.cuda.memory_stats ${GPU_FIELDS.Allocated}; memleak's agent)`, from: "Allocated" },
  { name: "memleak_process_gpu_reserved_bytes", help: `CUDA memory held by PyTorch's caching allocator, per device (${GPU_FIELDS.Reserved}; memleak's agent)`, from: "Reserved" },
  { name: "memleak_process_gpu_active_bytes", help: `CUDA memory in active blocks, per device (${GPU_FIELDS.Active}; memleak's agent)`, from: "Active" },
  { name: "memleak_process_gpu_inactive_split_bytes", help: `Free CUDA memory inside split segments, per device (${GPU_FIELDS.InactiveSplit}; memleak's agent)`, from: "InactiveSplit" },
  { name: "memleak_process_gpu_used_bytes", help: "The process's GPU memory as the driver counts it, per GPU index (nvidia-smi used_memory)", from: "driver" },
];

/** Each gauge's readings for one process this tick: the device label and the value. */
export function gpuReadings(p: ProcessSample, agent: AgentReport | undefined, g: GpuGauge): { device: string; value: number }[] {
  if (g.from === "driver") return Object.entries(p.gpu ?? {}).map(([device, value]) => ({ device, value }));
  const gpu = agent?.gpu as Record<string, unknown> | undefined;
  if (!gpu) return [];
  return gpuDevicesOf(Object.keys(gpu)).flatMap((d) => {
    const v = gpu[`cuda${d}${g.from}`];
    return typeof v === "number" && Number.isFinite(v) ? [{ device: cudaLabel(d), value: v }] : [];
  });
}
