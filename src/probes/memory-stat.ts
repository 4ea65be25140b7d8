/**
 * memory.stat of a memory cgroup, v1 or v2, normalised to one breakdown in bytes.
 *
 * v2 (Documentation/admin-guide/cgroup-v2.rst): anon, file (page cache INCLUDING shmem/tmpfs), kernel (≥ 5.18),
 *   kernel_stack, pagetables, percpu, sock, shmem, file_mapped, file_dirty, file_writeback, slab_reclaimable,
 *   slab_unreclaimable, slab, active_/inactive_{anon,file}.
 * v1 (Documentation/admin-guide/cgroup-v1/memory.rst): rss (anon, without shmem), cache (page cache INCLUDING shmem),
 *   mapped_file, shmem, dirty, writeback, swap, active_/inactive_{anon,file}, and total_* = the same summed over the
 *   hierarchy. usage_in_bytes is hierarchical, so the total_* values are the ones that add up to it. v1 has no
 *   kernel memory here: it lives in memory.kmem.usage_in_bytes (see CgroupReading.kernel).
 */
import { spaceFields } from "./key-value.js";
import { fail, ok, type Parsed } from "./parsed.js";

export interface MemoryBreakdown {
  /** Anonymous memory (heap, stacks) — v2 anon, v1 total_rss. */
  anon: number | undefined;
  /** Page cache including shmem (the kernel's own definition in both versions). */
  file: number | undefined;
  activeFile: number | undefined;
  inactiveFile: number | undefined;
  activeAnon: number | undefined;
  inactiveAnon: number | undefined;
  /** tmpfs, /dev/shm, shared anonymous: counted in `file` but NOT reclaimable like cache. */
  shmem: number | undefined;
  fileMapped: number | undefined;
  fileDirty: number | undefined;
  fileWriteback: number | undefined;
  /** All kernel memory charged to the cgroup (v2 `kernel`, or the sum of its parts on v2 < 5.18). */
  kernel: number | undefined;
  kernelStack: number | undefined;
  pagetables: number | undefined;
  slab: number | undefined;
  slabReclaimable: number | undefined;
  slabUnreclaimable: number | undefined;
  sock: number | undefined;
  swap: number | undefined;
}

export interface MemoryStat {
  version: 1 | 2;
  breakdown: MemoryBreakdown;
  /** Every field as the kernel printed it, for the recording and for fields not normalised here. */
  raw: Record<string, number>;
}

const SOURCE = "memory.stat";

function sumIfAll(...values: (number | undefined)[]): number | undefined {
  let total = 0;
  for (const v of values) {
    if (v === undefined) return undefined;
    total += v;
  }
  return total;
}

function v2Breakdown(g: (k: string) => number | undefined): MemoryBreakdown {
  const slabReclaimable = g("slab_reclaimable");
  const slabUnreclaimable = g("slab_unreclaimable");
  const slab = g("slab") ?? sumIfAll(slabReclaimable, slabUnreclaimable);
  const kernelStack = g("kernel_stack");
  const pagetables = g("pagetables");
  return {
    anon: g("anon"),
    file: g("file"),
    activeFile: g("active_file"),
    inactiveFile: g("inactive_file"),
    activeAnon: g("active_anon"),
    inactiveAnon: g("inactive_anon"),
    shmem: g("shmem"),
    fileMapped: g("file_mapped"),
    fileDirty: g("file_dirty"),
    fileWriteback: g("file_writeback"),
    // Before 5.18 there is no `kernel` line; its main parts are these (percpu and sock may be missing too).
    kernel: g("kernel") ?? sumIfAll(kernelStack, pagetables, slab),
    kernelStack,
    pagetables,
    slab,
    slabReclaimable,
    slabUnreclaimable,
    sock: g("sock"),
    swap: undefined, // v2 reports swap in memory.swap.current, not memory.stat
  };
}

function v1Breakdown(g: (k: string) => number | undefined): MemoryBreakdown {
  // Prefer hierarchical totals: usage_in_bytes counts descendants too.
  const h = (k: string) => g(`total_${k}`) ?? g(k);
  return {
    anon: h("rss"),
    file: h("cache"),
    activeFile: h("active_file"),
    inactiveFile: h("inactive_file"),
    activeAnon: h("active_anon"),
    inactiveAnon: h("inactive_anon"),
    shmem: h("shmem"),
    fileMapped: h("mapped_file"),
    fileDirty: h("dirty"),
    fileWriteback: h("writeback"),
    kernel: undefined,
    kernelStack: undefined,
    pagetables: undefined,
    slab: undefined,
    slabReclaimable: undefined,
    slabUnreclaimable: undefined,
    sock: undefined,
    swap: h("swap"),
  };
}

/** Which version wrote this file: v1 has `cache`/`rss`, v2 has `anon`/`file`. */
export function detectMemoryStatVersion(fields: Map<string, number>): 1 | 2 | undefined {
  if (fields.has("anon") && fields.has("file")) return 2;
  if (fields.has("cache") || fields.has("rss") || fields.has("total_cache")) return 1;
  return undefined;
}

export function parseMemoryStat(text: string, version?: 1 | 2): Parsed<MemoryStat> {
  const fields = spaceFields(text);
  const detected = detectMemoryStatVersion(fields);
  const v = version ?? detected;
  if (v === undefined) return fail(SOURCE, "neither v1 (cache, rss) nor v2 (anon, file) fields found");
  const g = (k: string) => fields.get(k);
  return ok({
    version: v,
    breakdown: v === 2 ? v2Breakdown(g) : v1Breakdown(g),
    raw: Object.fromEntries(fields),
  });
}
