/**
 * /proc/PID/smaps_rollup (kernel ≥ 4.14). Costs ~10 ms per GiB resident and takes the target's mmap lock, so the
 * sampler reads it under a CPU budget. Pss_Anon/Pss_File/Pss_Shmem appeared in 5.3 and Pss_Dirty in 6.0: on older
 * kernels they stay undefined. Parsed from the read buffer's bytes (colon-bytes.ts), like status.
 */
import { KeyTable, scanColonLines } from "./colon-bytes.js";
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

/** The lines read, in this order (uss is worked out from the Private_* ones). */
const enum Key {
  Rss,
  Pss,
  Pss_Anon,
  Pss_File,
  Pss_Shmem,
  Pss_Dirty,
  Shared_Clean,
  Shared_Dirty,
  Private_Clean,
  Private_Dirty,
  Private_Hugetlb,
  Anonymous,
  LazyFree,
  AnonHugePages,
  Swap,
  SwapPss,
}
const KEYS = new KeyTable([
  "Rss",
  "Pss",
  "Pss_Anon",
  "Pss_File",
  "Pss_Shmem",
  "Pss_Dirty",
  "Shared_Clean",
  "Shared_Dirty",
  "Private_Clean",
  "Private_Dirty",
  "Private_Hugetlb",
  "Anonymous",
  "LazyFree",
  "AnonHugePages",
  "Swap",
  "SwapPss",
]);

/** Parses a smaps_rollup file's bytes. */
export function parseSmapsRollupBytes(bytes: Uint8Array): Parsed<SmapsRollup> {
  // To the end, as the text parser did: a later line of a key wins.
  scanColonLines(bytes, KEYS, false);
  const k = (key: Key) => KEYS.kib(bytes, key);
  const rss = k(Key.Rss);
  const pss = k(Key.Pss);
  if (rss === undefined || pss === undefined)
    return fail(SOURCE, "no Rss/Pss lines: not a smaps_rollup file, or empty");
  const privateClean = k(Key.Private_Clean);
  const privateDirty = k(Key.Private_Dirty);
  const privateHugetlb = k(Key.Private_Hugetlb);
  const uss =
    privateClean !== undefined && privateDirty !== undefined
      ? privateClean + privateDirty + (privateHugetlb ?? 0)
      : undefined;
  return ok({
    rss,
    pss,
    pssAnon: k(Key.Pss_Anon),
    pssFile: k(Key.Pss_File),
    pssShmem: k(Key.Pss_Shmem),
    pssDirty: k(Key.Pss_Dirty),
    sharedClean: k(Key.Shared_Clean),
    sharedDirty: k(Key.Shared_Dirty),
    privateClean,
    privateDirty,
    privateHugetlb,
    anonymous: k(Key.Anonymous),
    lazyFree: k(Key.LazyFree),
    anonHugePages: k(Key.AnonHugePages),
    swap: k(Key.Swap),
    swapPss: k(Key.SwapPss),
    uss,
  });
}

export function parseSmapsRollup(text: string): Parsed<SmapsRollup> {
  return parseSmapsRollupBytes(Buffer.from(text, "utf8"));
}
