/**
 * Which layer a leak grows in, from what the agent measured growing over the same window as the leak — never from
 * what the program imported. In this order, the first that holds:
 *   - Python objects, seen by tracemalloc (with --trace-python): its sites hold at least half of the growth;
 *   - PyTorch autograd graphs: at least GRAPH_TENSORS_MIN more tensors keep a grad_fn (the activations a graph saves
 *     are tensors too, and malloc'd: the graphs kept alive are what to fix);
 *   - PyTorch CPU tensors: the storage of live CPU tensors (the agent's census) grew by LAYER_MIN_SHARE of the growth;
 *   - Python objects held by a container: the bytes the fastest-growing list, dict or set gained (items × the size
 *     of a few sampled items: bytes, str, arrays…), LAYER_MIN_SHARE of the growth;
 *   - small Python objects (pymalloc arenas, which malloc does not see: count × 512 bounds them from above) or the
 *     native heap (malloc in use), whichever grew more, if at least LAYER_MIN_SHARE of the growth.
 * The share is reported, because what malloc keeps free (fragmentation) grows with a leak too and is in no layer.
 * Under jemalloc or tcmalloc, glibc's counters see nothing: that is said, and no malloc-based claim is made.
 */
import type { AgentNumberField } from "../../agent/report-fields.js";
import { levelChange, levels, minGrowth, type Assessment } from "../assess.js";
import type { Context } from "../context.js";
import { phrase, type Phrase } from "../phrases.js";
import { censusChange, walkTimes, type CensusChange } from "./census-span.js";
import { lowerBound, sliceByTime } from "../stats/window.js";
import { lastImportBurst } from "./imports.js";
import type { ProcessSeries } from "../../series/series.js";

/**
 * A layer is named when it explains at least a quarter of the anonymous-memory growth: the rest of a leak's growth
 * is often memory malloc keeps free around what is live (torch_losses_leak: malloc in use grew by 120 of 138 MiB,
 * dict_cache_leak's small objects by far less than their arenas), so demanding most of it would name no layer on
 * real leaks, while under a quarter the layer is a bystander. The same share decides, in process.ts, that a
 * process whose live bytes grow with it leaks rather than fragments. Boundary tests: rules/layer.test.ts,
 * rules/fragmentation.test.ts (20% / 30%).
 */
export const LAYER_MIN_SHARE = 0.25;
/** tracemalloc sees Python objects exactly: when its sites hold half the growth or more, that is the layer. */
export const TRACED_SHARE = 0.5;
/** Under this share of the growth, the note says where the rest is (malloc's free memory, or outside malloc). */
export const NEARLY_ALL_SHARE = 0.9;
/**
 * Tensors keeping a grad_fn must grow by at least this many for graphs to be named: a training step holds a few
 * at any moment (the loss, the outputs), so their count moves by a handful between two looks with no leak at all.
 */
export const GRAPH_TENSORS_MIN = 20;
/** pymalloc serves requests up to 512 bytes. */
const PYMALLOC_MAX_BLOCK = 512;

export interface Layer {
  name: string;
  notes: Phrase[];
}

/** Growth of one agent field over the window, or undefined when the agent did not report it. */
const grew = (ps: ProcessSeries, field: AgentNumberField, from: number) => levelChange(ps.agent[field], from);

interface Candidate extends Layer {
  bytes: number;
}

/**
 * Live CPU tensor storage that grew (the agent's census, with torch loaded), measured between the census's walks and
 * counted at that rate over the window (signals/census-span.ts).
 */
function tensorLayer(ps: ProcessSeries, a: Assessment, tensors: CensusChange | undefined): Candidate | undefined {
  if (tensors === undefined || tensors.change <= 0) return undefined;
  const count = censusChange(ps, "census.cpuTensors", a.from, a.to)?.change ?? 0;
  return {
    name: "PyTorch CPU tensors",
    bytes: tensors.overWindow,
    notes: [phrase("layer.tensors", { bytes: tensors.change, count, ...span(tensors, a.growth) })],
  };
}

