/**
 * Mapped files: resident pages of files a process maps (a model loaded with mmap, np.memmap, a memory-mapped
 * dataset, its libraries). They are page cache — a copy of the file the kernel drops under pressure and reads back
 * on the next access — so their growth is reported beside a finding, never as a leak (the rules judge anon).
 */
import { formatBytes } from "../../base/units.js";
import type { MappedFile } from "../../probes/smaps-files.js";
import { safeText } from "../../base/safe-text.js";
import { levelChange, minGrowth } from "../assess.js";
import { FILES_GROWTH_BYTES } from "../../sampling/mapped-files.js";
import type { ProcessSeries, SeriesSet } from "../../series/series.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase } from "../phrases.js";

/**
 * Files under this share of the largest one are left out of the list: a 400 MB model beside 5 MB of libpython
 * names the model. An eighth keeps a second file of the same kind (two shards of one model) in.
 */
export const FILE_LIST_SHARE = 1 / 8;

/** The files mapped, largest first, as "path (size resident)"; those far smaller than the largest left out. */
export function mappedFilesText(from: Iterable<ProcessSeries>, top = 3): string | undefined {
  const byPath = new Map<string, MappedFile>();
  for (const ps of from) {
    for (const f of ps.files.values()) if ((byPath.get(f.path)?.rss ?? -1) < f.rss) byPath.set(f.path, f);
  }
  const files = [...byPath.values()].sort((a, b) => b.rss - a.rss);
  const largest = files[0]?.rss ?? 0;
  const shown = files.filter((f) => f.rss >= FILE_LIST_SHARE * largest).slice(0, top);
  if (shown.length === 0) return undefined;
  return shown
    .map((f) => `${safeText(f.path)}${f.deleted ? " (deleted)" : ""} (${formatBytes(f.rss)} resident)`)
    .join(", ");
}

/** The processes' mapped files, over the whole set. */
export const setMappedFilesText = (set: SeriesSet) => mappedFilesText(set.processes.values());

/**
 * A process whose resident file pages grew by a reportable amount says so, with the files: its RSS (what `top` and
 * most dashboards show) grew by that much, and the finding must explain why that is not what it judged. At least
 * 16 MiB (what makes the sampler look at the files): importing PyTorch pages in ~6 MiB of its libraries, no news.
 */
export function noteMappedFiles(f: JudgedFinding, ps: ProcessSeries, from: number): void {
  const file = ps.metrics.file;
  // After warm-up, as the finding itself: the libraries an import pages in (23 MiB for PyTorch) are start-up.
  const growth = levelChange(file, Math.max(from, ps.firstSeen));
  if (growth === undefined || !file || growth < Math.max(FILES_GROWTH_BYTES, minGrowth(file.first() ?? 0))) return;
  const files = mappedFilesText([ps]);
  f.evidence.fileBackedGrowth = Math.round(growth);
  if (files) f.evidence.mappedFiles = files;
  if (f.kind === "stable" || f.kind === "plateau")
    f.summary = phrase("mapped.in-summary", { of: f.summary, growth, files });
  else f.caveats.push(phrase("mapped.file-pages", { growth, files }));
}
