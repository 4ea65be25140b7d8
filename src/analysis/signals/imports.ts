/**
 * Growth while the program is still importing is start-up, however late it comes: a process attached to mid-flight
 * may be loading a framework (issue 27: `memleak watch` attached 5 s into a PyTorch loop saw anon 42 → 101 MiB at
 * 4.6 MiB/s while its module count went 134 → 750, and called it a leak at 21 s). The agent reports the module count
 * (`py.modules`, len(sys.modules)); when a burst of imports falls in the window a trend is judged on, the trend is
 * judged again from the last import on: still growing after it, it is growth; otherwise the window says what it
 * waits for (too little since the imports) or what the memory did after them.
 */
import { assess, levels, type Assessment } from "../assess.js";
import type { Column } from "../../series/column.js";
import type { ProcessSeries } from "../../series/series.js";
import { lowerBound, sliceByTime } from "../stats/window.js";

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
  if (!modules || modules.length < 2) return undefined;
  const i0 = Math.max(1, lowerBound(modules.xs, from));
  for (let i = modules.length - 1; i >= i0; i--) {
    if (!(modules.ys[i]! > modules.ys[i - 1]!)) continue;
    const before = Math.max(i0 - 1, lowerBound(modules.xs, modules.xs[i]! - IMPORT_BURST_SECONDS) - 1, 0);
    const loaded = modules.ys[i]! - modules.ys[before]!;
    if (loaded >= IMPORT_BURST_MODULES) return { at: modules.xs[i]!, loaded, modules: modules.ys[i]! };
  }
  return undefined;
}

/**
 * A growing assessment of `col`, judged again from the last burst of imports in its window (lastImportBurst): kept
 * when the memory still grows after it, else replaced by what it did since — `insufficient` with the imports as its
 * reason when too little came after them.
 */
export function withoutImports(a: Assessment, ps: ProcessSeries, col: Column): Assessment {
  if (a.shape !== "growing") return a;
  const burst = lastImportBurst(ps.agent["py.modules"], a.from);
  if (!burst) return a;
  const after = assess(col, burst.at, ps.firstSeen);
  if (after.shape === "growing") return a;
  if (after.shape !== "insufficient") {
    // A long window whose growth went on well past the imports keeps its trend: cut to what follows them, a slow
    // leak under swings has too little left to show in (gc-backlog.test.ts: imports for 125 s of 300).
    const during = levels(sliceByTime({ xs: col.xs, ys: col.ys }, a.from, burst.at + 1e-9).ys).end - a.start;
    return during >= IMPORTS_EXPLAIN_SHARE * a.growth ? after : a;
  }
  const loaded = `${Math.round(burst.loaded)} modules loaded in the window (${Math.round(burst.modules)} now), the last at ${burst.at.toFixed(0)} s`;
  return {
    ...after,
    reason: `still importing: ${loaded}; memory grown while importing is start-up — ${after.reason ?? "too little since"}`,
  };
}