/** Between which walks a census change was measured, and its share of the growth at that rate; {} when unknown. */
function span(c: CensusChange, growth: number): { seconds?: number; share?: number } {
  return c.seconds === undefined ? {} : { seconds: c.seconds, share: c.overWindow / growth };
}

/**
 * The Python container that gained most items (the agent's census follows the largest ones from walk to walk), times
 * the shallow size of a few of its items: what a cache or a list that only grows holds, whatever its items are.
 */
function containerLayer(ps: ProcessSeries, from: number, growth: number): Candidate | undefined {
  // Bytes over the window; the rest is what the last walk saw (which container grows fastest may have changed).
  const bytes = containerGrowth(ps, from);
  // Label, length and item size from the same (last) walk, as the text is: a median could mix two containers.
  const itemBytes = ps.agent["census.growingItemBytes"]?.ys.at(-1);
  if (bytes === undefined || bytes <= 0 || itemBytes === undefined) return undefined;
  const what = ps.agentText["census.growing"] ?? "container";
  const length = ps.agent["census.growingLen"]?.ys.at(-1) ?? 0;
  // What each new item keeps alive (memleak_retained.py), when the agent looked: the bytes above are counted by it.
  const retained = retainedPerItem(ps);
  return {
    name: "Python objects",
    bytes,
    notes: [
      phrase("layer.container", {
        what,
        length,
        itemBytes,
        bytes,
        growth,
        ...(retained !== undefined && { retained }),
      }),
    ],
  };
}

/**
 * One of the followed container's fields (census.growing*) from the window's start. The agent reports them only from
 * the first walk that found a container gaining items; at the ticks before it that carry a census
 * (census.containerItems), no followed container had grown: 0 added. A short program (a 15 s CI step, with a walk every
 * 5 s or more) has its first such walk inside the window and a series flat from there, which alone reads as no growth:
 * the leak was put in the native heap and its holder left unnamed. So the zeros go in front.
 */
function followed(
  ps: ProcessSeries,
  field: AgentNumberField,
  from: number,
): { xs: number[]; ys: number[] } | undefined {
  const col = ps.agent[field];
  const first = col?.xs[0];
  if (col === undefined || first === undefined) return undefined;
  const walks = ps.agent["census.containerItems"];
  const before = walks ? sliceByTime(walks, from, first).xs : [];
  const after = sliceByTime(col, from);
  return { xs: [...before, ...after.xs], ys: [...before.map(() => 0), ...after.ys] };
}

/**
 * Bytes each of the followed container's newest items keeps alive alone, at the last walk that looked — only where
 * that walk's item size came in the same report. An agent that sent the retained bytes only where a look found more
 * than the item's own size left the field's last value to an earlier container: a list of 600-byte strings was said
 * to keep "~1.76 MiB alive" each, a module's dict's figure from the walk before (leak_under_temporaries under run).
 */
export function retainedPerItem(ps: ProcessSeries): number | undefined {
  const retained = ps.agent["census.growingRetainedBytes"];
  const items = ps.agent["census.growingItemBytes"];
  if (!retained || !items || retained.xs.at(-1) !== items.xs.at(-1)) return undefined;
  return retained.ys.at(-1);
}

/** Bytes the followed container gained over the window, its levels taken as for any other series. */
function containerGrowth(ps: ProcessSeries, from: number): number | undefined {
  const s = followed(ps, "census.growingAddedBytes", from);
  if (s === undefined || s.ys.length < 2) return undefined;
  const l = levels(s.ys);
  return l.end - l.start;
}

/** Walks inside the window at which the followed container gained items, for it to be what pins retention's holes. */
export const PINNING_MIN_WALKS = 3;

export interface Pinning {
  what: string;
  /** Items it gained over the window. */
  items: number;
  perSecond: number;
  /** What an item is: a container's items, or the nodes of a graph one tensor keeps growing (unsaid: items). */
  unit?: "nodes";
  /** A graph past what a walk counts: `items` is how many it counted, its growth unseen (pastTheCount). */
  atLeast?: boolean;
  /** Seconds the items were counted over, where that is less than the window (sinceLastFall): the rate's. */
  seconds?: number;
}

