/**
 * What holds a leak's growing container: the agent's search (memleak_holder.py) named the chain of references from a
 * root to the container it saw grow. It is put on a process's leak when the leak is in Python objects or PyTorch
 * tensors, never on a leak of the native heap, where a container that grew meanwhile is a bystander; for tensors and
 * graphs only a container of tensors is named (the census follows the container that gains most tensors then).
 */
import type { HolderResult } from "../../agent/agent-results.js";
import type { Context } from "../context.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase, type Phrase } from "../phrases.js";
import type { Finding } from "../types.js";

/** The layers (layer.ts) whose growth a Python container holds. */
const PYTHON_LAYERS = new Set([
  "Python objects",
  "Python objects (tracemalloc sees the growth)",
  "small Python objects (pymalloc)",
]);
const TENSOR_LAYERS = new Set(["PyTorch CPU tensors", "PyTorch autograd graphs"]);
const OF_TENSORS = /\bof (Tensor|Parameter)\b/;

/** The holder the agent found for this process, when it explains a leak in this layer. */
export function holderFor(pid: number, layer: string | undefined, ctx: Context): HolderResult | undefined {
  const holder = ctx.agentResults?.holders?.get(pid);
  if (!holder || layer === undefined) return undefined;
  if (PYTHON_LAYERS.has(layer)) return holder;
  if (TENSOR_LAYERS.has(layer) && OF_TENSORS.test(holder.container)) return holder;
  return undefined;
}

/** The finding's structured field: the chain and what the search cost the program. */
export function holderField(h: HolderResult): NonNullable<Finding["holder"]> {
  return {
    container: h.container,
    length: h.length,
    found: h.found,
    ...(h.itemsPerSecond !== undefined && { itemsPerSecond: h.itemsPerSecond }),
    ...(h.path !== undefined && { path: h.path }),
    ...(h.root !== undefined && { root: h.root }),
    ...(h.hops !== undefined && { hops: h.hops }),
    ...(h.where !== undefined && { where: h.where }),
    ...(h.why !== undefined && { why: h.why }),
    search: { levels: h.levels, calls: h.calls, objects: h.objects, ms: h.ms, longestPauseMs: h.longestMs },
  };
}

/** Which advice fits the root: a cache to bound, a graph to drop, a thread's local to clear. */
function variant(
  h: HolderResult,
  layer: string,
): "holder" | "holder-lru" | "holder-graphs" | "holder-frame" | "holder-not-found" {
  if (!h.found) return "holder-not-found";
  if (layer === "PyTorch autograd graphs") return "holder-graphs";
  if (h.hops?.some((x) => x.kind === "lru_cache")) return "holder-lru";
  if (h.root === "thread frame") return "holder-frame";
  return "holder";
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
    itemsPerSecond: h.itemsPerSecond,
    why: h.why,
  });
  // A process's general leak advice opens with how to find the holder: found, it is replaced. A worker's keeps its
  // stop-gap (recycling workers), and a search that found nothing keeps the ways to look further.
  const general = f.advice.findIndex(
    (p) => p.say === "advice.leak" && (p.facts.variant === "process" || p.facts.variant === "process-traced"),
  );
  if (h.found && general >= 0) f.advice.splice(general, 1);
  f.advice.unshift(advice);
}
