/**
 * What one tick of sampling produces, and what a recording stores (one Sample per JSON line).
 * All sizes are bytes. A field that could not be read is absent, never 0.
 */
import type { MemoryBreakdown } from "../probes/memory-stat.js";
import type { MappedFile } from "../probes/smaps-files.js";

export interface ProcessSample {
  pid: number;
  ppid: number;
  /** Clock ticks since boot: (pid, starttime) names one process even if the pid is reused. */
  starttime: number;
  comm: string;
  /** From status, every tick. */
  rss?: number;
  anon?: number;
  file?: number;
  shmem?: number;
  swap?: number;
  hwm?: number;
  threads?: number;
  /** CPU ticks (utime + stime) so far. */
  cpuTicks?: number;
  /** From smaps_rollup, only on the ticks where the budget allowed a fresh read (not carried forward). */
  pss?: number;
  uss?: number;
  pssAnon?: number;
  sharedClean?: number;
  sharedDirty?: number;
  /**
   * From smaps, only on the ticks where this process's file-backed resident memory had grown (sampling/mapped-files.ts): the
   * files it has resident, largest first.
   */
  files?: MappedFile[];
  /**
   * The process's GPU memory by the driver's GPU index ("0"), from nvidia-smi (probes/nvidia-smi.ts), only on the
   * ticks where it was read (not carried forward): its CUDA context, its framework's cache and its live arrays.
   */
  gpu?: Record<string, number>;
}

export interface CgroupSample {
  usage?: number;
  /** usage − inactive_file, floored at 0: what Kubernetes and `docker stats` show. */
  workingSet?: number;
  /** null = no limit. */
  limit?: number | null;
  peak?: number;
  oomKills?: number;
  /** v1: memory.kmem.usage_in_bytes; v2: memory.stat kernel. */
  kernel?: number;
  stat?: Partial<MemoryBreakdown>;
  /** v2 memory.high, where reclaim and throttling start below memory.max; null = not set ("max"). v1 has none. */
  high?: number | null;
}

export interface Sample {
  /** Unix epoch, milliseconds. */
  t: number;
  processes: ProcessSample[];
  cgroup?: CgroupSample;
  /** Reported by the in-process agent, keyed by pid (see src/agent). */
  agent?: Record<string, unknown>;
  /** /proc/meminfo: the limit of memory no cgroup limits (time-to-limit). Absent in recordings made before it. */
  machine?: { memTotal: number; memAvailable?: number };
}
