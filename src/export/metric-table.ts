/**
 * What `--metrics` serves, one row per gauge: its name, its help text, and where its value is in a Sample. Names follow
 * Prometheus's conventions (base units, `_bytes`), and are the names `analyze --prometheus` knows
 * (src/prometheus/series-samples.ts KNOWN_METRICS), so a scraped watch can be judged again from Prometheus.
 */
import type { CgroupSample, ProcessSample } from "../system/sample.js";
import { fieldPath, type AgentNumberField } from "../agent/report-fields.js";

export interface ProcessGauge {
  name: string;
  help: string;
  value: (p: ProcessSample, agent: AgentReport | undefined) => number | undefined;
}

export interface CgroupGauge {
  name: string;
  help: string;
  value: (c: CgroupSample) => number | undefined;
}

/** The in-process agent's report for one pid, as the sample carries it (src/agent/python/memleak_lifecycle.py _report). */
export type AgentReport = Record<string, unknown>;

/** A declared numeric field of the report (agent/report-fields.ts), where the agent sent it as a finite number. */
const field = (agent: AgentReport | undefined, name: AgentNumberField): number | undefined => {
  const [group, key] = fieldPath(name);
  const v = (group === undefined ? agent : (agent?.[group] as Record<string, unknown> | undefined))?.[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
};

export const PROCESS_GAUGES: readonly ProcessGauge[] = [
  { name: "memleak_process_rss_bytes", help: "Resident memory (VmRSS, /proc/PID/status)", value: (p) => p.rss },
  {
    name: "memleak_process_pss_bytes",
    help: "Proportional set size (smaps_rollup Pss), as last read under the smaps budget",
    value: (p) => p.pss,
  },
  {
    name: "memleak_process_uss_bytes",
    help: "Unique set size (smaps_rollup Private_Clean + Private_Dirty), as last read",
    value: (p) => p.uss,
  },
  { name: "memleak_process_anon_bytes", help: "Resident anonymous memory (RssAnon)", value: (p) => p.anon },
  { name: "memleak_process_file_bytes", help: "Resident file-backed memory (RssFile)", value: (p) => p.file },
  { name: "memleak_process_shmem_bytes", help: "Resident shared memory (RssShmem)", value: (p) => p.shmem },
  { name: "memleak_process_swap_bytes", help: "Swapped-out memory (VmSwap)", value: (p) => p.swap },
  {
    name: "memleak_process_malloc_in_use_bytes",
    help: "glibc malloc bytes in use (mallinfo2 uordblks + hblkhd; memleak's agent)",
    value: (_, a) => field(a, "malloc.inUse"),
  },
  {
    name: "memleak_process_malloc_free_bytes",
    help: "glibc malloc free bytes held in the heap (mallinfo2 fordblks; memleak's agent)",
    value: (_, a) => field(a, "malloc.free"),
  },
  {
    name: "memleak_process_malloc_arenas",
    help: "glibc malloc arenas (memleak's agent)",
    value: (_, a) => field(a, "malloc.arenas"),
  },
  {
    name: "memleak_process_python_blocks",
    help: "CPython allocated blocks (sys.getallocatedblocks; memleak's agent)",
    value: (_, a) => field(a, "py.allocatedBlocks"),
  },
  {
    name: "memleak_process_torch_cuda_allocated_bytes",
    help: "torch.cuda.memory_allocated (memleak's agent)",
    value: (_, a) => field(a, "torch.cudaAllocated"),
  },
  {
    name: "memleak_process_torch_cuda_reserved_bytes",
    help: "torch.cuda.memory_reserved (memleak's agent)",
    value: (_, a) => field(a, "torch.cudaReserved"),
  },
];

export const CGROUP_GAUGES: readonly CgroupGauge[] = [
  {
    name: "memleak_cgroup_usage_bytes",
    help: "Memory cgroup usage (memory.current / memory.usage_in_bytes)",
    value: (c) => c.usage,
  },
  {
    name: "memleak_cgroup_working_set_bytes",
    help: "Memory cgroup working set: usage - inactive_file, as Kubernetes and docker stats show it",
    value: (c) => c.workingSet,
  },
  {
    name: "memleak_cgroup_anon_bytes",
    help: "Anonymous memory charged to the cgroup (memory.stat anon / rss)",
    value: (c) => c.stat?.anon,
  },
  {
    name: "memleak_cgroup_file_bytes",
    help: "Page cache charged to the cgroup (memory.stat file / cache)",
    value: (c) => c.stat?.file,
  },
  {
    name: "memleak_cgroup_shmem_bytes",
    help: "Shared memory charged to the cgroup (memory.stat shmem)",
    value: (c) => c.stat?.shmem,
  },
  {
    name: "memleak_cgroup_kernel_bytes",
    help: "Kernel memory charged to the cgroup (memory.stat kernel / memory.kmem.usage_in_bytes)",
    value: (c) => c.kernel,
  },
  {
    name: "memleak_cgroup_limit_bytes",
    help: "Memory cgroup limit (absent when unlimited)",
    value: (c) => (typeof c.limit === "number" ? c.limit : undefined),
  },
];
