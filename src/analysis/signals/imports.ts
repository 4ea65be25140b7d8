/**
 * Growth while the program is still importing is start-up, however late it comes: a process attached to mid-flight
 * may be loading a framework (issue 27: `memleak watch` attached 5 s into a PyTorch loop saw anon 42 → 101 MiB at
 * 4.6 MiB/s while its module count went 134 → 750, and called it a leak at 21 s). The agent reports the module count
 * (`py.modules`, len(sys.modules)); when a burst of imports falls in the window a trend is judged on, the trend is
 * judged again from the last import on: still growing after it, it is growth; otherwise the window says what it
 * waits for (too little since the imports) or what the memory did after them. Where the agent sent no module count,
 * the import is read off /proc: the shared libraries' file pages paging in (lastLibraryLoad).
 */
import { assess, levelChange, levels, type Assessment } from "../assess.js";
import type { Column } from "../../series/column.js";
import type { ProcessSeries } from "../../series/series.js";
import { lowerBound, sliceByTime } from "../stats/window.js";
import { formatBytes } from "../../base/units.js";
import { mappedFilesText } from "./mapped.js";

/**
 * Modules loaded within the window before it counts as a burst of imports: one lazily imported module (json.decoder
 * at a first request) is no start-up, and must not cut a long window a leak was found on; importing a framework loads
 * hundreds (torch: ~600, numpy ~120, pandas ~500). 20: the smallest of those stacks is far over it.
 */
export const IMPORT_BURST_MODULES = 20;
/**
 * A long window's growth is the imports' when at least this share of it came before the last import: then what
 * follows judges it. Three quarters: most of it, so that growth that goes on at the same pace after a long import
 * (half before, half after) keeps its trend. Boundary tests: rules/imports.test.ts.
 */
export const IMPORTS_EXPLAIN_SHARE = 0.75;

/**
 * Seconds over which IMPORT_BURST_MODULES must load to count as a burst: importing a framework loads its hundreds in
 * seconds, even on a loaded machine (torch: ~600 in 8 s here under load 10), while a program's later lazy imports —
 * the agent's own holder search loading importlib.util, a first request importing json — come a few at a time.
 */
export const IMPORT_BURST_SECONDS = 10;

/**
 * When the last burst of imports in the window ended: the last reading at or after `from` by which the module count
 * had risen by IMPORT_BURST_MODULES over the IMPORT_BURST_SECONDS before it. A few modules imported later do not move
 * it (bytes_leak_torch under load: torch's imports, then the holder search's, 10 s later, cut the window to nothing).
 */
export function lastImportBurst(
  modules: Column | undefined,
  from: number,
): { at: number; loaded: number; modules: number } | undefined {
  const rise = lastRise(modules, from, IMPORT_BURST_MODULES, IMPORT_BURST_SECONDS);
  return rise && { at: rise.at, loaded: rise.rose, modules: rise.level };
}

/** The last reading at or after `from` by which `col` had risen by `by` or more over the `seconds` before it. */
function lastRise(
  col: Column | undefined,
  from: number,
  by: number,
  seconds: number,
): { at: number; rose: number; level: number } | undefined {
  if (!col || col.length < 2) return undefined;
  const i0 = Math.max(1, lowerBound(col.xs, from));
  for (let i = col.length - 1; i >= i0; i--) {
    if (!(col.ys[i]! > col.ys[i - 1]!)) continue;
    const before = Math.max(i0 - 1, lowerBound(col.xs, col.xs[i]! - seconds) - 1, 0);
    const rose = col.ys[i]! - col.ys[before]!;
    if (rose >= by) return { at: col.xs[i]!, rose, level: col.ys[i]! };
  }
  return undefined;
}

/**
 * Without the agent's module count — a child whose import held the interpreter until it exited (the agent never got to
 * report), or --no-agent — a framework's import shows in /proc as its shared libraries paging in: resident file pages
 * rising by LIBRARY_BURST_BYTES within IMPORT_BURST_SECONDS, the files mapped mostly shared objects. A child importing
 * PyTorch beside two busy loops grew anon 7 → 113 MiB over the 11 s of its import, file pages +113 MiB
 * (libtorch_cpu.so…), then exited: a leak "with no sign of levelling off", where on a quiet machine the same import
 * takes 2 s and is start-up (issue 47: CI's run.test torch_child_exits beside a busy loop).
 */
