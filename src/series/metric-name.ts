/** The numbers memleak keeps a column of, per subject: what a finding's `metric` names and the JSON's series keys. */
export type MetricName =
  // per process, and summed over the tree
  | "rss"
  | "anon"
  /** File-backed resident memory (RssFile): mapped files and libraries, page cache the kernel can drop. */
  | "file"
  | "pss"
  /** The tree's Σ Pss_Anon: anonymous memory with each shared page counted once (what a leak grows). */
  | "pss-anon"
  | "uss"
  | "swap"
  // the cgroup
  | "cgroup"
  | "working-set"
  | "cgroup-anon"
  | "cgroup-file"
  | "cgroup-active-file"
  | "cgroup-inactive-file"
  | "cgroup-shmem"
  | "cgroup-dirty"
  | "cgroup-kernel"
  /**
   * The live heap the agent measures: malloc's in-use bytes + Python's small objects (pymalloc blocks × 64 B). What
   * a leak hidden in memory malloc already holds grows while resident memory stays flat (signals/live-heap.ts).
   */
  | "heap-live"
  // one process on one GPU (signals/gpu.ts)
  /** Bytes in live CUDA tensors (torch.cuda.memory_stats allocated_bytes). */
  | "gpu-allocated"
  /** Bytes PyTorch's caching allocator holds from the driver (reserved_bytes). */
  | "gpu-reserved"
  /** The process's GPU memory as the driver counts it (nvidia-smi used_memory: its CUDA context included). */
  | "gpu-used"
  /** The driver's figure minus the caching allocator's reserve: the CUDA context, libraries' workspaces (series/gpu-outside.ts). */
  | "gpu-outside"
  /** anon + shmem + unreclaimable kernel memory (series.ts `unreclaimable`): what the time to the limit counts. */
  | "cgroup-unreclaimable";
