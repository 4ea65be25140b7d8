/**
 * run --trace-python's sites while the run goes on: the agent sends the lines whose allocations grew since warm-up
 * every 10 s or more (memleak_agent.py `_trace_start`), and the live view and the progress line show the ones that
 * grew most, across the processes, as they are known.
 */
import { basename } from "node:path";
import type { TraceResult } from "../../agent/agent-results.js";
import { safeText } from "../../base/safe-text.js";
import { formatBytes } from "../../base/units.js";

export interface LiveSite {
  pid: number;
  file: string;
  line: number;
  sizeDiff: number;
  countDiff: number;
}

/** The `n` sites that grew most since warm-up, over every process's latest trace. */
export function topSites(traces: Iterable<TraceResult>, n = 3): LiveSite[] {
  const all: LiveSite[] = [];
  for (const t of traces)
    for (const s of t.sites)
      all.push({ pid: t.pid, file: s.file, line: s.line, sizeDiff: s.sizeDiff, countDiff: s.countDiff });
  return all.sort((a, b) => b.sizeDiff - a.sizeDiff).slice(0, n);
}

/** "leaky.py:12 +3.1 MiB (+520) · app.py:40 +1.0 MiB (+8)": the file's name only, the line wide enough for a few. */
export function sitesText(sites: readonly LiveSite[]): string {
  return sites
    .map(
      (s) =>
        `${safeText(basename(s.file))}:${s.line} +${formatBytes(s.sizeDiff)} (${s.countDiff >= 0 ? "+" : ""}${s.countDiff})`,
    )
    .join(" · ");
}