export const LIBRARY_BURST_BYTES = 16 * 2 ** 20;
/** Shared objects are most of what the process maps, by resident pages: a data file read page by page is no import. */
export const LIBRARY_SHARE = 0.5;
const SHARED_OBJECT = /\.so(\.[\w.]+)?$/;

/** The last burst of library loading in the window, when the process maps mostly shared objects; else undefined. */
export function lastLibraryLoad(ps: ProcessSeries, from: number): { at: number; rose: number } | undefined {
  let all = 0;
  let libraries = 0;
  for (const f of ps.files.values()) {
    all += f.rss;
    if (SHARED_OBJECT.test(f.path)) libraries += f.rss;
  }
  if (!(all > 0) || libraries < LIBRARY_SHARE * all) return undefined;
  const rise = lastRise(ps.metrics.file, from, LIBRARY_BURST_BYTES, IMPORT_BURST_SECONDS);
  return rise && { at: rise.at, rose: rise.rose };
}

/**
 * A growing assessment of `col`, judged again from the last burst of imports in its window (lastImportBurst): kept
 * when the memory still grows after it, else replaced by what it did since — `insufficient` with the imports as its
 * reason when too little came after them.
 */
export function withoutImports(a: Assessment, ps: ProcessSeries, col: Column): Assessment {
  if (a.shape !== "growing") return a;
  const modules = ps.agent["py.modules"];
  const burst =
    modules && modules.length > 0
      ? moduleBurst(lastImportBurst(modules, a.from))
      : libraryBurst(libraryLoadExplaining(ps, a), ps);
  if (!burst) return a;
  const after = assess(col, burst.at, ps.firstSeen);
  if (after.shape === "growing") return a;
  // A long window whose growth went on well past the imports keeps its trend: cut to what follows them, a slow leak
  // under swings has too little left to show in (gc-backlog.test.ts: imports for 125 s of 300); and a leak that grew
  // for minutes before a late burst (a library paged back in, a plugin loaded) is not made "still importing" by it.
  const during = levels(sliceByTime({ xs: col.xs, ys: col.ys }, a.from, burst.at + 1e-9).ys).end - a.start;
  if (during < IMPORTS_EXPLAIN_SHARE * a.growth) return a;
  if (after.shape !== "insufficient") return after;
  return {
    ...after,
    reason: `${burst.what}; memory grown while importing is start-up — ${after.reason ?? "too little since"}`,
    importing: true,
  };
}

/**
 * A library load that can account for the window's growth: the file pages it paged in, over the window, are at least
 * IMPORTS_EXPLAIN_SHARE of what anon grew (an import of PyTorch: +113 MiB of file pages beside +106 MiB of anon). A
 * leak that grew for minutes before a late load (libraries paged back in under memory pressure, a plugin) keeps its
 * trend: its anon grew far more than the files did.
 */
function libraryLoadExplaining(ps: ProcessSeries, a: Assessment): { at: number; rose: number } | undefined {
  const load = lastLibraryLoad(ps, a.from);
  const files = levelChange(ps.metrics.file, a.from);
  return load && files !== undefined && files >= IMPORTS_EXPLAIN_SHARE * a.growth ? load : undefined;
}

/** What the window's last import was, in words, and when it ended. */
interface Burst {
  at: number;
  what: string;
}

function moduleBurst(b: { at: number; loaded: number; modules: number } | undefined): Burst | undefined {
  return (
    b && {
      at: b.at,
      what: `still importing: ${Math.round(b.loaded)} modules loaded in the window (${Math.round(b.modules)} now), the last at ${b.at.toFixed(0)} s`,
    }
  );
}

function libraryBurst(load: { at: number; rose: number } | undefined, ps: ProcessSeries): Burst | undefined {
  if (!load) return undefined;
  const files = mappedFilesText([ps]);
  return {
    at: load.at,
    what: `still loading its libraries: resident file pages up ${formatBytes(load.rose)} in the ${IMPORT_BURST_SECONDS} s before ${load.at.toFixed(0)} s${files ? ` (${files})` : ""}`,
  };
}
