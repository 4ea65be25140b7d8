/**
 * What holds a leak's growing container: the agent's search (memleak_holder.py) named the chain of references from a
 * root to the container it saw grow. It is put on a process's leak when the leak is in Python objects or PyTorch
 * tensors, never on a leak of the native heap, where a container that grew meanwhile is a bystander; for tensors and
 * graphs only a container of tensors is named (the census follows the container that gains most tensors then).
 */
import { isGraphHolder, type HolderResult } from "../../agent/agent-results.js";
import type { Context } from "../context.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase, type HolderVariant, type Phrase } from "../phrases.js";
import type { Finding } from "../types.js";
import { heldAs } from "./held-as.js";
import type { Suspected } from "./layer.js";

/** A GPU leak's layer (gpu.ts): the live tensors' bytes on a device, which a container of them holds. */
export const CUDA_TENSORS = "CUDA tensors";

/**
 * A container whose items keep tensors on the leaking device explains its leak when what it gains a second (items a
 * second × each item's bytes there) is at least half the device's growth: a list of logits gains as fast as
 * allocated grows (10 items of 4 MiB a second against 39.7 MiB/s, the stand-in's validation loop), while a container of
 * small tensors beside a leak elsewhere on the device gains a few per cent of it. Less is said as a bystander.
 * Boundary tests: test/unit/analysis/gpu-holder.test.ts (45% / 55%).
 */
export const GPU_HOLDER_EXPLAINS = 0.5;

/**
 * What holds a GPU leak: the container the process's census saw grow, when its newest items keep tensors on this
 * device (memleak_retained.py device_bytes_per_item); put on the finding as the answer, or as a bystander when what it
 * gains explains under GPU_HOLDER_EXPLAINS of the growth. Nothing when the process's holder is on another device or
 * on the host.
 */
export function putGpuHolder(f: JudgedFinding, pid: number, device: string, ctx: Context): void {
  const h = ctx.agentResults?.holders?.get(pid);
  if (h?.device !== device) return;
  const gains = gpuHolderGains(h);
  const rate = f.rate?.bytesPerSecond;
  if (gains !== undefined && rate !== undefined && rate > 0) f.evidence.holderDeviceBytesPerSecond = Math.round(gains);
  if (gains !== undefined && rate !== undefined && gains < GPU_HOLDER_EXPLAINS * rate) {
    addBystanderHolder(f, h);
    return;
  }
  addHolder(f, h, CUDA_TENSORS);
  // The device's general advice is how to find what keeps the tensors (a snapshot read by hand, or the lines found):
  // found, it goes.
  if (h.found) f.advice = f.advice.filter((p) => !(p.say === "advice.gpu" && p.facts.variant.startsWith("leak")));
}

/** Bytes a second the holder's items add on their device, when the agent measured both halves. */
export const gpuHolderGains = (h: Pick<HolderResult, "itemsPerSecond" | "deviceBytesPerItem">): number | undefined =>
  h.itemsPerSecond !== undefined && h.deviceBytesPerItem !== undefined
    ? h.itemsPerSecond * h.deviceBytesPerItem
    : undefined;

/** The layers (layer.ts) whose growth a Python container holds. */
const PYTHON_LAYERS = new Set([
  "Python objects",
  "Python objects (tracemalloc sees the growth)",
  "small Python objects (pymalloc)",
]);
const TENSOR_LAYERS = new Set(["PyTorch CPU tensors", "PyTorch autograd graphs"]);
const OF_TENSORS = /\bof (Tensor|Parameter)\b/;

/**
 * The holder the agent found for this process, and whether it explains a leak in this layer. A process may have two:
 * the container its census saw grow, and the variable whose tensor keeps a growing graph. In a tensor layer the
 * container of tensors found wins (kept losses: their list, not the step's own loss), else the graph's holder; in
 * any other layer the container's, the graph's only when there is no other.
 */
export function holderFor(
  pid: number,
  layer: string | undefined,
  ctx: Context,
): { holder: HolderResult; explains: boolean } | undefined {
  const container = ctx.agentResults?.holders?.get(pid);
  const graph = ctx.agentResults?.graphHolders?.get(pid);
  const tensorsHeld = container?.found === true && OF_TENSORS.test(container.container);
  const holder =
    layer !== undefined && TENSOR_LAYERS.has(layer) && graph && !tensorsHeld ? graph : (container ?? graph);
  if (!holder) return undefined;
  const explains =
    layer !== undefined &&
    (PYTHON_LAYERS.has(layer) ||
      (TENSOR_LAYERS.has(layer) && (OF_TENSORS.test(holder.container) || isGraphHolder(holder))));
  return { holder, explains };
}

/** What the agent's census suspected in this process (it sent a holder message for each): its container, its graph. */
export function suspectedIn(pid: number, ctx: Context): Suspected[] {
  const container = ctx.agentResults?.holders?.get(pid);
  const graph = ctx.agentResults?.graphHolders?.get(pid);
  return [
    ...(container ? [{ container: container.container, graph: false, found: container.found }] : []),
    ...(graph ? [{ container: graph.container, graph: true, found: graph.found }] : []),
  ];
}