/**
 * A container the census saw gain items at PINNING_MIN_WALKS walks or more of the window, the last of them in its final
 * third (still gaining at the end, not a cache that filled up). Under retention — anon grows, malloc's in-use bytes
 * do not — it is what keeps the holes growing: each object kept alive pins the freed memory around it, which malloc
 * can neither reuse for larger requests nor give back. A training loop that keeps every step's loss
 * (`history.append(loss)` after backward()) grew 7 MiB/s that way with malloc's in-use bytes flat; with loss.item()
 * it was stable.
 */
export function pinningContainer(ps: ProcessSeries, from: number, to: number): Pinning | undefined {
  const all = followed(ps, "census.growingAdded", from);
  if (all === undefined || !(to > from) || itemsInPymallocOnly(ps)) return undefined;
  const s = sinceLastFall(all);
  const { rises, lastRise } = risesOf(s);
  if (rises < PINNING_MIN_WALKS || lastRise < from + (2 / 3) * (to - from)) return undefined;
  return containerPinning(ps, s, from, to);
}

/**
 * The readings from the series' last fall on. census.growingAdded is the count of whichever container gained most at
 * each walk, so a fall is another container taking the lead (or the one followed giving items back): its readings
 * and the earlier container's are no one container's gain. A kept-loss training loop beside a busy machine was said
 * to have "a list of Tensor gains ~-76.6 items a second (-2,528 over the window)".
 */
export function sinceLastFall(s: { xs: readonly number[]; ys: readonly number[] }): Readings {
  let start = 0;
  for (let i = 1; i < s.ys.length; i++) if (s.ys[i]! < s.ys[i - 1]!) start = i;
  return start === 0 ? s : { xs: s.xs.slice(start), ys: s.ys.slice(start), fell: true };
}

/** A series' readings; `fell` where they are the ones after its last fall (sinceLastFall). */
interface Readings {
  xs: readonly number[];
  ys: readonly number[];
  fell?: boolean;
}

/**
 * Python's own leaf objects, which own no buffer outside themselves: at up to PYMALLOC_MAX_BLOCK bytes each they live in
 * pymalloc's arenas (mapped apart from malloc's heap), so however many a container keeps, none sits among malloc's
 * freed chunks. A tensor, an ndarray or an instance's attributes may own malloc's memory whatever their own size.
 */
const PYMALLOC_LEAVES = new Set(["float", "int", "bool", "complex", "str", "bytes", "NoneType"]);

/**
 * Whether the followed container's items cannot pin malloc's freed memory: leaf objects (a "list of float") of at most
 * PYMALLOC_MAX_BLOCK bytes each, keeping no graph, as the last walk that described it measured them. A fixed training
 * loop's `history.append(loss.item())` gains a float a step while its temporaries' freed memory grows in malloc (+2.6 MiB
 * in 20 s beside a busy neighbour): the floats were named as pinning it, and a loop that keeps nothing called a leak.
 */
export function itemsInPymallocOnly(ps: ProcessSeries): boolean {
  const what = ps.agentText["census.growing"];
  const item = what?.slice(what.lastIndexOf(" of ") + 4);
  const bytes = retainedPerItem(ps) ?? ps.agent["census.growingItemBytes"]?.ys.at(-1);
  return (
    what !== undefined &&
    what.includes(" of ") &&
    PYMALLOC_LEAVES.has(item!) &&
    bytes !== undefined &&
    bytes <= PYMALLOC_MAX_BLOCK &&
    ps.agentText["census.growingGraphs"] !== "yes"
  );
}

/**
 * The followed container as what pins retention's holes: what it is, and the items it gained over the window, or over
 * the readings it has led since another container did (sinceLastFall): then at the rate of those seconds, said.
 */
function containerPinning(ps: ProcessSeries, s: Readings, from: number, to: number): Pinning {
  return { what: ps.agentText["census.growing"] ?? "container", ...gainOver(s, from, to) };
}

