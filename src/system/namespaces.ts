/**
 * Which namespaces a process lives in, and what its pid is inside them — the facts `watch` needs to reach a process
 * in a container (another mount, PID or user namespace) from outside it.
 *
 *   /proc/PID/ns/{mnt,pid,user}  links named like `mnt:[4026531841]`: two processes share a namespace when the links
 *                                read the same (namespaces(7)). Reading them needs ptrace-read rights on PID.
 *   NSpid in /proc/PID/status    the pid in each PID namespace from the reader's down to the process's own, outermost
 *                                first (proc(5), Linux 4.1+): `NSpid: 8094 1` is host pid 8094, pid 1 inside.
 */
import { colonFields } from "../probes/key-value.js";
import { parseCount } from "../probes/parsed.js";
import type { HostFs } from "./host-fs.js";

export type NamespaceKind = "mnt" | "pid" | "user" | "cgroup";

/** The namespace's identity (`pid:[4026532301]`), or undefined when it may not be read (or PID is gone). */
export function namespaceOf(fs: HostFs, pid: number | "self", kind: NamespaceKind): string | undefined {
  return fs.readLink(`/proc/${pid}/ns/${kind}`);
}

/** Whether PID is in a namespace of this kind other than memleak's own; undefined when that cannot be told. */
export function inOtherNamespace(fs: HostFs, pid: number, kind: NamespaceKind): boolean | undefined {
  const theirs = namespaceOf(fs, pid, kind);
  const ours = namespaceOf(fs, "self", kind);
  return theirs === undefined || ours === undefined ? undefined : theirs !== ours;
}

/**
 * Whether PID runs in a container, as far as its memory cgroup goes: another cgroup or mount namespace than memleak's.
 * Its /proc/PID/cgroup, read from here, names its own cgroup (the container's), which is what memleak reads then.
 */
export function inContainer(fs: HostFs, pid: number): boolean {
  return inOtherNamespace(fs, pid, "cgroup") === true || inOtherNamespace(fs, pid, "mnt") === true;
}

const NSPID = new Set(["NSpid"]);

/** NSpid's pids, outermost (the reader's PID namespace) first; [] when the line is missing (kernels before 4.1). */
export function parseNsPids(statusText: string): number[] {
  const field = colonFields(statusText, NSPID).get("NSpid");
  if (!field) return [];
  const pids = field
    .trim()
    .split(/\s+/)
    .map((p) => parseCount(p));
  return pids.every((p): p is number => p !== undefined) ? pids : [];
}

/** The pid the process has in its own PID namespace (what its os.getpid() says); undefined when it is the same. */
export function pidInside(statusText: string): number | undefined {
  const pids = parseNsPids(statusText);
  return pids.length > 1 ? pids[pids.length - 1] : undefined;
}
