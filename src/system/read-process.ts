/**
 * Reads one process: status + stat (cheap, every tick), cmdline, and smaps_rollup (costly, on demand).
 * A process that exits mid-read returns "gone"; that is normal, not an error.
 */
import { parseSmapsRollup, type SmapsRollup } from "../probes/smaps-rollup.js";
import { parseStat } from "../probes/stat.js";
import { parseStatus } from "../probes/status.js";
import type { ProcessSample } from "../sample.js";
import type { HostFs, ReadFailure } from "./host-fs.js";
import { cpuMark, cpuMsSince } from "../cpu-time.js";

export type BasicRead =
  | { ok: true; sample: ProcessSample; uids: number[] | undefined; state: string }
  | { ok: false; reason: ReadFailure };

export function readBasic(fs: HostFs, pid: number): BasicRead {
  const statText = fs.read(`/proc/${pid}/stat`);
  if (!statText.ok) return { ok: false, reason: statText.reason };
  const statusText = fs.read(`/proc/${pid}/status`);
  if (!statusText.ok) return { ok: false, reason: statusText.reason };
  const stat = parseStat(statText.text);
  const status = parseStatus(statusText.text);
  // A half-written file from a dying process parses as an error: treat it as gone.
  if (!stat.ok || !status.ok) return { ok: false, reason: "missing" };
  const s = status.value;
  const sample: ProcessSample = {
    pid,
    ppid: stat.value.ppid,
    starttime: stat.value.starttime,
    comm: stat.value.comm,
    cpuTicks: stat.value.utime + stat.value.stime,
  };
  if (s.vmRss !== undefined) sample.rss = s.vmRss;
  if (s.rssAnon !== undefined) sample.anon = s.rssAnon;
  if (s.rssFile !== undefined) sample.file = s.rssFile;
  if (s.rssShmem !== undefined) sample.shmem = s.rssShmem;
  if (s.vmSwap !== undefined) sample.swap = s.vmSwap;
  if (s.vmHwm !== undefined) sample.hwm = s.vmHwm;
  const threads = s.threads ?? stat.value.numThreads;
  sample.threads = threads;
  return { ok: true, sample, uids: s.uids, state: stat.value.state };
}

/** costMs: what the read cost in CPU time, when it was timed. */
export type SmapsRead = { ok: true; rollup: SmapsRollup; costMs: number | undefined } | { ok: false; reason: ReadFailure };

/** Reads a file and says what the read cost this process in CPU time (ms): what the smaps budget is charged. */
export function readCharged(fs: HostFs, path: string): { r: ReturnType<HostFs["read"]>; costMs: number } {
  const started = cpuMark();
  const r = fs.read(path);
  return { r, costMs: cpuMsSince(started) };
}

/**
 * Reads one smaps_rollup and, when `timed`, says what it cost in CPU time (user + system of this process), not wall time: the
 * budget is a share of one core, and on a busy machine the wall time of a read includes the time memleak waited to be
 * scheduled, which charged 2-3x the real cost and starved PSS/USS freshness exactly when the machine was loaded.
 */
export function readSmaps(fs: HostFs, pid: number, timed = true): SmapsRead {
  const path = `/proc/${pid}/smaps_rollup`;
  const { r, costMs } = timed ? readCharged(fs, path) : { r: fs.read(path), costMs: undefined };
  if (!r.ok) return { ok: false, reason: r.reason };
  // An empty smaps_rollup is what a kernel thread or a zombie gives: nothing mapped.
  const parsed = parseSmapsRollup(r.text);
  if (!parsed.ok) return { ok: false, reason: "missing" };
  return { ok: true, rollup: parsed.value, costMs };
}

/** Copies the smaps numbers a recording keeps onto a sample. */
export function withSmaps(sample: ProcessSample, r: SmapsRollup): ProcessSample {
  const out: ProcessSample = { ...sample, pss: r.pss };
  if (r.uss !== undefined) out.uss = r.uss;
  if (r.pssAnon !== undefined) out.pssAnon = r.pssAnon;
  if (r.sharedClean !== undefined) out.sharedClean = r.sharedClean;
  if (r.sharedDirty !== undefined) out.sharedDirty = r.sharedDirty;
  return out;
}

/** The command line, NUL-separated in /proc; empty for kernel threads and zombies. */
export function readCmdline(fs: HostFs, pid: number): string[] | undefined {
  const text = fs.readOptional(`/proc/${pid}/cmdline`);
  if (text === undefined) return undefined;
  const args = text.split("\0");
  if (args[args.length - 1] === "") args.pop();
  return args;
}
