/**
 * /proc/PID/smaps, per mapping: which files a process has resident, and how much of each. Only read when a process's
 * file-backed resident memory (RssFile) grew (sampling/sampler.ts): it costs what smaps_rollup costs plus the text of every
 * mapping (~3,000 lines for a Python process, ~20,000 with PyTorch loaded), so it is paid from the smaps budget.
 *
 * A mapping's header is `start-end perms offset dev inode [pathname]`; the pathname may contain spaces and ends in
 * " (deleted)" when the file was unlinked while mapped. Anonymous mappings ([heap], [stack], none) are left out:
 * they are what the anon metrics already count; so are tmpfs, memfd and SysV segments (shmem, which the kernel cannot
 * drop), and the copied-on-write pages of private file mappings (their `Anonymous:` pages).
 */
import { fail, ok, type Parsed } from "./parsed.js";

export interface MappedFile {
  path: string;
  /** Resident page-cache bytes of all this file's mappings in the process (Rss − Anonymous). */
  rss: number;
  /** The file was unlinked while mapped (a temporary file, or a model replaced on disk). */
  deleted?: boolean;
}

const SOURCE = "/proc/PID/smaps";
const HEADER = /^[0-9a-f]+-[0-9a-f]+ \S{4} [0-9a-f]+ \S+ \d+ *(.*)$/;
const RSS = /^Rss:\s+(\d+) kB$/;
/** A private file mapping's pages written to are anonymous copies: not page cache. */
const ANONYMOUS = /^Anonymous:\s+(\d+) kB$/;
/** tmpfs (/dev/shm), memfd and SysV segments are shmem: not page cache the kernel can drop. */
const SHMEM_PATH = /^\/(dev\/|memfd:|SYSV)/;
const DELETED = " (deleted)";

/** Resident size per mapped file, largest first; at most `top` of them (files with nothing resident left out). */
export function parseMappedFiles(text: string, top = 5): Parsed<MappedFile[]> {
  const byPath = new Map<string, MappedFile>();
  let current: MappedFile | undefined;
  let headers = 0;
  for (const line of text.split("\n")) {
    const header = HEADER.exec(line);
    if (header) {
      headers++;
      const name = header[1]!.trimEnd();
      if (!name.startsWith("/") || SHMEM_PATH.test(name)) {
        current = undefined;
        continue;
      }
      const deleted = name.endsWith(DELETED);
      const path = deleted ? name.slice(0, -DELETED.length) : name;
      current = byPath.get(path);
      if (!current) {
        current = { path, rss: 0, ...(deleted && { deleted }) };
        byPath.set(path, current);
      }
      continue;
    }
    if (!current) continue;
    const rss = RSS.exec(line);
    if (rss) current.rss += Number(rss[1]) * 1024;
    const anon = ANONYMOUS.exec(line);
    if (anon) current.rss -= Number(anon[1]) * 1024;
  }
  if (headers === 0 && text.trim() !== "") return fail(SOURCE, "no mapping headers: not a smaps file");
  const files = [...byPath.values()].filter((f) => f.rss > 0).sort((a, b) => b.rss - a.rss);
  return ok(files.slice(0, top));
}
