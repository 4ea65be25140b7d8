/**
 * From a pid inside a container's PID namespace to the host pid memleak reads /proc by. An agent in a container says
 * `os.getpid()` — its pid inside (1 for a container's first process) — and a forked child connects on its own before
 * any tick has seen it, so its pid inside is all memleak gets. The host pid is the process in that PID namespace whose
 * NSpid ends with it.
 *
 * The watched tree's processes are tried first (the likely ones, a few status reads); all of /proc only when none
 * matches (a child forked since the last tick). A mapping is kept while the host process still has that pid inside.
 */
import type { HostFs } from "./host-fs.js";
import { namespaceOf, parseNsPids } from "./namespaces.js";

export class HostPids {
  private readonly known = new Map<string, number>();

  constructor(private readonly fs: HostFs) {}

  /** The host pid of `inside` in PID namespace `pidNs` (a /proc/PID/ns/pid link's text), or undefined. */
  hostPid(pidNs: string, inside: number, likely: Iterable<number>): number | undefined {
    const key = `${pidNs} ${inside}`;
    const cached = this.known.get(key);
    if (cached !== undefined && this.matches(cached, pidNs, inside)) return cached;
    this.known.delete(key);
    for (const pid of likely) if (this.matches(pid, pidNs, inside)) return this.keep(key, pid);
    for (const name of this.fs.list("/proc")) {
      const pid = Number(name);
      if (Number.isInteger(pid) && pid > 0 && this.matches(pid, pidNs, inside)) return this.keep(key, pid);
    }
    return undefined;
  }

  private keep(key: string, pid: number): number {
    this.known.set(key, pid);
    return pid;
  }

  private matches(pid: number, pidNs: string, inside: number): boolean {
    const status = this.fs.readOptional(`/proc/${pid}/status`);
    if (!status) return false;
    const pids = parseNsPids(status);
    // A process of memleak's own PID namespace has one entry, its pid: the same as inside (same namespace).
    if (pids[pids.length - 1] !== inside) return false;
    return namespaceOf(this.fs, pid, "pid") === pidNs;
  }
}
