/**
 * /proc/PID/stat. The command name sits between the first "(" and the LAST ")": a process may call itself "a) b",
 * so splitting on the first ")" (as pidusage does) misreads every field after it.
 * Field numbers below are those of proc(5), counting pid as field 1.
 */
import { fail, ok, parseBigCount, parseCount, type Parsed } from "./parsed.js";

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  /** Clock ticks. */
  utime: number;
  stime: number;
  numThreads: number;
  /** Clock ticks since boot at which the process started: with pid, it names one process across PID reuse. */
  starttime: number;
  /** Resident pages (field 24). */
  rssPages: number;
}

const SOURCE = "/proc/PID/stat";

const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13;

/** The first `count` whitespace-separated words of text from `from` on. */
function leadingWords(text: string, from: number, count: number): string[] {
  const words: string[] = [];
  let i = from;
  while (words.length < count) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (i >= text.length) break;
    const start = i;
    while (i < text.length && !isSpace(text.charCodeAt(i))) i++;
    words.push(text.slice(start, i));
  }
  return words;
}

export function parseStat(text: string): Parsed<ProcStat> {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return fail(SOURCE, "no (comm) in stat line");
  const pid = parseCount(text.slice(0, open));
  if (pid === undefined) return fail(SOURCE, "stat line does not start with a pid");
  const comm = text.slice(open + 1, close);
  // rest[0] is field 3 (state). Only fields 3..24 are cut out: the line has 52, and this runs for every process at
  // every tick.
  const rest = leadingWords(text, close + 1, 22);
  // Fewer than 22 words: leadingWords took them all, so rest.length is the line's count after the comm.
  if (rest.length < 22) return fail(SOURCE, `stat line has ${rest.length + 2} fields, expected at least 24`);
  const field = (n: number) => rest[n - 3]!;
  const nums = {
    ppid: parseCount(field(4)),
    utime: parseBigCount(field(14)),
    stime: parseBigCount(field(15)),
    numThreads: parseCount(field(20)),
    starttime: parseBigCount(field(22)),
    rssPages: parseBigCount(field(24)),
  };
  for (const [key, value] of Object.entries(nums)) {
    if (value === undefined) return fail(SOURCE, `field ${key} is not a number`);
  }
  return ok({
    pid,
    comm,
    state: field(3),
    ppid: nums.ppid!,
    utime: nums.utime!,
    stime: nums.stime!,
    numThreads: nums.numThreads!,
    starttime: nums.starttime!,
    rssPages: nums.rssPages!,
  });
}
