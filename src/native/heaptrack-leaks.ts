/**
 * Reads `heaptrack_print --print-leaks 1 --merge-backtraces 0` (heaptrack 1.4): after a "MEMORY LEAKS" heading, one
 * block per call stack —
 *
 *   19.20M leaked over 293 calls from
 *     leaky_fn
 *       at /tmp/leaky.c:6
 *       in /tmp/leaky.cpython-311-x86_64-linux-gnu.so
 *     _PyEval_EvalFrameDefault
 *   …
 *
 * Frames run from the allocator's caller outwards. A frame's "in <library>" line is printed only for the frame at an
 * instruction address; the frames inlined into it follow without one and are in the same library. Sizes are
 * heaptrack's own formatting: decimal units (K = 1000), two decimals. Pure: text in, stacks out.
 */
import type { NativeFrame } from "./native-trace.js";

export interface LeakBlock {
  bytes: number;
  count: number;
  frames: NativeFrame[];
}

export interface HeaptrackLeaks {
  /** "Debuggee command was: …" */
  command?: string;
  blocks: LeakBlock[];
  /** "total memory leaked: …": every block's bytes, including those past --peak-limit. */
  totalLeaked?: number;
}

const TOTAL = /^total memory leaked: (\d+(?:\.\d+)?)([BKMGTPE])$/;
const HEAD = /^(\d+(?:\.\d+)?)([BKMGTPE]) leaked over (\d+) calls from:?$/;
const UNIT: Record<string, number> = { B: 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** heaptrack's "262.14K" → 262140 (it printed no more than that). */
export function heaptrackBytes(value: string, unit: string): number {
  return Math.round(Number(value) * UNIT[unit]!);
}

export function parseHeaptrackLeaks(text: string): HeaptrackLeaks {
  const lines = text.split("\n");
  const out: HeaptrackLeaks = { blocks: [] };
  let block: LeakBlock | undefined;
  let inLeaks = false;
  // The library of the last frame that named one: the frames inlined into it follow without an "in" line.
  let module: string | undefined;
  for (const raw of lines) {
    const line = raw.replace(/\r$/, "");
    if (line.startsWith("Debuggee command was: ")) out.command = line.slice("Debuggee command was: ".length);
    const total = TOTAL.exec(line);
    if (total) out.totalLeaked = heaptrackBytes(total[1]!, total[2]!);
    if (line === "MEMORY LEAKS") {
      inLeaks = true;
      continue;
    }
    if (!inLeaks) continue;
    const head = HEAD.exec(line);
    if (head) {
      block = { bytes: heaptrackBytes(head[1]!, head[2]!), count: Number(head[3]), frames: [] };
      out.blocks.push(block);
      module = undefined;
      continue;
    }
    // Anything unindented after the list (a blank line between blocks, then the totals) ends the current block.
    if (!line.startsWith("  ")) {
      block = undefined;
      // Another section's heading (MOST CALLS TO ALLOCATION FUNCTIONS, …) ends the list.
      if (/^[A-Z][A-Z ]+$/.test(line)) inLeaks = false;
      continue;
    }
    if (!block) continue;
    const detail = line.trimStart();
    const indent = line.length - detail.length;
    const last = block.frames[block.frames.length - 1];
    if (indent >= 4 && last && detail.startsWith("at ")) {
      const at = /^at (.*):(\d+)$/.exec(detail);
      if (at) {
        last.file = at[1]!;
        last.line = Number(at[2]);
      } else last.file = detail.slice(3);
    } else if (indent >= 4 && last && detail.startsWith("in ")) {
      module = detail.slice(3);
      last.module = module;
    } else {
      // A new frame: it inherits the library named last, until its own "in" line says otherwise.
      block.frames.push({ function: detail, ...(module !== undefined && { module }) });
    }
  }
  return out;
}