/**
 * Items a series gained, and at what rate: over the window, or, for the readings after a fall (sinceLastFall), over
 * the seconds they span.
 */
function gainOver(s: Readings, from: number, to: number): Pick<Pinning, "items" | "perSecond" | "seconds"> {
  const items = (s.ys.at(-1) ?? 0) - (s.ys[0] ?? 0);
  const span = (s.xs.at(-1) ?? 0) - (s.xs[0] ?? 0);
  return s.fell === true && span > 0 && span < to - from
    ? { items, perSecond: items / span, seconds: span }
    : { items, perSecond: items / (to - from) };
}

/** The tensors keeping an autograd graph as what pins retention's holes, by their count's change over the window. */
function graphsPinning(s: Readings, from: number, to: number): Pinning {
  return { what: "set of tensors keeping an autograd graph", ...gainOver(s, from, to) };
}

/**
 * How many times a series rose from one reading to the next (by more than `by` of the reading before), and when it
 * last did.
 */
function risesOf(
  s: { xs: readonly number[]; ys: readonly number[] },
  by: (before: number) => number = () => 0,
): { rises: number; lastRise: number } {
  let rises = 0;
  let lastRise = -Infinity;
  for (let i = 1; i < s.ys.length; i++)
    if (s.ys[i]! - s.ys[i - 1]! > by(s.ys[i - 1]!)) {
      rises++;
      lastRise = s.xs[i]!;
    }
  return { rises, lastRise };
}

/** Walks at which the tensors keeping an autograd graph grew, for them to be what pins retention's holes. */
export const PINNING_GRAPH_WALKS = 2;

/**
 * Tensors that keep an autograd graph, counted by the census, growing by GRAPH_TENSORS_MIN or more over the window at
 * PINNING_GRAPH_WALKS walks or more, the last in its final third. A training step holds a handful at any moment, so a
 * count that keeps rising is graphs kept alive (losses kept after backward()) whichever container holds them — also
 * when the census followed another container, or walked too seldom to see the list gain at three walks: with torch
 * loaded a walk costs 50-90 ms, so walks are 10-18 s apart, and on a busy machine a 35 s loop got two (kept-alive.test:
 * judged fragmentation at the first try). Two rises suffice here where a container needs three: a cache of tensors
 * that fills up does not keep their graphs.
 */
export function pinningGraphs(ps: ProcessSeries, from: number, to: number): Pinning | undefined {
  const col = ps.agent["census.graphTensors"];
  if (col === undefined || !(to > from)) return undefined;
  const s = sliceByTime(col, from);
  const { rises, lastRise } = risesOf(s);
  const pinning = graphsPinning(s, from, to);
  if (rises < PINNING_GRAPH_WALKS || pinning.items < GRAPH_TENSORS_MIN || lastRise < from + (2 / 3) * (to - from))
    return undefined;
  return pinning;
}

/**
 * Nodes the autograd graphs must gain over the window for a graph one tensor keeps growing to be named: a training step's
 * own graph, alive at a walk that caught the step, is a handful of nodes for a small model and thousands for a large
 * one, caught or not; a running loss kept as a tensor gains a step's graph a step (~200 nodes a second for a two-layer
 * MLP at 25 steps a second).
 */
export const GRAPH_NODES_MIN = 500;

/** The graph nodes one tensor keeps growing as what pins retention's holes, by their count's change over the window. */
function nodesPinning(s: { ys: readonly number[] }, from: number, to: number): Pinning {
  const items = (s.ys.at(-1) ?? 0) - (s.ys[0] ?? 0);
  return { what: "autograd graph", items, perSecond: items / (to - from), unit: "nodes" };
}

/**
 * The nodes of the autograd graphs that the census's tensors reach (counted once each, memleak_graphs.py) rising at
 * PINNING_GRAPH_WALKS walks or more, by GRAPH_NODES_MIN or more over the window, the last rise in its final third, and
 * never falling by more than a tenth between walks: no container grows when a graph does (`running = running + loss`
 * after backward() chains each step's graph onto the last; a recurrent state carried without .detach()), so the count
 * of tensors keeping a graph can stay at one while the graph behind it pins the holes. A count past the walk's bound
 * (capped) does not rise: a graph that large is said by the holder, not here.
 */
