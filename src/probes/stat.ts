/**
 * /proc/PID/stat. The command name sits between the first "(" and the LAST ")": a process may call itself "a) b",
 * so splitting on the first ")" (as pidusage does) misreads every field after it.
 * Field numbers below are those of proc(5), counting pid as field 1.
 */
import { digitsAt, exactCountAt, isBlank } from "./colon-bytes.js";
import { fail, ok, type Parsed } from "./parsed.js";

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
/** A field as parsed.ts parseCount/parseBigCount read it: trimmed, then 1 to 20 digits. */
function countIn(bytes: Uint8Array, start: number, end: number, exact: boolean): number | undefined {
  // Padded with what String.prototype.trim removes (stat's separators are fewer, so a word may keep \v or \f).
  while (start < end && isBlank(bytes[start])) start++;
  while (end > start && isBlank(bytes[end - 1])) end--;
  return exact ? exactCountAt(bytes, start, end) : digitsAt(bytes, start, end);
}

/** One-letter states are most of them: no decoder call for those. */
const text = (bytes: Buffer, start: number, end: number) =>
  end === start + 1 && bytes[start]! < 128 ? String.fromCharCode(bytes[start]!) : bytes.toString("utf8", start, end);

type NumericField = "ppid" | "utime" | "stime" | "numThreads" | "starttime" | "rssPages";
/** The numbers read, their field numbers in proc(5), and whether each must be exact (under 2^53), in checking order. */
const NUMERIC_FIELDS: [NumericField, number, boolean][] = [
  ["ppid", 4, true],
  ["utime", 14, false],
  ["stime", 15, false],
  ["numThreads", 20, true],
  ["starttime", 22, false],
  ["rssPages", 24, false],
];

/** Fields 3..24: where each starts and ends in the line being parsed (reused: parsing is synchronous). */
const WORDS = 22;
const starts = new Int32Array(WORDS);
const ends = new Int32Array(WORDS);

/**
 * Parses a stat file's bytes: from the sampler's read buffer, undecoded (it is read for every
 * process at every tick). Only fields 3..24 are cut out: the line has 52.
 */
export function parseStatBytes(bytes: Buffer): Parsed<ProcStat> {
  const length = bytes.length;
  const open = bytes.indexOf(40);
  const close = bytes.lastIndexOf(41);
  if (open < 0 || close < open) return fail(SOURCE, "no (comm) in stat line");
  const pid = countIn(bytes, 0, open, true);
  if (pid === undefined) return fail(SOURCE, "stat line does not start with a pid");
  // Word n (0-based) after the comm is field n + 3.
  let words = 0;
  let i = close + 1;
  while (words < WORDS) {
    while (i < length && isSpace(bytes[i]!)) i++;
    if (i >= length) break;
    starts[words] = i;
    while (i < length && !isSpace(bytes[i]!)) i++;
    ends[words++] = i;
  }
  // Fewer than 22 words: the loop took them all, so their count is the line's after the comm.
  if (words < WORDS) return fail(SOURCE, `stat line has ${words + 2} fields, expected at least 24`);
  const nums: Partial<Record<NumericField, number>> = {};
  for (const [name, n, exact] of NUMERIC_FIELDS) {
    const value = countIn(bytes, starts[n - 3]!, ends[n - 3]!, exact);
    if (value === undefined) return fail(SOURCE, `field ${name} is not a number`);
    nums[name] = value;
  }
  return ok({
    pid,
    comm: text(bytes, open + 1, close),
    state: text(bytes, starts[0]!, ends[0]!),
    ...(nums as Record<NumericField, number>),
  });
}

export function parseStat(line: string): Parsed<ProcStat> {
  return parseStatBytes(Buffer.from(line, "utf8"));
}
