/** What the agent measured of a leak's layer (analysis/signals/layer.ts), as notes beside the leak. */
import { formatBytes, formatDuration } from "../../base/units.js";
import type { PhraseName } from "../../analysis/phrases.js";
import type { Wordings } from "./words.js";

const pct = (part: number, whole: number) => (part >= whole ? "all" : `${Math.round((100 * part) / whole)}%`);

/**
 * How the container's bytes stand against the headline's growth, which may be more: the items' sizes are sampled, a
 * look follows only what each item alone refers to (and without a look, only the item's own size), and memory the
 * container does not hold grew too. "Python container": in a watch of a container's process, "outside this container"
 * read as outside the Linux container.
 */
function containerShare(bytes: number, growth: number | undefined, retained: boolean): string {
  if (growth === undefined || !(growth > 0)) return "";
  if (bytes >= growth) return ", all of the growth";
  const share = `, ${pct(bytes, growth)} of the ${formatBytes(growth)} growth`;
  // Within a tenth, the sampling's own error: no explanation owed.
  if (bytes >= 0.9 * growth) return share;
  return retained
    ? `${share}: memory this Python container does not hold grew too, or is what its items share`
    : `${share}: the items' sizes are shallow (what they refer to is not counted), and memory this Python container does not hold grew too`;
}

/** Each item's size as sampled: what it keeps alive when the agent looked, beside its own size when they differ. */
function itemText(itemBytes: number, retained: number | undefined): string {
  if (retained === undefined || retained <= itemBytes) return `~${formatBytes(itemBytes)} each, sampled`;
  return `each keeping ~${formatBytes(retained)} alive (its own ${formatBytes(itemBytes)} and what only it refers to, sampled)`;
}

/** " between census walks 12 s apart: at that rate 51% of the growth", when the walks were told apart. */
function walksApart(f: { seconds?: number; share?: number }): string {
  if (f.seconds === undefined || f.share === undefined) return "";
  return ` between census walks ${formatDuration(f.seconds)} apart: at that rate ${pct(f.share, 1)} of the growth`;
}

/** "in Python objects", "in the native heap (malloc)": a kind of object takes no article, a place does. */
export function inLayer(layer: string): string {
  return /^(small )?Python objects/.test(layer) ? `in ${layer}` : `in the ${layer}`;
}

export const LAYER_WORDS: Wordings<Extract<PhraseName, `layer.${string}`>> = {
  "layer.tensors": (f) =>
    `live CPU tensor storage grew ${formatBytes(f.bytes)} (${f.count >= 0 ? "+" : ""}${Math.round(f.count)} tensors)${walksApart(f)}`,
  "layer.container": (f) =>
    `a ${f.what} grows (${Math.round(f.length).toLocaleString("en-US")} items at the last look, ${itemText(f.itemBytes, f.retained)}): ~${formatBytes(f.bytes)} added over the window${containerShare(f.bytes, f.growth, f.retained !== undefined)}`,
  "layer.pinning": (f) =>
    `${/^[aeiou]/.test(f.what) ? "an" : "a"} ${f.what} ${f.atLeast ? `of over ${Math.round(f.items).toLocaleString("en-US")} ${f.unit ?? "items"} (past what a census walk counts) stays held` : `gains ~${f.perSecond >= 10 ? Math.round(f.perSecond) : f.perSecond.toFixed(1)} ${f.unit ?? "items"} a second (${Math.round(f.items).toLocaleString("en-US")} over ${f.seconds === undefined ? "the window" : `the last ${formatDuration(f.seconds)}`})`} while malloc's in-use bytes ${f.inUse > 0 ? `grew ${formatBytes(f.inUse)}` : "did not grow"} and what it keeps free grew ${formatBytes(f.free)}: the objects kept alive pin freed memory around them, which malloc can neither reuse nor give back — keep fewer of them and the holes stop growing`,
  "layer.holder-bystander": (f) =>
    `the agent saw a ${f.container} grow${f.itemsPerSecond === undefined ? "" : ` by ~${Number(f.itemsPerSecond.toPrecision(2))} items a second`}${f.found ? `, held by ${f.path}` : ""}; what its items keep alive is not enough of the growth to explain it${f.layer ? ` (the growth is ${inLayer(f.layer)})` : ""}, so it may be a bystander`,
  "layer.small-objects": (f) => `${Math.round(f.blocks)} more Python objects allocated over the window`,
  "layer.graphs": (f) =>
    `${Math.round(f.graphs)} more tensors keep a grad_fn: each keeps its autograd graph and the activations it saved (e.g. losses.append(loss) where loss.item() was meant)`,
  "layer.graph-nodes": (f) =>
    `the autograd graphs grew by ${Math.round(f.nodes).toLocaleString("en-US")} nodes while the tensors keeping them barely did: one tensor keeps chaining each step's graph onto the last (e.g. running_loss = running_loss + loss where loss.item() was meant, or a recurrent state carried without .detach())`,
  "layer.malloc": (f) =>
    `malloc's in-use bytes grew ${formatBytes(f.native)}: ${pct(f.native, f.growth)} of the growth${f.nearlyAll ? "" : "; the rest is memory malloc holds free, or outside malloc"}`,
  "layer.torch-tensors-grew": (f) =>
    f.seconds === undefined
      ? `not PyTorch's CPU tensors: their live storage grew ${formatBytes(f.bytes)}, under a quarter of the growth`
      : `not PyTorch's CPU tensors: their live storage grew ${formatBytes(f.bytes)} between census walks ${formatDuration(f.seconds)} apart, at that rate under a quarter of the growth`,
  "layer.torch-tensors-flat": () => "not PyTorch's CPU tensors: their live storage did not grow",
  "layer.torch-one-walk": () =>
    "PyTorch is loaded and its CPU tensors live in malloc too; the agent's census walked the heap once in the window, too seldom to tell whether they grew",
  "layer.torch-no-census": () =>
    "PyTorch is loaded and its CPU tensors live in malloc too; the agent's census did not run, so memleak cannot tell them apart",
  "layer.trace-hint": () => "--trace-python tells Python objects over 512 bytes apart from native allocations",
  "layer.other-allocator": (f) =>
    `${f.name} replaces glibc's malloc in this process: malloc's in-use and free bytes (mallinfo2) do not see its memory, so memleak makes no claim from them — neither the native-heap layer nor allocator retention (fragmentation) can be judged`,
};
