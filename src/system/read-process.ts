/**
 * Reads one process: status + stat (cheap, every tick), cmdline, and smaps_rollup (costly, on demand).
 * A process that exits mid-read returns "gone"; that is normal, not an error.
 */
import { parseSmapsRollupBytes, type SmapsRollup } from "../probes/smaps-rollup.js";
import { parseStatBytes } from "../probes/stat.js";
import { parseStatusBytes } from "../probes/status.js";
import type { ProcessSample } from "./sample.js";
import type { HostFs, ReadFailure } from "./host-fs.js";
import { cpuMark, cpuMsSince } from "./cpu-time.js";

export type BasicRead =
  { ok: true; sample: ProcessSample; uids: number[] | undefined; state: string } | { ok: false; reason: ReadFailure };

export function readBasic(fs: HostFs, pid: number): BasicRead {
  // Parsed from the read buffer: neither file is decoded (both are read for every process at every tick).
  const statRead = fs.readWith(`/proc/${pid}/stat`, parseStatBytes);
  if (!statRead.ok) return { ok: false, reason: statRead.reason };
  const statusRead = fs.readWith(`/proc/${pid}/status`, parseStatusBytes);
  if (!statusRead.ok) return { ok: false, reason: statusRead.reason };
  const stat = statRead.value;
  const status = statusRead.value;
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
  // status is read after stat: a process that exited between the two reads is a zombie in status (no memory lines)
  // while stat still said it ran. Its state is status's, so the sampler skips it as the zombie it is (a `true` that
  // exited mid-read was judged with no memory figures at all, and memleak crashed: CI on f189e9d).
  return { ok: true, sample, uids: s.uids, state: s.state ?? stat.value.state };
}

/** costMs: what the read cost in CPU time, when it was timed. */
export type SmapsRead =
  { ok: true; rollup: SmapsRollup; costMs: number | undefined } | { ok: false; reason: ReadFailure };

/**
 * Reads and parses a file (HostFs.readWith) and, when `timed`, says what the read cost this process in CPU time (ms):
 * what the smaps budget is charged.
 */
export function readCharged<T>(
  fs: HostFs,
  path: string,
  parse: (bytes: Buffer) => T,
  timed = true,
): { r: ReturnType<typeof fs.readWith<T>>; costMs: number | undefined } {
  if (!timed) return { r: fs.readWith(path, parse), costMs: undefined };
  const started = cpuMark();
  const r = fs.readWith(path, parse);
  return { r, costMs: cpuMsSince(started) };
}

/**
 * Reads one smaps_rollup and, when `timed`, says what it cost in CPU time (user + system of this process), not wall time: the
 * budget is a share of one core, and on a busy machine the wall time of a read includes the time memleak waited to be
 * scheduled, which charged 2-3x the real cost and starved PSS/USS freshness exactly when the machine was loaded.
 */
export function readSmaps(fs: HostFs, pid: number, timed = true): SmapsRead {
  const { r, costMs } = readCharged(fs, `/proc/${pid}/smaps_rollup`, parseSmapsRollupBytes, timed);
  if (!r.ok) return { ok: false, reason: r.reason };
  // An empty smaps_rollup is what a kernel thread or a zombie gives: nothing mapped.
  const parsed = r.value;
  if (!parsed.ok) return { ok: false, reason: "missing" };
  return { ok: true, rollup: parsed.value, costMs };
}

/**
 * Adds the smaps numbers a recording keeps to a sample, in place: the sample is this tick's own, made by readBasic
 * (a copy per process per read was the largest single item of the tick's JavaScript on 64 processes).
 */
export function addSmaps(sample: ProcessSample, r: SmapsRollup): ProcessSample {
  sample.pss = r.pss;
  if (r.uss !== undefined) sample.uss = r.uss;
  if (r.pssAnon !== undefined) sample.pssAnon = r.pssAnon;
  if (r.sharedClean !== undefined) sample.sharedClean = r.sharedClean;
  if (r.sharedDirty !== undefined) sample.sharedDirty = r.sharedDirty;
  return sample;
}

/** The command line, NUL-separated in /proc; empty for kernel threads and zombies. */
export function readCmdline(fs: HostFs, pid: number): string[] | undefined {
  const text = fs.readOptional(`/proc/${pid}/cmdline`);
  if (text === undefined) return undefined;
  const args = text.split("\0");
  if (args[args.length - 1] === "") args.pop();
  return args;
}
