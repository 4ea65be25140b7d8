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

export const LAYER_MIN_SHARE = 0.25;
/** pymalloc serves requests up to 512 bytes. */
const PYMALLOC_MAX_BLOCK = 512;


const pct = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

export function leakLayer(ps: ProcessSeries, a: Assessment, ctx: Context): { name: string; notes: string[] } | undefined {
  const growth = a.growth;
  if (!(growth > 0)) return undefined;
  const trace = ctx.agentResults?.traces.get(ps.pid);
  if (trace && trace.sites.length > 0) {
    const traced = trace.sites.reduce((s, x) => s + x.sizeDiff, 0);
    if (traced >= 0.5 * growth) return { name: "Python objects (tracemalloc sees the growth)", notes: [] };
  }
  const native = levelChange(ps.agent["malloc.inUse"], a.from) ?? 0;
  const smallObjects = Math.max(0, levelChange(ps.agent["py.allocatedBlocks"], a.from) ?? 0) * PYMALLOC_MAX_BLOCK;
  const torch = ps.agent["torch.threads"] !== undefined;
  if (native >= LAYER_MIN_SHARE * growth && native >= smallObjects) {
    const share = native / growth;
    const rest = share < 0.9 ? "; the rest is memory malloc holds free, or outside malloc" : "";
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
