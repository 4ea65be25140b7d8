/**
 * /proc/PID/smaps_rollup (kernel ≥ 4.14). Costs ~10 ms per GiB resident and takes the target's mmap lock, so the
 * sampler reads it under a CPU budget. Pss_Anon/Pss_File/Pss_Shmem appeared in 5.3 and Pss_Dirty in 6.0: on older
 * kernels they stay undefined.
 */
import { colonFields, kibField } from "./key-value.js";
import { fail, ok, type Parsed } from "./parsed.js";

export interface SmapsRollup {
  rss: number;
  pss: number;
  pssAnon: number | undefined;
  pssFile: number | undefined;
  pssShmem: number | undefined;
  pssDirty: number | undefined;
  sharedClean: number | undefined;
  sharedDirty: number | undefined;
  privateClean: number | undefined;
  privateDirty: number | undefined;
  privateHugetlb: number | undefined;
  anonymous: number | undefined;
  lazyFree: number | undefined;
  anonHugePages: number | undefined;
  swap: number | undefined;
  swapPss: number | undefined;
  /** Unique set size: pages mapped by this process alone (psutil's definition). Undefined if a part is missing. */
  uss: number | undefined;
}

const SOURCE = "/proc/PID/smaps_rollup";

export function parseSmapsRollup(text: string): Parsed<SmapsRollup> {
  const f = colonFields(text);
  const rss = kibField(f, "Rss");
  const pss = kibField(f, "Pss");
  if (rss === undefined || pss === undefined) return fail(SOURCE, "no Rss/Pss lines: not a smaps_rollup file, or empty");
  const privateClean = kibField(f, "Private_Clean");
  const privateDirty = kibField(f, "Private_Dirty");
  const privateHugetlb = kibField(f, "Private_Hugetlb");
  const uss =
    privateClean !== undefined && privateDirty !== undefined
      ? privateClean + privateDirty + (privateHugetlb ?? 0)
      : undefined;
  return ok({
    rss,
    pss,
    pssAnon: kibField(f, "Pss_Anon"),
    pssFile: kibField(f, "Pss_File"),
    pssShmem: kibField(f, "Pss_Shmem"),
    pssDirty: kibField(f, "Pss_Dirty"),
    sharedClean: kibField(f, "Shared_Clean"),
    sharedDirty: kibField(f, "Shared_Dirty"),
    privateClean,
    privateDirty,
    privateHugetlb,
    anonymous: kibField(f, "Anonymous"),
    lazyFree: kibField(f, "LazyFree"),
    anonHugePages: kibField(f, "AnonHugePages"),
    swap: kibField(f, "Swap"),
    swapPss: kibField(f, "SwapPss"),
    uss,
  });
}
