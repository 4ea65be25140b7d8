/** What the agent measured of a leak's layer (analysis/signals/layer.ts), as notes beside the leak. */
import { formatBytes } from "../../base/units.js";
import type { PhraseName } from "../../analysis/phrases.js";
import type { Wordings } from "./words.js";

const pct = (part: number, whole: number) => (part >= whole ? "all" : `${Math.round((100 * part) / whole)}%`);

/**
 * How the container's bytes stand against the headline's growth, which is usually more: the census counts each item's
 * own (shallow) size, not what the item refers to, and memory outside the container grew too.
 */
function containerShare(bytes: number, growth: number | undefined): string {
  if (growth === undefined || !(growth > 0)) return "";
  if (bytes >= growth) return ", all of the growth";
  const share = `, ${pct(bytes, growth)} of the ${formatBytes(growth)} growth`;
  // Within a tenth, the sampling's own error: no explanation owed.
  return bytes >= 0.9 * growth
    ? share
    : `${share}: the items' sizes are shallow (what they refer to is not counted), and memory outside this container grew too`;
}

export const LAYER_WORDS: Wordings<Extract<PhraseName, `layer.${string}`>> = {
  "layer.tensors": (f) =>
    `live CPU tensor storage grew ${formatBytes(f.bytes)} (${f.count >= 0 ? "+" : ""}${Math.round(f.count)} tensors)`,
  "layer.container": (f) =>
    `a ${f.what} grows (${Math.round(f.length).toLocaleString("en-US")} items now, ~${formatBytes(f.itemBytes)} each, sampled): ~${formatBytes(f.bytes)} added over the window${containerShare(f.bytes, f.growth)}`,
  "layer.pinning": (f) =>
    `a ${f.what} gains ~${f.perSecond >= 10 ? Math.round(f.perSecond) : f.perSecond.toFixed(1)} items a second (${Math.round(f.items).toLocaleString("en-US")} over the window) while malloc's in-use bytes ${f.inUse > 0 ? `grew ${formatBytes(f.inUse)}` : "did not grow"} and what it keeps free grew ${formatBytes(f.free)}: the objects kept alive pin freed memory around them, which malloc can neither reuse nor give back — keep fewer of them and the holes stop growing`,
  "layer.small-objects": (f) => `${Math.round(f.blocks)} more Python objects allocated over the window`,
  "layer.graphs": (f) =>
    `${Math.round(f.graphs)} more tensors keep a grad_fn: each keeps its autograd graph and the activations it saved (e.g. losses.append(loss) where loss.item() was meant)`,
  "layer.malloc": (f) =>
    `malloc's in-use bytes grew ${formatBytes(f.native)}: ${pct(f.native, f.growth)} of the growth${f.nearlyAll ? "" : "; the rest is memory malloc holds free, or outside malloc"}`,
  "layer.torch-tensors-grew": (f) =>
    `not PyTorch's CPU tensors: their live storage grew ${formatBytes(f.bytes)}, under a quarter of the growth`,
  "layer.torch-tensors-flat": () => "not PyTorch's CPU tensors: their live storage did not grow",
  "layer.torch-no-census": () =>
    "PyTorch is loaded and its CPU tensors live in malloc too; the agent's census did not run, so memleak cannot tell them apart",
  "layer.trace-hint": () => "--trace-python tells Python objects over 512 bytes apart from native allocations",
  "layer.other-allocator": (f) =>
    `${f.name} replaces glibc's malloc in this process: malloc's in-use and free bytes (mallinfo2) do not see its memory, so memleak makes no claim from them — neither the native-heap layer nor allocator retention (fragmentation) can be judged`,
};