export function pinningGraphNodes(ps: ProcessSeries, from: number, to: number): Pinning | undefined {
  const chain = graphChain(ps, from);
  if (chain === undefined || !(to > from)) return undefined;
  return chain.lastRise >= from + (2 / 3) * (to - from) ? nodesPinning(chain.s, from, to) : undefined;
}

/**
 * The census's graph nodes from `from` on when they grew as a chain does: at PINNING_GRAPH_WALKS walks or more, by
 * GRAPH_NODES_MIN or more in all, never falling by more than a tenth between walks. A large model's step graph, caught
 * mid-way at one walk and not at the next, goes up and down: it is no chain, and no layer of a leak.
 */
function graphChain(
  ps: ProcessSeries,
  from: number,
): { s: { xs: readonly number[]; ys: readonly number[] }; lastRise: number } | undefined {
  const col = ps.agent["census.graphNodes"];
  if (col === undefined) return undefined;
  const s = sliceByTime(col, from);
  const { rises, lastRise } = risesOf(s);
  const falls = risesOf({ xs: s.xs, ys: s.ys.map((y) => -y) }, (before) => 0.1 * -before).rises;
  const gained = (s.ys.at(-1) ?? 0) - (s.ys[0] ?? 0);
  return rises >= PINNING_GRAPH_WALKS && falls === 0 && gained >= GRAPH_NODES_MIN ? { s, lastRise } : undefined;
}

/**
 * What the agent's census suspected and handed to its holder search (the holder message, found or not): the container
 * it followed, described as the census describes it, or a graph one tensor keeps growing.
 */
export interface Suspected {
  container: string;
  graph: boolean;
  found: boolean;
}

/**
 * Walks in a row, the census's last, at which what the agent suspected rose: two are its suspicion (the walk that first
 * saw it gain and the next, longer still), the third comes after it (the agent brings that walk forward) and tells a
 * container still gaining from a cache that had filled up by the time it was suspected.
 */
export const SUSPECTED_RISES = 3;

/** The graph count's bound (memleak_graphs.MAX_NODES): a count at it was cut there, not by the walk's time. */
export const GRAPH_COUNT_BOUND = 20_000;

/**
 * A container or a graph the agent suspected, still rising at each of the census's last SUSPECTED_RISES walks, the
 * last in the window. Walks are spaced by their cost (with torch loaded 10-27 s apart under load), so the window's
 * final third may hold no walk at all: a training loop keeping its losses, watched 25 s beside a busy loop, was
 * walked at 2, 7 and 12 s, its list's holder named at 12 s, and the verdict was fragmentation (two rises in the
 * window, none in its final third).
 */
export function pinningSuspected(
  ps: ProcessSeries,
  suspected: Suspected | undefined,
  from: number,
  to: number,
): Pinning | undefined {
  const walks = walkTimes(ps);
  if (suspected === undefined || walks === undefined || !(to > from) || walks.at(-1)! < from) return undefined;
  if (suspected.graph) {
    const capped = pastTheCount(ps, walks, suspected);
    if (capped) return capped;
  }
  // Each walk's reading. A graph the first walk finds grew from nothing (as the agent counts it); a container counts
  // from 0 at the walks before it was followed (followed()).
  const at = suspected.graph
    ? [0, ...atWalks(ps, "census.graphNodes", walks)]
    : ps.agentText["census.growing"] === suspected.container && !itemsInPymallocOnly(ps)
      ? atWalks(ps, "census.growingAdded", walks)
      : [];
  const n = at.length;
  if (n < SUSPECTED_RISES + 1) return undefined;
  for (let i = n - SUSPECTED_RISES; i < n; i++) if (!(at[i]! > at[i - 1]!)) return undefined;
  // What it gained from the last walk at or before the window's start (a reading of another container then, which
  // census.growingAdded also follows, can be larger: never a negative count).
  const k = Math.max(0, walks.filter((t) => t <= from).length - 1);
  const first = suspected.graph ? k + 1 : k;
  const since = { xs: [walks[k]!, walks.at(-1)!], ys: [at[first]!, Math.max(at[first]!, at[n - 1]!)] };
  return suspected.graph ? nodesPinning(since, from, to) : containerPinning(ps, since, from, to);
}

