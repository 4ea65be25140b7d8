/**
 * One full reading of a process tree and its memory cgroup: every process gets a smaps_rollup read (no budget — it
 * is one reading). Used by `memleak snapshot`, and as the first reading of watch/run.
 */
import type { CgroupSample, ProcessSample } from "../system/sample.js";
import { locateMemoryCgroup, type CgroupLocation } from "../system/cgroup-locate.js";
import type { HostFs } from "../system/host-fs.js";
import { processTree } from "../system/process-tree.js";
import { readCgroup } from "../system/read-cgroup.js";
import { addSmaps, readBasic, readCmdline, readSmaps } from "../system/read-process.js";

export interface SnapshotProcess extends ProcessSample {
  cmdline?: string[];
  /** uid that owns the process (real uid). */
  uid?: number;
  /** Why PSS/USS are missing, when they are. */
  smapsUnavailable?: "denied" | "missing";
  /** Off Linux only (pidusage): CPU use in percent of one core. */
  cpuPercent?: number;
}

export type Totals = Partial<Record<"rss" | "pss" | "uss" | "anon" | "file" | "shmem" | "swap" | "threads", number>>;

export interface SnapshotCgroup {
  location?: CgroupLocation;
  reading?: CgroupSample;
  /** limit − working set: what is left before the OOM killer or a Kubernetes eviction. */
  headroom?: number;
  error?: string;
}

export interface Snapshot {
  schema: "memleak.snapshot/1";
  t: number;
  targetPid: number;
  platform: string;
  /** What this reading could not include, in words. */
  warnings: string[];
  processes: SnapshotProcess[];
  /** Sums over the tree. A metric missing for any process is missing from the total (not summed partially). */
  totals: Totals;
  cgroup: SnapshotCgroup;
}

const TOTAL_KEYS = ["rss", "pss", "uss", "anon", "file", "shmem", "swap", "threads"] as const;

export function sumTotals(processes: ProcessSample[]): Totals {
  const totals: Totals = {};
  for (const key of TOTAL_KEYS) {
    let sum = 0;
    let complete = processes.length > 0;
    for (const p of processes) {
      const v = p[key];
      if (v === undefined) complete = false;
      else sum += v;
    }
    if (complete) totals[key] = sum;
  }
  return totals;
}

export function readCgroupSnapshot(fs: HostFs, pid: number): SnapshotCgroup {
  const loc = locateMemoryCgroup(fs, pid);
  if (!loc.ok) return { error: loc.reason };
  const reading = readCgroup(fs, loc.location);
  const out: SnapshotCgroup = { location: loc.location, reading };
  if (reading.limit != null && reading.workingSet !== undefined) out.headroom = reading.limit - reading.workingSet;
  return out;
}

/**
 * @param self memleak's own PID, left out of the tree: `memleak snapshot $$` from a shell would otherwise count the
 * Node process reading it (54.6 of a 63.3 MiB tree), which is not the user's memory. The root itself is always read.
 */
export function takeSnapshot(fs: HostFs, rootPid: number, now = Date.now(), self?: number): Snapshot {
  const warnings: string[] = [];
  const processes: SnapshotProcess[] = [];
  for (const node of processTree(fs, rootPid)) {
    if (node.pid === self && node.pid !== rootPid) continue;
    const basic = readBasic(fs, node.pid);
    if (!basic.ok) continue; // exited between the walk and the read
    const p: SnapshotProcess = { ...basic.sample };
    const uid = basic.uids?.[0];
    if (uid !== undefined) p.uid = uid;
    const cmdline = readCmdline(fs, node.pid);
    if (cmdline !== undefined) p.cmdline = cmdline;
    const smaps = readSmaps(fs, node.pid);
    if (smaps.ok) addSmaps(p, smaps.rollup);
    else p.smapsUnavailable = smaps.reason === "denied" ? "denied" : "missing";
    processes.push(p);
  }
  const denied = processes.filter((p) => p.smapsUnavailable === "denied");
  if (denied.length > 0) {
    const owners = [...new Set(denied.map((p) => p.uid))].join(", ");
    warnings.push(
      `PSS and USS unavailable for PID ${denied.map((p) => p.pid).join(", ")} (owned by uid ${owners}): ` +
        "reading /proc/PID/smaps_rollup needs the same uid as the process or CAP_SYS_PTRACE (e.g. sudo)",
    );
  }
  const cgroup = readCgroupSnapshot(fs, rootPid);
  if (cgroup.error) warnings.push(`no memory cgroup: ${cgroup.error}; showing the processes only`);
  return {
    schema: "memleak.snapshot/1",
    t: now,
    targetPid: rootPid,
    platform: "linux",
    warnings,
    processes,
    totals: sumTotals(processes),
    cgroup,
  };
}
