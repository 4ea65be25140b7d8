/**
 * /proc/PID/status: world-readable, cheap (~20 µs), read every tick.
 * VmRSS = RssAnon + RssFile + RssShmem on kernels ≥ 4.5; older kernels have no Rss* split (those stay undefined).
 * Parsed from the file's bytes (colon-bytes.ts): the sampler hands over its read buffer, so the file is never decoded.
 */
import { exactCountAt, isBlank, KeyTable, scanColonLines } from "./colon-bytes.js";
import { fail, ok, type Parsed } from "./parsed.js";

export interface ProcStatus {
  name: string;
  pid: number;
  /** The state letter ("S", "R", "Z" …): read after stat, it is the newer of the two (read-process.ts). */
  state: string | undefined;
  ppid: number | undefined;
  /** Real, effective, saved, filesystem uid. */
  uids: number[] | undefined;
  vmRss: number | undefined;
  vmHwm: number | undefined;
  rssAnon: number | undefined;
  rssFile: number | undefined;
  rssShmem: number | undefined;
  vmSwap: number | undefined;
  threads: number | undefined;
}

const SOURCE = "/proc/PID/status";

/** The lines memleak uses; the rest of the file is not even looked at past its key. */
const KEYS = new KeyTable([
  "Name",
  "State",
  "Pid",
  "PPid",
  "Uid",
  "VmRSS",
  "VmHWM",
  "RssAnon",
  "RssFile",
  "RssShmem",
  "VmSwap",
  "Threads",
]);
const enum K {
  Name,
  State,
  Pid,
  PPid,
  Uid,
  VmRSS,
  VmHWM,
  RssAnon,
  RssFile,
  RssShmem,
  VmSwap,
  Threads,
}

/** The blank-separated counts of a Uid line; undefined if there are none or any is not a count. */
function uidsAt(bytes: Uint8Array, start: number, end: number): number[] | undefined {
  const uids: number[] = [];
  let i = start;
  while (i < end) {
    let j = i;
    while (j < end && !isBlank(bytes[j])) j++;
    const uid = exactCountAt(bytes, i, j);
    if (uid === undefined) return undefined;
    uids.push(uid);
    i = j;
    while (i < end && isBlank(bytes[i])) i++;
  }
  return uids.length > 0 ? uids : undefined;
}

/** "Z (zombie)": the letter alone, as stat gives it; undefined where the line does not start with an ASCII letter. */
function stateLetterAt(bytes: Uint8Array, start: number): string | undefined {
  const b = bytes[start] ?? 0;
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) ? String.fromCharCode(b) : undefined;
}

/** Parses a status file's bytes. */
export function parseStatusBytes(bytes: Buffer): Parsed<ProcStatus> {
  scanColonLines(bytes, KEYS);
  const { starts, ends } = KEYS;
  const count = (k: K) => (starts[k]! < 0 ? undefined : exactCountAt(bytes, starts[k]!, ends[k]!));
  const pid = count(K.Pid);
  if (starts[K.Name]! < 0 || pid === undefined)
    return fail(SOURCE, "no Name/Pid lines: not a status file, or truncated");
  return ok({
    name: bytes.toString("utf8", starts[K.Name], ends[K.Name]),
    pid,
    state: starts[K.State]! < 0 ? undefined : stateLetterAt(bytes, starts[K.State]!),
    ppid: count(K.PPid),
    uids: starts[K.Uid]! < 0 ? undefined : uidsAt(bytes, starts[K.Uid]!, ends[K.Uid]!),
    vmRss: KEYS.kib(bytes, K.VmRSS),
    vmHwm: KEYS.kib(bytes, K.VmHWM),
    rssAnon: KEYS.kib(bytes, K.RssAnon),
    rssFile: KEYS.kib(bytes, K.RssFile),
    rssShmem: KEYS.kib(bytes, K.RssShmem),
    vmSwap: KEYS.kib(bytes, K.VmSwap),
    threads: count(K.Threads),
  });
}

export function parseStatus(text: string): Parsed<ProcStatus> {
  return parseStatusBytes(Buffer.from(text, "utf8"));
}
