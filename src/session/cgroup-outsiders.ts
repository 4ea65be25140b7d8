/**
 * Processes in the watched cgroup that are neither in the sampled tree nor memleak: they count towards the cgroup's
 * memory, so the verdict says who they are and how much they grew. Only those there at the first and at the last
 * tick count: a short-lived helper (pyenv's) is noise.
 */
import { processKey } from "../sampling/process-key.js";
import type { Sample } from "../system/sample.js";
import { cgroupMembers } from "../system/cgroup-members.js";
import type { HostFs } from "../system/host-fs.js";
import { readBasic } from "../system/read-process.js";

/** How much the outsiders present at both ends grew; undefined when none could be read twice. */
export function anonGrowth(first: Map<string, number>, last: Map<string, number>): number | undefined {
  let sum: number | undefined;
  for (const [key, end] of last) {
    const start = first.get(key);
    if (start !== undefined) sum = (sum ?? 0) + end - start;
  }
  return sum;
}

export class CgroupOutsiders {
  /** At the first tick; after the last, only those still there. */
  pids: number[] = [];
  /** Known after the last tick only. */
  anonGrowth: number | undefined;
  private anonAtStart = new Map<string, number>();

  /** @param ownPid memleak's own: it is often in the cgroup it reads, and is no outsider */
  constructor(
    private readonly fs: HostFs,
    private readonly dir: string,
    private readonly ownPid: number,
  ) {}

  first(sample: Sample): void {
    this.pids = this.find(sample);
    this.anonAtStart = this.anonOf(this.pids);
  }

  /** Keeps those still there at the last sample and measures their growth; false when there were none to begin with. */
  last(sample: Sample): boolean {
    if (this.pids.length === 0) return false;
    const still = new Set(this.find(sample));
    this.pids = this.pids.filter((pid) => still.has(pid));
    this.anonGrowth = anonGrowth(this.anonAtStart, this.anonOf(this.pids));
    return true;
  }

  private find(sample: Sample): number[] {
    const tree = new Set(sample.processes.map((p) => p.pid));
    return cgroupMembers(this.fs, this.dir).filter((pid) => !tree.has(pid) && pid !== this.ownPid);
  }

  /** Resident anon memory of each readable process, keyed by pid:starttime so a reused pid is not compared. */
  private anonOf(pids: number[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const pid of pids) {
      const r = readBasic(this.fs, pid);
      if (r.ok && r.sample.anon !== undefined) out.set(processKey(r.sample), r.sample.anon);
    }
    return out;
  }
}
