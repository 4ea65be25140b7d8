/**
 * What holds a leak (Finding.holder), as lines of text: the terminal's "what holds it" section and the step summary
 * share them, so both name the chain, its hops and the search's cost the same way. The names come from the watched
 * program (its variables, its dict keys): callers make them safe for where they go.
 */
import type { Finding } from "../analysis/types.js";
import { formatBytes } from "../base/units.js";
import { isGraphHolder } from "../agent/agent-results.js";

type Holder = NonNullable<Finding["holder"]>;

/** "__main__.service._history (list of Item, 1,500 items)", or why the search found none. */
export function holderHeadline(x: Holder): string {
  // A graph one tensor keeps growing is counted in nodes (memleak_graphs.py), up to the agent's bound.
  const unit = isGraphHolder(x) ? "nodes" : "items";
  const what = `${x.container}, ${x.lengthCapped ? "at least " : ""}${Math.round(x.length).toLocaleString("en-US")} ${unit}${onDeviceText(x)}`;
  return x.found ? `${x.path} (${what})` : `not found (${what}): ${x.why ?? "no root within the search's bounds"}`;
}

/** ", 4.00 MiB each on cuda:0": what each item keeps on a GPU, where the agent measured it; else nothing. */
export function onDeviceText(x: Holder): string {
  return x.device !== undefined && x.deviceBytesPerItem !== undefined
    ? `, ${formatBytes(x.deviceBytesPerItem)} each on ${x.device}`
    : "";
}

/** "module global __main__.service → attribute _history". */
export function holderHops(x: Holder): string | undefined {
  return x.hops?.length ? x.hops.map(hopText).join(" → ") : undefined;
}

/**
 * One hop as words: its kind, then its name. A running frame's name says its thread already (the agent's
 * 'thread "MainThread": train() local history'), which after its kind read "thread frame thread "MainThread": …":
 * it is said as the local it is.
 */
function hopText(hop: NonNullable<Holder["hops"]>[number]): string {
  const frame = hop.kind === "thread frame" ? /^thread "(.*)": (.+\(\)) local (.+)$/.exec(hop.name) : null;
  if (frame) return `local ${frame[3]} of ${frame[2]}, running in thread "${frame[1]}"`;
  return `${hop.kind} ${hop.name}`;
}

/**
 * "assigned at /srv/app/views.py:9": where the root's module assigns it, when the agent found that line. A chain past
 * its root names the root it speaks of ("app.state.service assigned at …"): under "module global __main__.BUS →
 * attribute _listeners", the line of `BUS = EventBus()` read as where `_listeners` was assigned (a helper's trial).
 */
export function holderWhere(x: Holder): string | undefined {
  if (!x.found || !x.where) return undefined;
  const root = x.hops !== undefined && x.hops.length > 1 ? `${x.hops[0]!.name} ` : "";
  return `${root}assigned at ${x.where.file}:${x.where.line}`;
}

/** watch --trace-python: what the window cost the program, from the finding's evidence; undefined without one. */
export function traceWindowCost(f: Finding): string | undefined {
  const e = f.evidence;
  if (typeof e.traceWindowSeconds !== "number") return undefined;
  const pct = (x: unknown) => `${Math.round(Number(x) * 1000) / 10}%`;
  return `tracemalloc ran ${e.traceWindowSeconds} s in the program, then was stopped and its traces freed: the program used ${pct(e.traceCpuShare)} of a core meanwhile (${pct(e.traceCpuShareBefore)} just before), tracemalloc itself ${formatBytes(Number(e.tracemallocBytes))}`;
}

/**
 * A GPU leak's sites (sitesFrom "cuda-history"): how long the allocator's history was recorded, and what that cost the
 * program's steps, from its allocation requests a second before the window and during it; undefined for other sites.
 */
export function gpuHistoryCost(f: Finding): string | undefined {
  const e = f.evidence;
  if (f.sitesFrom !== "cuda-history" || typeof e.gpuHistorySeconds !== "number") return undefined;
  const before = e.gpuRequestsPerSecondBefore;
  const during = e.gpuRequestsPerSecondDuring;
  const rate = (x: number) => (x >= 100 ? Math.round(x).toLocaleString("en-US") : String(Number(x.toPrecision(2))));
  const cost =
    typeof before === "number" && typeof during === "number" && before > 0
      ? `: the program made ${rate(during)} allocation requests a second meanwhile, ${rate(before)} just before (its steps at ${(during / before).toFixed(2)}× their rate)`
      : "";
  return `PyTorch's caching allocator recorded the stack of each block allocated for ${e.gpuHistorySeconds} s, then stopped; the lines are those whose blocks were still alive at the end (${Math.round(Number(e.gpuHistoryBlocks)).toLocaleString("en-US")} blocks, ${formatBytes(Number(e.gpuHistoryBytes))})${cost}`;
}

/** The heading of a finding's allocation sites, by where they come from. */
export function sitesHeading(f: Finding): string {
  if (f.sitesFrom === "cuda-history")
    return "CUDA allocation sites still held at the end of the allocator's history window";
  return traceWindowCost(f)
    ? "allocation sites that grew during the trace window (tracemalloc)"
    : "allocation sites that grew since warm-up (tracemalloc)";
}

/** What the search cost the program: its wall time and the longest it held the GIL at once. */
export function holderCost(x: Holder): string {
  const s = x.search;
  // No pass at all: named by the census's walk near the globals, on a heap too big to search (memleak_census.py
  // _named_near).
  if (x.found && s.calls === 0 && s.levels === 0)
    return "named by the census's walk near the program's globals: no search over a heap of over 4 million objects";
  return `searched ${s.levels} level${s.levels === 1 ? "" : "s"} (${s.calls} pass${s.calls === 1 ? "" : "es"} over the heap) in ${s.ms} ms; longest pause ${s.longestPauseMs} ms`;
}