/**
 * A column's reading at each walk: the one taken between that walk and the next (a column sent only at some walks has
 * none there, and reads 0; an exact tick would miss readings that compaction averaged), 0 when there is none.
 */
function atWalks(ps: ProcessSeries, field: AgentNumberField, walks: readonly number[]): number[] {
  const col = ps.agent[field];
  return walks.map((w, i) => {
    if (col === undefined) return 0;
    const j = lowerBound(col.xs, w);
    return j < col.xs.length && col.xs[j]! < (walks[i + 1] ?? Infinity) ? col.ys[j]! : 0;
  });
}

/**
 * A graph the agent found held, counted at the bound of its count (GRAPH_COUNT_BOUND nodes) at the census's last two
 * walks: its count no longer rises, so no chain is seen growing, yet one tensor held over 20,000 nodes across two
 * walks 5-27 s apart (a step's own graph is a few thousand for a large model): a chain (a watch attached to a running
 * loss kept as a tensor after ~100 s). A count its time cut is no such floor: a GRU's graph, cut at ~7,000.
 */
function pastTheCount(ps: ProcessSeries, walks: readonly number[], suspected: Suspected): Pinning | undefined {
  if (!suspected.found || walks.length < 2) return undefined;
  const nodes = atWalks(ps, "census.graphNodes", walks.slice(-2));
  const capped = atWalks(ps, "census.graphNodesCapped", walks.slice(-2));
  if (!nodes.every((x, i) => x >= GRAPH_COUNT_BOUND && capped[i] === 1)) return undefined;
  return { what: "autograd graph", items: nodes[1]!, perSecond: 0, unit: "nodes", atLeast: true };
}

/**
 * Readings at which malloc's free bytes rose, each by the growth floor of them or more, in the window, for the holes to
 * be still growing: freed memory kept after one burst rose at one reading (frag_burst: 0.3 → 583 MiB as its buffers
 * were freed; during the burst by a few KiB at a time, as lists were reallocated: counted, those made it undecided in
 * a CI run), holes around what a growing container keeps rise at each (a training loop keeping its losses: 117 → 166
 * → 200 → 233 MiB).
 */
export const GROWING_HOLES_READINGS = 3;

/**
 * Retention that may yet be a leak pinning it: the holes malloc keeps free still grow (GROWING_HOLES_READINGS), and the
 * followed container, or the tensors keeping a graph, gained at a walk in the window's final third, and the census
 * has walked too few times in the window for pinningContainer and pinningGraphs to say so. Until a later walk tells,
 * the process is neither: with torch loaded walks are 7-10 s apart, and a watched training loop that kept its losses
 * was "fragmentation" (with arena advice) for its first 16 s, then a leak. What the census saw is returned, for the
 * reason to name it.
 */
