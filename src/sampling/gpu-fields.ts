/**
 * The agent's GPU readings, as it sends them (memleak_readings.py `_cuda_stats`): per CUDA device the process's caching
 * allocator has used, seven numbers under "cuda<index><Field>" ("cuda0Allocated"), and, in a series, under
 * "gpu.cuda0Allocated" (series.ts flattens the report one level). The index is the device's as the process sees it
 * (after CUDA_VISIBLE_DEVICES).
 */

/** What each field is: torch.cuda.memory_stats' key for it. */
export const GPU_FIELDS = {
  /** Bytes in live tensors ("allocated_bytes.all.current"). */
  Allocated: "allocated_bytes.all.current",
  /**
   * The allocator's highest allocated since the start, or since the program's last reset_peak_memory_stats
   * ("allocated_bytes.all.peak"): a working set that came and went between two reports.
   */
  AllocatedPeak: "allocated_bytes.all.peak",
  /** Bytes the caching allocator holds from the driver ("reserved_bytes.all.current"). */
  Reserved: "reserved_bytes.all.current",
  /** Allocated, and blocks freed on one stream while another may still use them ("active_bytes.all.current"). */
  Active: "active_bytes.all.current",
  /** Free bytes inside segments that also hold live blocks: empty_cache() cannot give them back. */
  InactiveSplit: "inactive_split_bytes.all.current",
  /** Times a cudaMalloc failed and the allocator freed its cache to retry ("num_alloc_retries"). */
  AllocRetries: "num_alloc_retries",
  /** Times it ran out of memory ("num_ooms"). */
  Ooms: "num_ooms",
} as const;

export type GpuField = keyof typeof GPU_FIELDS;

/** The agent reads at most 16 devices (memleak_readings.py `_CUDA_MAX_DEVICES`), seven fields each. */
export const GPU_MAX_DEVICES = 16;
export const GPU_MAX_FIELDS = GPU_MAX_DEVICES * Object.keys(GPU_FIELDS).length;

/** The field's name in a report ("cuda0Allocated"). */
export const gpuFieldName = <F extends GpuField>(device: number, field: F) =>
  `cuda${device}${field}` as `cuda${number}${F}`;

/** The devices named by a report's fields ("cuda<index>Allocated"), in order. */
export const gpuDevicesOf = (fieldNames: Iterable<string>) => devicesMatching(fieldNames, /^cuda(\d+)Allocated$/);

/** The devices a process's agent columns name (from "gpu.cuda<index>Allocated"), in order. */
export const gpuDevices = (columnNames: Iterable<string>) => devicesMatching(columnNames, /^gpu\.cuda(\d+)Allocated$/);

function devicesMatching(names: Iterable<string>, pattern: RegExp): number[] {
  const out = new Set<number>();
  for (const name of names) {
    const m = pattern.exec(name);
    if (m) out.add(Number(m[1]));
  }
  return [...out].sort((a, b) => a - b);
}

/** The device as users name it. */
export const cudaLabel = (device: number) => `cuda:${device}`;

/**
 * The GPU series `--metrics` serves (export/gpu-gauges.ts), labelled by `device`, and what each is: an agent field,
 * or the driver's reading. `analyze --prometheus` reads them back into the process's samples (prometheus/series-samples.ts).
 */
export const GPU_METRICS: Readonly<Record<string, GpuField | "driver">> = {
  memleak_process_gpu_allocated_bytes: "Allocated",
  memleak_process_gpu_reserved_bytes: "Reserved",
  memleak_process_gpu_active_bytes: "Active",
  memleak_process_gpu_inactive_split_bytes: "InactiveSplit",
  memleak_process_gpu_used_bytes: "driver",
};

/** "cuda:3" → 3: a device label as cudaLabel writes it; undefined for anything else (a driver's GPU index). */
export function cudaIndex(label: string): number | undefined {
  const m = /^cuda:(\d{1,3})$/.exec(label);
  return m ? Number(m[1]) : undefined;
}
