/**
 * Where to cut an interpreted heaptrack file (heaptrack_interpret's output) so that heaptrack_print on the part
 * before the cut says what was never freed *at that moment*. heaptrack writes a clock line, `c <ms since the process
 * started, hex>`, every 10 ms of the run (more often under load, never less); everything a later line refers to
 * (strings, frames, traces) is defined before it, so any prefix ending before a clock line is a file heaptrack_print
 * reads like a trace that stopped there.
 */
import { closeSync, openSync, readSync } from "node:fs";

export interface ClockMark {
  /** Byte offset of the clock line. */
  offset: number;
  ms: number;
}

/** The clock lines in one chunk of the file, `base` being the chunk's offset; `atLineStart` if the chunk starts a line. */
export function clockMarksIn(
  chunk: Buffer,
  base: number,
  atLineStart: boolean,
): { marks: ClockMark[]; endsAtLineStart: boolean } {
  const marks: ClockMark[] = [];
  let start = atLineStart ? 0 : chunk.indexOf(10) + 1;
  if (!atLineStart && start === 0) return { marks, endsAtLineStart: false };
  while (start < chunk.length) {
    const nl = chunk.indexOf(10, start);
    // A clock line without its newline is the end of a trace cut short (a killed process): left out.
    if (nl < 0) return { marks, endsAtLineStart: false };
    if (chunk[start] === 0x63 /* c */ && chunk[start + 1] === 0x20) {
      const ms = parseInt(chunk.toString("latin1", start + 2, nl), 16);
      if (Number.isFinite(ms)) marks.push({ offset: base + start, ms });
    }
    start = nl + 1;
  }
  return { marks, endsAtLineStart: true };
}

const CHUNK = 4 << 20;

/** Every clock line of the file, in order. Read in chunks; a line split between two is read whole from the second. */
export function readClock(path: string): ClockMark[] {
  const fd = openSync(path, "r");
  try {
    const marks: ClockMark[] = [];
    const buf = Buffer.allocUnsafe(CHUNK);
    let pos = 0;
    let atLineStart = true;
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
      if (n === 0) return marks;
      const chunk = buf.subarray(0, n);
      const lastNl = chunk.lastIndexOf(10);
      // Only whole lines are scanned; the tail after the last newline is read again at the next position.
      const whole = n < CHUNK || lastNl < 0 ? chunk : chunk.subarray(0, lastNl + 1);
      marks.push(...clockMarksIn(whole, pos, atLineStart).marks);
      if (whole.length === 0) return marks;
      pos += whole.length;
      atLineStart = whole[whole.length - 1] === 10;
      if (n < CHUNK) return marks;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The late cuts: at three quarters and nine tenths of the process's traced life. A leak is still growing in both
 * stretches after them; an extension's import is over by then, however long it took (torch's takes many seconds
 * under heaptrack, past any warm-up memleak can judge from memory alone).
 */
export const LATE_FRACTIONS = [0.75, 0.9] as const;

export function cutAt(marks: ClockMark[], fraction: number): { offset: number; ms: number } | undefined {
  const last = marks[marks.length - 1];
  if (!last) return undefined;
  const mark = marks.find((m) => m.ms >= last.ms * fraction);
  return mark && { offset: mark.offset, ms: mark.ms };
}

/**
 * The cut for one process: the end of warm-up on its own clock, but at least a fifth of its traced life (imports and
 * set-up happen first, in every process, whatever memleak judged the warm-up) and at most half of it (a process
 * has a second half to grow in). 0 when the file has no clock yet: nothing is cut.
 */
export function chooseCut(marks: ClockMark[], warmupMs: number): { offset: number; ms: number } | undefined {
  const last = marks[marks.length - 1];
  if (!last) return undefined;
  const at = Math.min(Math.max(warmupMs, last.ms * 0.2), last.ms * 0.5);
  const mark = marks.find((m) => m.ms >= at);
  return mark && { offset: mark.offset, ms: mark.ms };
}
