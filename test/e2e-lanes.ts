/**
 * How many e2e files run at once, and the memory cgroup each one runs in (issue 31: the suite half as long).
 *
 * An e2e file mostly waits: its programs sleep and allocate on a schedule while memleak samples them, so on a 2-core
 * machine a second file fills the idle core. What two files at once must not share is a memory cgroup: a test that
 * watches a program without a cgroup of its own reads the cgroup the test runs in (its usage, what grows there, the
 * `memleak-*` cgroups left in it), and would see the other file's programs. So each file's worker moves itself into a
 * memory cgroup of its own before the file is imported (the e2e project's setupFiles: test/e2e-lane-setup.ts), and
 * every program it starts is born there.
 *
 * Two lanes only where that works: root on a cgroup v1 memory hierarchy (this machine, hybrid), where a cgroup that
 * holds processes may still have children, so `memleak run`'s own cgroup nests inside the lane. On cgroup v2 the lane
 * could not hold the worker and hand the memory controller down (no internal processes), and without root there is no
 * cgroup to make: there the files run one after another, as before. MEMLEAK_E2E_LANES=1 forces one lane anywhere.
 */
import { locateMemoryCgroup } from "../src/system/cgroup-locate.js";
import { HostFs } from "../src/system/host-fs.js";

export function e2eLanes(): number {
  const asked = process.env.MEMLEAK_E2E_LANES;
  if (asked === "1") return 1;
  const own = locateMemoryCgroup(new HostFs(), process.pid);
  return own.ok && own.location.version === 1 && process.geteuid?.() === 0 ? 2 : 1;
}
