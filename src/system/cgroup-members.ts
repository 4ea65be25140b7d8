/**
 * Which processes a cgroup holds, descendant cgroups included (v1 with use_hierarchy and v2 both count descendants
 * in usage). Used to warn when a cgroup's numbers include processes outside the watched tree.
 */
import type { HostFs } from "./host-fs.js";

export function cgroupMembers(fs: HostFs, dir: string, depth = 0): number[] {
  const own = (fs.readOptional(`${dir}/cgroup.procs`) ?? "").split("\n").filter(Boolean).map(Number);
  if (depth > 8) return own;
  const children = fs
    .list(dir)
    .filter((name) => !name.includes("."))
    .flatMap((name) => cgroupMembers(fs, `${dir}/${name}`, depth + 1));
  return [...own, ...children];
}
