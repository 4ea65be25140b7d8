/**
 * /proc/meminfo: the machine's memory, for the time to the limit of a subject no cgroup limits (its limit is then
 * what the machine still has). MemAvailable (kernel ≥ 3.14) is the kernel's own estimate of what can be allocated
 * without swapping: free memory plus the page cache and reclaimable slab it would give up (mm/page_alloc.c
 * si_mem_available) — so a machine full of cache is not "out of memory". A kernel without it leaves it undefined,
 * never MemFree in its place (that would count the cache as used and bring the limit closer than it is).
 */
import { colonFields, kibField } from "./key-value.js";
import { fail, ok, type Parsed } from "./parsed.js";

export interface MachineMemory {
  memTotal: number;
  memAvailable: number | undefined;
}

const WANTED = new Set(["MemTotal", "MemAvailable"]);

export function parseMeminfo(text: string): Parsed<MachineMemory> {
  const fields = colonFields(text, WANTED);
  const memTotal = kibField(fields, "MemTotal");
  if (memTotal === undefined) return fail("/proc/meminfo", "no MemTotal line");
  return ok({ memTotal, memAvailable: kibField(fields, "MemAvailable") });
}
