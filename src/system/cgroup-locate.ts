/**
 * Finds the directory of a process's memory cgroup on v1, v2 and hybrid hosts.
 *
 * /proc/PID/cgroup gives the cgroup path relative to the READER's cgroup-namespace root; mountinfo gives, for each
 * cgroup mount, the cgroup it starts at (field 4, also relative to the reader's namespace). The directory is
 * mountPoint + (path − mountRoot). A path starting with "/.." lies outside our namespace and has no directory we can
 * open. Same translation as uber-go/automaxprocs internal/cgroups.
 */
import { parseMountinfo, type Mount } from "../probes/mountinfo.js";
import { memoryCgroupOf, parseProcCgroup } from "../probes/proc-cgroup.js";
import type { HostFs } from "./host-fs.js";

export interface CgroupLocation {
  version: 1 | 2;
  /** The path as /proc/PID/cgroup prints it. */
  path: string;
  /** Directory holding memory.stat etc. (a host path, before the HostFs root prefix). */
  dir: string;
}

export type LocateResult = { ok: true; location: CgroupLocation } | { ok: false; reason: string };

function isUnder(path: string, root: string): boolean {
  if (root === "/") return path.startsWith("/");
  return path === root || path.startsWith(root + "/");
}

/** The mount that serves this cgroup: right type, root a prefix of the path, longest root wins. */
export function pickMount(mounts: Mount[], version: 1 | 2, path: string): Mount | undefined {
  const candidates = mounts.filter((m) =>
    version === 2 ? m.fsType === "cgroup2" : m.fsType === "cgroup" && m.superOptions.includes("memory"),
  );
  const serving = candidates.filter((m) => isUnder(path, m.root));
  serving.sort((a, b) => b.root.length - a.root.length);
  return serving[0];
}

export function cgroupDir(mount: Mount, path: string): string {
  const rel = mount.root === "/" ? path : path.slice(mount.root.length);
  const joined = (mount.mountPoint + "/" + rel).replace(/\/+/g, "/");
  return joined.length > 1 ? joined.replace(/\/$/, "") : joined;
}

export function locateMemoryCgroup(fs: HostFs, pid: number): LocateResult {
  const cg = fs.read(`/proc/${pid}/cgroup`);
  if (!cg.ok) return { ok: false, reason: `cannot read /proc/${pid}/cgroup (${cg.reason})` };
  const lines = parseProcCgroup(cg.text);
  if (!lines.ok) return { ok: false, reason: `${lines.source}: ${lines.message}` };
  const ref = memoryCgroupOf(lines.value);
  if (!ref) return { ok: false, reason: "the process is in no memory cgroup (no v1 memory line, no v2 0:: line)" };
  if (ref.path.startsWith("/..")) {
    return { ok: false, reason: `cgroup ${ref.path} is outside this cgroup namespace and cannot be opened from here` };
  }
  const mi = fs.read("/proc/self/mountinfo");
  if (!mi.ok) return { ok: false, reason: `cannot read /proc/self/mountinfo (${mi.reason})` };
  const mounts = parseMountinfo(mi.text);
  if (!mounts.ok) return { ok: false, reason: `${mounts.source}: ${mounts.message}` };
  const mount = pickMount(mounts.value, ref.version, ref.path);
  if (!mount) {
    const what = ref.version === 2 ? "cgroup2" : "cgroup v1 memory";
    return { ok: false, reason: `no ${what} mount serves ${ref.path} in this mount namespace` };
  }
  const dir = cgroupDir(mount, ref.path);
  const probe = ref.version === 2 ? "memory.current" : "memory.usage_in_bytes";
  if (fs.readOptional(`${dir}/${probe}`) === undefined) {
    const why =
      ref.version === 2
        ? "the memory controller is not enabled there (is it on v1, or missing from the parent's cgroup.subtree_control?)"
        : "the directory is not readable";
    return { ok: false, reason: `${dir}/${probe} not found: ${why}` };
  }
  return { ok: true, location: { version: ref.version, path: ref.path, dir } };
}