/** The finding's structured field: the chain and what the search cost the program. */
export function holderField(h: HolderResult): NonNullable<Finding["holder"]> {
  return {
    container: h.container,
    length: h.length,
    found: h.found,
    ...(h.itemsPerSecond !== undefined && { itemsPerSecond: h.itemsPerSecond }),
    ...(h.lengthCapped && { lengthCapped: true }),
    ...(h.device !== undefined && { device: h.device, deviceBytesPerItem: h.deviceBytesPerItem }),
    ...(h.path !== undefined && { path: h.path }),
    ...(h.root !== undefined && { root: h.root }),
    ...(h.hops !== undefined && { hops: h.hops }),
    ...(h.where !== undefined && { where: h.where }),
    ...(h.why !== undefined && { why: h.why }),
    search: { levels: h.levels, calls: h.calls, objects: h.objects, ms: h.ms, longestPauseMs: h.longestMs },
  };
}

/** Asyncio tasks and futures: finished ones are dropped from the container, not bounded by a size. */
const OF_TASKS = /\bof (Task|Future)\b/;
/** Logging handlers (a logger's `handlers` list): added once, not bounded. */
const OF_HANDLERS = /\bof \w*Handler$/;
/** Callbacks (an observer registry): unsubscribed or held weakly, not bounded (evicting one stops its events). */
const OF_CALLBACKS = /\bof (method|function|builtin_function_or_method|partial|WeakMethod)$/;
/** A queue's own buffer (asyncio.Queue, queue.Queue keep theirs in `_queue`/`queue`): a backlog, bounded by maxsize. */
const QUEUE_BUFFER = /^(_queue|queue)$/;

/**
 * Which advice fits what is held: a cache to bound, a graph to drop, finished tasks to discard, a thread's local to
 * clear. Tensors are named by what the container holds, whatever the layer: a list of kept losses whose own bytes are
 * few and which pins freed memory (layer "Python objects") is fixed the same way as one whose graphs grow.
 */
function variant(h: HolderResult, layer: string): HolderVariant {
  if (isGraphHolder(h)) return h.found ? "holder-graph-chain" : "holder-graph-chain-not-found";
  if (!h.found) return "holder-not-found";
  if (layer === CUDA_TENSORS && h.device !== undefined) return "holder-cuda";
  if (layer === "PyTorch autograd graphs" || OF_TENSORS.test(h.container)) return "holder-graphs";
  if (h.hops?.some((x) => x.kind === "lru_cache")) return "holder-lru";
  if (OF_TASKS.test(h.container)) return "holder-tasks";
  if (OF_HANDLERS.test(h.container)) return "holder-handlers";
  if (OF_CALLBACKS.test(h.container)) return "holder-callbacks";
  const last = h.hops?.at(-1);
  if (h.container.startsWith("deque of") && last?.kind === "attribute" && QUEUE_BUFFER.test(last.name))
    return "holder-queue";
  if (h.root === "thread frame") return "holder-frame";
  // A mapping is bounded as a cache is, by key: a deque, the generic advice's first bound, cannot stand in for it.
  if (/^(dict|OrderedDict|defaultdict)\b/.test(h.container)) return "holder-dict";
  return "holder";
}

/**
 * A holder found beside a leak whose growth it does not explain (the native heap grows, the container gained less):
 * kept in the finding — never dropped, a user may know it is the cause — with a note that says how much it explains,
 * and no advice that presents it as the answer.
 */
export function addBystanderHolder(f: JudgedFinding, h: HolderResult): void {
  f.holder = holderField(h);
  f.evidence.holder = h.found ? h.path! : "not found";
  f.caveats.push(
    phrase("layer.holder-bystander", {
      container: h.container,
      found: h.found,
      path: h.path,
      itemsPerSecond: h.itemsPerSecond,
      layer: String(f.evidence.layer ?? ""),
    }),
  );
}

/** Puts what holderFor found on a leak's finding: as the answer where it explains the layer, else as a bystander. */
export function putHolder(
  f: JudgedFinding,
  found: { holder: HolderResult; explains: boolean },
  layer: string | undefined,
): void {
  if (found.explains && layer !== undefined) addHolder(f, found.holder, layer);
  else addBystanderHolder(f, found.holder);
}

/** Puts the holder on a leak's finding: evidence, field, and advice that names it (first: it is the answer). */
export function addHolder(f: JudgedFinding, h: HolderResult, layer: string): void {
  f.holder = holderField(h);
  f.evidence.holder = h.found ? h.path! : "not found";
  const advice: Phrase = phrase("advice.holder", {
    variant: variant(h, layer),
    path: h.path,
    container: h.container,
    length: h.length,
    ...(h.lengthCapped && { lengthCapped: true }),
    itemsPerSecond: h.itemsPerSecond,
    why: h.why,
    heldAs: heldAs(h.hops),
    ...(layer === CUDA_TENSORS &&
      h.device !== undefined && { device: h.device, deviceBytesPerItem: h.deviceBytesPerItem, rate: f.rate }),
  });
  // A process's general leak advice opens with how to find the holder: found, it is replaced. A worker's keeps its
  // stop-gap (recycling workers), and a search that found nothing keeps the ways to look further.
  const general = f.advice.findIndex(
    (p) => p.say === "advice.leak" && (p.facts.variant === "process" || p.facts.variant === "process-traced"),
  );
  if (h.found && general >= 0) f.advice.splice(general, 1);
  // A worker's advice to run its code alone to find the line is moot once the line is found: the stop-gap stays.
  if (h.found)
    for (const p of f.advice)
      if (p.say === "advice.leak" && p.facts.variant === "worker") p.facts.variant = "worker-held";
  f.advice.unshift(advice);
}
