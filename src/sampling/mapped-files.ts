/**
 * Which files a process maps, read when its file-backed resident memory (RssFile, from status every tick) has grown:
 * a model loaded with mmap, np.memmap, a memory-mapped dataset. That growth is page cache the kernel can drop, never a
 * leak, and the report should name the file. /proc/PID/smaps lists every mapping, so it costs more than smaps_rollup
 * (~1 ms for a plain Python process, ~10 ms with PyTorch's libraries mapped): it is read only after real growth, from
 * the same CPU budget as the rollups.
 */
import type { SmapsBudget } from "./smaps-budget.js";
import type { HostFs } from "../system/host-fs.js";
import { parseMappedFiles, type MappedFile } from "../probes/smaps-files.js";
import { readCharged } from "../system/read-process.js";

/**
 * Read again once RssFile has grown by this much since the last read (or since the process was first seen): 16 MiB,
 * or a quarter of what was resident then, whichever is larger. Libraries paged in at start-up stay under it; a
 * 400 MB file read progressively is read about a dozen times (each step a quarter larger), not every tick.
 */
export const FILES_GROWTH_BYTES = 16 * 2 ** 20;
export const FILES_GROWTH_SHARE = 0.25;

export class MappedFilesReader {
  /** RssFile of each process at its last smaps read, or when it was first seen. */
  private readonly base = new Map<string, number>();

  constructor(
    private readonly fs: HostFs,
    private readonly budget: SmapsBudget,
  ) {}

  /** The process's mapped files when RssFile grew enough since the last look and the budget allows; else undefined. */
  read(key: string, pid: number, rssFile: number | undefined): MappedFile[] | undefined {
    if (rssFile === undefined) return undefined;
    const base = this.base.get(key);
    if (base === undefined) {
      this.base.set(key, rssFile);
      return undefined;
    }
    if (rssFile - base < Math.max(FILES_GROWTH_BYTES, FILES_GROWTH_SHARE * base) || !this.budget.canSpend())
      return undefined;
    const { r, costMs } = readCharged(this.fs, `/proc/${pid}/smaps`, (bytes) =>
      parseMappedFiles(bytes.toString("utf8")),
    );
    this.budget.spend(costMs ?? 0);
    this.base.set(key, rssFile);
    if (!r.ok) return undefined;
    const parsed = r.value;
    return parsed.ok && parsed.value.length > 0 ? parsed.value : undefined;
  }

  retain(keys: Set<string>): void {
    for (const k of this.base.keys()) if (!keys.has(k)) this.base.delete(k);
  }
}
