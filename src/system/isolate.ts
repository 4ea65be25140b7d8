/**
 * A fresh memory cgroup for the command `memleak run` launches, so the cgroup numbers are that command's alone —
 * what a container dashboard would show if it ran by itself.
 *
 * The child is created inside memleak's own memory cgroup (v1: any directory we may write; v2: needs `memory` in the
 * parent's cgroup.subtree_control, which the kernel refuses while the parent itself holds processes, unless it is
 * the root). To get the command into it from its first instruction, without a wrapper shell, memleak moves itself
 * in, spawns the command (which inherits the cgroup), and moves itself back.
 */
import { mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import type { CgroupLocation } from "./cgroup-locate.js";
import type { HostFs } from "./host-fs.js";

export interface Isolation {
  location: CgroupLocation;
  /** memleak's own cgroup directory, to move back into (and to move stragglers to before removing). */
  parentDir: string;
}

export type IsolateResult = { ok: true; isolation: Isolation } | { ok: false; reason: string };

function errText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ?? e.message;
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A memleak killed with SIGKILL cannot remove its cgroup. Its name holds its pid: once that memleak is gone and
 * the cgroup is empty (the command it ran has finished), the next run removes it.
 */
export function removeStaleCgroups(fs: HostFs, own: CgroupLocation): void {
  for (const name of fs.list(own.dir)) {
    const m = /^memleak-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    if (pidsIn(fs, `${own.dir}/${name}`).length > 0) continue;
    try {
      rmdirSync(fs.path(`${own.dir}/${name}`));
    } catch {
      /* busy or gone: try again next time */
    }
  }
}

/** Creates <own cgroup>/memleak-<pid>-<time>. `own` is memleak's own memory cgroup. */
export function createIsolatedCgroup(fs: HostFs, own: CgroupLocation): IsolateResult {
  removeStaleCgroups(fs, own);
  const name = `memleak-${process.pid}-${Date.now().toString(36)}`;
  const dir = `${own.dir}/${name}`;
  if (own.version === 2) {
    const enabled = (fs.readOptional(`${own.dir}/cgroup.subtree_control`) ?? "").split(/\s+/);
    if (!enabled.includes("memory")) {
      try {
        writeFileSync(fs.path(`${own.dir}/cgroup.subtree_control`), "+memory");
      } catch (err) {
        return {
          ok: false,
          reason: `cannot enable the memory controller below ${own.path} (${errText(err)}): cgroup v2 forbids it while that cgroup holds processes; run memleak in a delegated cgroup (e.g. systemd-run --user --scope -p Delegate=yes)`,
        };
      }
    }
  }
  try {
    mkdirSync(fs.path(dir));
  } catch (err) {
    return { ok: false, reason: `cannot create ${dir} (${errText(err)}): needs root or a delegated cgroup` };
  }
  const path = own.path === "/" ? `/${name}` : `${own.path}/${name}`;
  return { ok: true, isolation: { location: { version: own.version, path, dir }, parentDir: own.dir } };
}

function moveTo(fs: HostFs, dir: string, pid: number): void {
  writeFileSync(fs.path(`${dir}/cgroup.procs`), String(pid));
}

/** Runs `start` with memleak itself inside the isolated cgroup, so whatever it spawns begins life there. */
export function spawnInside<T>(fs: HostFs, iso: Isolation, start: () => T): T {
  moveTo(fs, iso.location.dir, process.pid);
  try {
    return start();
  } finally {
    moveTo(fs, iso.parentDir, process.pid);
  }
}

export function pidsIn(fs: HostFs, dir: string): number[] {
  const text = fs.readOptional(`${dir}/cgroup.procs`) ?? "";
  return text.split("\n").filter(Boolean).map(Number);
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Removes the cgroup. Processes still in it (a daemon the command left behind) are moved to memleak's own cgroup
 * first. rmdir can fail with EBUSY for a moment after the last task exits while the kernel finishes tearing it down,
 * so it is retried for up to ~2 s. Returns an error message, or undefined when removed.
 */
export function removeIsolatedCgroup(fs: HostFs, iso: Isolation): string | undefined {
  let last = "";
  for (let attempt = 0; attempt < 40; attempt++) {
    for (const pid of pidsIn(fs, iso.location.dir)) {
      try {
        moveTo(fs, iso.parentDir, pid);
      } catch {
        /* exited meanwhile */
      }
    }
    try {
      rmdirSync(fs.path(iso.location.dir));
      return undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return undefined;
      last = errText(err);
      if (code !== "EBUSY") break;
      sleepSync(50);
    }
  }
  return `could not remove ${iso.location.dir} (${last})`;
}
