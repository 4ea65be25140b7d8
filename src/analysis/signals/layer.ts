/**
 * Which layer a leak grows in, from the agent's numbers over the same window as the leak:
 *   - Python objects: tracemalloc (with --trace-python) saw at least half of the growth;
 *   - native heap (malloc): glibc's in-use bytes grew — Python objects over 512 bytes, C extensions, and PyTorch CPU
 *     tensors (named when torch is loaded) all live there;
 *   - small Python objects (pymalloc arenas, which malloc does not see): the object count grew by more bytes than
 *     malloc did (each block is at most 512 bytes, so count × 512 bounds them from above).
 * The layer that explains more wins, if it explains at least LAYER_MIN_SHARE of the anonymous-memory growth; the
 * share is reported, because what malloc keeps free (fragmentation) grows with a leak too and is in no layer.
 */
import { formatBytes } from "../../units.js";
import { levelChange, type Assessment } from "../assess.js";
import type { Context } from "../context.js";
import type { ProcessSeries } from "../series.js";

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
/** pymalloc serves requests up to 512 bytes. */
const PYMALLOC_MAX_BLOCK = 512;


const pct = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

export function leakLayer(ps: ProcessSeries, a: Assessment, ctx: Context): { name: string; notes: string[] } | undefined {
  const growth = a.growth;
  if (!(growth > 0)) return undefined;
  const trace = ctx.agentResults?.traces.get(ps.pid);
  if (trace && trace.sites.length > 0) {
    const traced = trace.sites.reduce((s, x) => s + x.sizeDiff, 0);
    if (traced >= TRACED_SHARE * growth) return { name: "Python objects (tracemalloc sees the growth)", notes: [] };
  }
  const native = levelChange(ps.agent["malloc.inUse"], a.from) ?? 0;
  const smallObjects = Math.max(0, levelChange(ps.agent["py.allocatedBlocks"], a.from) ?? 0) * PYMALLOC_MAX_BLOCK;
  const torch = ps.agent["torch.threads"] !== undefined;
  if (native >= LAYER_MIN_SHARE * growth && native >= smallObjects) {
    const share = native / growth;
    const rest = share < NEARLY_ALL_SHARE ? "; the rest is memory malloc holds free, or outside malloc" : "";
    const notes = [`malloc's in-use bytes grew ${formatBytes(native)}: ${share > 1 ? "all" : pct(native, growth)} of the growth${rest}`];
    if (torch) notes.push("PyTorch is loaded: its CPU tensors (and the activations autograd graphs keep alive) are malloc'd, and tracemalloc does not see them");
    else if (!trace) notes.push("--trace-python tells Python objects over 512 bytes apart from native allocations");
    return { name: torch ? "native heap (malloc: PyTorch CPU tensors)" : "native heap (malloc)", notes };
  }
  if (smallObjects >= LAYER_MIN_SHARE * growth) {
    return { name: "small Python objects (pymalloc)", notes: [`${Math.round(smallObjects / PYMALLOC_MAX_BLOCK)} more Python objects allocated over the window`] };
  }
  return undefined;
}