export function pinningUndecided(ps: ProcessSeries, from: number, to: number): Pinning | undefined {
  const free = ps.agent["malloc.free"];
  if (free === undefined || !(to > from) || risesOf(sliceByTime(free, from), minGrowth).rises < GROWING_HOLES_READINGS)
    return undefined;
  // Only while the census has walked too few times in the window for the pinning rules to have had their say (three
  // rises need four walks): after as many, a container that did not keep gaining is no leak's (rules/pinning.test.ts).
  const walks = walkTimes(ps)?.filter((t) => t >= from && t <= to).length;
  if (walks === undefined || walks > PINNING_MIN_WALKS) return undefined;
  const recent = (s: { xs: readonly number[]; ys: readonly number[] } | undefined) => {
    if (s === undefined) return false;
    const { rises, lastRise } = risesOf(s);
    return rises > 0 && lastRise >= from + (2 / 3) * (to - from);
  };
  // The followed container from its last fall on: a gain counted across a change of lead is no one container's, and
  // may be negative. Not the count of tensors keeping a graph, which a step's own loss moves by one either way at a
  // walk (kept losses: 452 tensors beside a list of 451): a fall of one there would restart it, so it only has to
  // have gained.
  const followedAll = followed(ps, "census.growingAdded", from);
  const container = followedAll && sinceLastFall(followedAll);
  if (recent(container) && !itemsInPymallocOnly(ps)) return containerPinning(ps, container!, from, to);
  const graphs = ps.agent["census.graphTensors"];
  const g = graphs && sliceByTime(graphs, from);
  const kept = g && recent(g) ? graphsPinning(g, from, to) : undefined;
  if (kept && kept.items > 0) return kept;
  const nodes = ps.agent["census.graphNodes"];
  const n = nodes && sliceByTime(nodes, from);
  const grown = n && recent(n) ? nodesPinning(n, from, to) : undefined;
  return grown && grown.items >= GRAPH_NODES_MIN ? grown : undefined;
}

/**
 * Whether the container pinning is the census's followed one, and the walk that last described it found its items
 * keeping graphs (both text, set at the same walk).
 */
function itemsKeepGraphs(ps: ProcessSeries, pinning: Pinning): boolean {
  return pinning.what === ps.agentText["census.growing"] && ps.agentText["census.growingGraphs"] === "yes";
}

/** The layer of a leak that pins retained memory: the objects kept, with what malloc's numbers did meanwhile. */
export function pinnedLayer(ps: ProcessSeries, pinning: Pinning, from: number): Layer {
  const inUse = grew(ps, "malloc.inUse", from) ?? 0;
  const free = grew(ps, "malloc.free", from) ?? 0;
  // A graph is no Python object: its nodes are PyTorch's, reached from the one tensor that keeps them. Nor are the
  // graphs a container's tensors keep (kept losses), named by the items the census sampled: also where it counts no
  // tensors (a DataLoader's parent walks near its globals only).
  const name = pinning.unit === "nodes" || itemsKeepGraphs(ps, pinning) ? "PyTorch autograd graphs" : "Python objects";
  return { name, notes: [phrase("layer.pinning", { ...pinning, inUse, free })] };
}

/**
 * pymalloc's blocks (objects of up to 512 bytes), which malloc does not see: count × 512 bounds their bytes. Counted
 * from the window's last burst of imports on (imports.ts): the objects a framework's import makes are the import's.
 * torch imported inside a loaded CI run's window added 154,380 blocks, and a list of 4 KiB bytes objects' leak was
 * named "small Python objects" on them (agent.test, CI on b968c5b).
 */
function smallObjectLayer(ps: ProcessSeries, from: number): Candidate | undefined {
  const imported = lastImportBurst(ps.agent["py.modules"], from);
  const blocks = grew(ps, "py.allocatedBlocks", imported ? Math.max(from, imported.at) : from);
  if (blocks === undefined || blocks <= 0) return undefined;
  return {
    name: "small Python objects (pymalloc)",
    bytes: blocks * PYMALLOC_MAX_BLOCK,
    notes: [phrase("layer.small-objects", { blocks })],
  };
}

/** Whether the agent saw the program import torch (it reports torch's version and threads then, and never imports it). */
export function torchImported(ps: ProcessSeries): boolean {
  return ps.agent["torch.threads"] !== undefined || ps.agentText["torch.version"] !== undefined;
}

