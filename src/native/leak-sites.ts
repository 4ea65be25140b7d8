/**
 * Which of heaptrack's never-freed stacks to claim as a leak. Everything a process still holds when it exits counts
 * as "leaked" to heaptrack, and a Python process holds plenty that is no leak: the interpreter's arenas and interned
 * objects, the C library's locale tables, and whatever an extension module set up once at import (torch's operator
 * registry: ~1 MB over hundreds of stacks). So a stack is claimed only when
 *  - it reaches code other than the C library, the C++ runtime and the interpreter (its *site*: the extension's own
 *    function, or a ctypes/cffi call through libffi), and
 *  - its never-freed allocations grew after the cut (the end of warm-up), and were still growing late in the
 *    process's life (from three quarters to nine tenths of it, and after): memory allocated once at start-up and
 *    kept is not a leak (however long the start-up took), memory that keeps being allocated and never freed is.
 * Stacks are grouped by their native part (allocator's caller up to the site): the interpreter frames above differ
 * with every Python line that called in, and would split one leak into many. Pure.
 */
import type { NativeFrame, NativeLeakStack } from "./native-trace.js";
import type { LeakBlock } from "./heaptrack-leaks.js";

/** The C library, the C++ runtime, the unwinder and heaptrack itself: where every allocation passes. */
const PLUMBING =
  /^(libc\.so|libc-|ld-linux|ld64\.so|libm\.so|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libunwind|libheaptrack)/;
/** CPython: the executable, libpython, and the standard library's own extension modules. */
const INTERPRETER = /^(python\d[\d.]*[a-z]*|libpython\d)/;
const FFI = /^libffi\./;

const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** The C library's or CPython's own code: nothing a user can fix, so never a leak's site. */
export function isRuntimeFrame(f: NativeFrame): boolean {
  // A frame heaptrack could not place in any library is not claimed either: there is nothing to name.
  if (f.module === undefined) return true;
  const name = basename(f.module);
  return PLUMBING.test(name) || INTERPRETER.test(name) || f.module.includes("/lib-dynload/");
}

/** Index of the first frame outside the runtime, from the allocator's caller outwards; -1 when there is none. */
export function siteIndex(frames: NativeFrame[]): number {
  return frames.findIndex((f) => !isRuntimeFrame(f));
}

const frameKey = (f: NativeFrame) => `${f.function}\u0000${f.module ?? ""}\u0000${f.file ?? ""}\u0000${f.line ?? ""}`;

/** A group of stacks that share their native part. */
export interface SiteGroup {
  key: string;
  bytes: number;
  count: number;
  /** The stack with the most bytes in the group: the one shown. */
  frames: NativeFrame[];
  site: number;
  topBytes: number;
}

/** Groups the blocks that have a site by their frames up to it; the rest is the runtime's. */
export function groupBySite(blocks: LeakBlock[]): { groups: Map<string, SiteGroup>; runtimeBytes: number } {
  const groups = new Map<string, SiteGroup>();
  let runtimeBytes = 0;
  for (const b of blocks) {
    const site = siteIndex(b.frames);
    if (site < 0) {
      runtimeBytes += b.bytes;
      continue;
    }
    const key = b.frames
      .slice(0, site + 1)
      .map(frameKey)
      .join("\u0001");
    const g = groups.get(key);
    if (!g) groups.set(key, { key, bytes: b.bytes, count: b.count, frames: b.frames, site, topBytes: b.bytes });
    else {
      g.bytes += b.bytes;
      g.count += b.count;
      if (b.bytes > g.topBytes) Object.assign(g, { frames: b.frames, site, topBytes: b.bytes });
    }
  }
  return { groups, runtimeBytes };
}

/** Never-freed bytes at each late cut, then at exit: each more than the one before. */
function grewInEachStretch(g: SiteGroup, late: Map<string, SiteGroup>[]): boolean {
  const held = [...late.map((groups) => groups.get(g.key)?.bytes ?? 0), g.bytes];
  return held.every((b, i) => i === 0 || b > held[i - 1]!);
}

/** Callers shown past the site's library: enough to see what called into it, not the whole interpreter. */
const CALLERS_SHOWN = 2;
/** Frames of the site's own library shown at most (C++ templates inlined into it can run deep). */
const LIBRARY_FRAMES_SHOWN = 16;

/** The index of the last frame, from the site outwards, still in the site's library: the function that was called in. */
function libraryEnd(frames: NativeFrame[], site: number): number {
  let end = site;
  while (
    end + 1 < frames.length &&
    end + 1 < site + LIBRARY_FRAMES_SHOWN &&
    frames[end + 1]!.module === frames[site]!.module
  )
    end++;
  return end;
}

export interface ClaimInput {
  pid: number;
  command: string;
  /** Never freed at exit. */
  atExit: LeakBlock[];
  /** Never freed at the cut (heaptrack_print on the data up to it); empty when the cut is at the start. */
  atCut: LeakBlock[];
  /**
   * Never freed at each late cut, in order (trace-clock.ts LATE_FRACTIONS); the group must grow after each, up to the
   * next one or exit. Empty: not checked (a trace without a clock).
   */
  atLate?: LeakBlock[][] | undefined;
}

/**
 * The stacks whose never-freed bytes grew between the cut and exit, called at least twice since (one block allocated
 * late and kept is not a trend), and whose never-freed bytes grew again between each late cut and the next (or exit).
 * heaptrack's count is of calls, freed or not ("leaked over N calls"): a loop that allocates a tensor and drops it
 * calls often and holds one; only the bytes say what stayed.
 */
export function claimLeaks(input: ClaimInput): NativeLeakStack[] {
  const end = groupBySite(input.atExit).groups;
  const before = groupBySite(input.atCut).groups;
  const late = (input.atLate ?? []).map((blocks) => groupBySite(blocks).groups);
  const out: NativeLeakStack[] = [];
  for (const g of end.values()) {
    const b = before.get(g.key);
    const bytes = g.bytes - (b?.bytes ?? 0);
    const count = g.count - (b?.count ?? 0);
    if (bytes <= 0 || count < 2) continue;
    if (!grewInEachStretch(g, late)) continue;
    const site = g.frames[g.site]!;
    // The whole run of the library's own frames (a C++ leak's std::vector internals, then the function that made it),
    // then a couple of callers.
    const shown = g.frames.slice(0, libraryEnd(g.frames, g.site) + 1 + CALLERS_SHOWN);
    out.push({
      pid: input.pid,
      command: input.command,
      bytes,
      count,
      site,
      ...(FFI.test(basename(site.module ?? "")) && { viaFfi: true }),
      frames: shown,
      framesLeftOut: g.frames.length - shown.length,
    });
  }
  return out.sort((x, y) => y.bytes - x.bytes);
}