/** Notes on what malloc's in-use bytes say, and on PyTorch when it is loaded but its tensors did not grow. */
function mallocNotes(
  native: number,
  ps: ProcessSeries,
  traced: boolean,
  growth: number,
  grown: CensusChange | undefined,
): Phrase[] {
  const notes = [phrase("layer.malloc", { native, growth, nearlyAll: native / growth >= NEARLY_ALL_SHARE })];
  const torchLoaded = torchImported(ps);
  const counted = ps.agent["census.cpuTensorBytes"] !== undefined;
  if (torchLoaded && grown !== undefined && grown.change > 0)
    notes.push(phrase("layer.torch-tensors-grew", { bytes: grown.change, ...span(grown, growth) }));
  else if (torchLoaded && grown !== undefined) notes.push(phrase("layer.torch-tensors-flat", {}));
  // Counted at one walk of the window alone: whether they grew is not known, and is not claimed.
  else if (torchLoaded && counted) notes.push(phrase("layer.torch-one-walk", {}));
  else if (torchLoaded) notes.push(phrase("layer.torch-no-census", {}));
  else if (!traced) notes.push(phrase("layer.trace-hint", {}));
  return notes;
}

/** Under jemalloc or tcmalloc: its name, and what that means for malloc's numbers; undefined under glibc. */
export function otherAllocator(ps: ProcessSeries): { name: string; note: Phrase } | undefined {
  const name = ps.agentText["malloc.allocator"];
  if (name === undefined || name === "glibc") return undefined;
  return { name, note: phrase("layer.other-allocator", { name }) };
}

/**
 * Most specific first. Graphs first: the activations they save are tensors (in the census) and malloc'd, and the
 * graphs kept alive are what to fix. Tensors and Python objects over 512 bytes live inside malloc's in-use bytes,
 * so when either explains enough of the growth it is named rather than malloc. pymalloc's arenas are outside malloc: small objects
 * and malloc are compared, and the larger is named.
 */
export function leakLayer(ps: ProcessSeries, a: Assessment, ctx: Context): Layer | undefined {
  const growth = a.growth;
  if (!(growth > 0)) return undefined;
  const trace = ctx.agentResults?.traces.get(ps.pid);
  if (trace && trace.sites.length > 0) {
    const traced = trace.sites.reduce((s, x) => s + x.sizeDiff, 0);
    if (traced >= TRACED_SHARE * growth) return { name: "Python objects (tracemalloc sees the growth)", notes: [] };
  }
  const enough = (c: Candidate | undefined) => (c && c.bytes >= LAYER_MIN_SHARE * growth ? c : undefined);
  // Measured once: the tensors' layer and malloc's notes on them read the same change.
  const tensorBytes = censusChange(ps, "census.cpuTensorBytes", a.from, a.to);
  const tensors = tensorLayer(ps, a, tensorBytes);
  const graphs = grew(ps, "census.graphTensors", a.from) ?? 0;
  const chain = graphChain(ps, a.from);
  const nodes = chain ? chain.s.ys.at(-1)! - chain.s.ys[0]! : 0;
  const native = otherAllocator(ps) ? undefined : grew(ps, "malloc.inUse", a.from);
  if (graphs >= GRAPH_TENSORS_MIN || nodes >= GRAPH_NODES_MIN) {
    // The saved activations a graph holds are tensors too (the census counts them), and a graph one tensor keeps
    // growing is nodes: the graphs are the cause.
    const because =
      graphs >= GRAPH_TENSORS_MIN ? phrase("layer.graphs", { graphs }) : phrase("layer.graph-nodes", { nodes });
    const measuredBy =
      tensors?.notes ?? (native !== undefined ? mallocNotes(native, ps, false, growth, tensorBytes).slice(0, 1) : []);
    return { name: "PyTorch autograd graphs", notes: [because, ...measuredBy] };
  }
  if (enough(tensors)) return { name: tensors!.name, notes: tensors!.notes };
  const objects = enough(containerLayer(ps, a.from, growth));
  if (objects) return { name: objects.name, notes: objects.notes };
  const small = enough(smallObjectLayer(ps, a.from));
  const heap = native !== undefined && native >= LAYER_MIN_SHARE * growth ? native : undefined;
  if (heap !== undefined && heap >= (small?.bytes ?? 0))
    return { name: "native heap (malloc)", notes: mallocNotes(heap, ps, trace !== undefined, growth, tensorBytes) };
  return small && { name: small.name, notes: small.notes };
}
