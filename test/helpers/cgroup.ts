/**
 * Memory cgroups for e2e tests, on cgroup v1, hybrid and pure-v2 hosts alike. Nothing here guesses a layout:
 *  - which memory cgroup this process is in, v1 or v2, is memleak's own discovery (/proc/PID/cgroup translated
 *    through /proc/self/mountinfo, src/system/cgroup-locate.ts);
 *  - making a child and removing it is memleak's own isolation code (src/system/isolate.ts).
 * What only tests need is where the child may go. v1: under our own memory cgroup. v2: a cgroup's children get the
 * memory controller only if `memory` is in its cgroup.subtree_control, which the kernel refuses while that cgroup
 * itself holds processes (ours does: we are in it). So the child goes under the nearest cgroup, from ours upwards,
 * that already hands `memory` down — the one that gave us our memory.current.
 * A host with no memory controller we can use gives a reason instead, for the tests to skip on.
 */
import { writeFileSync } from "node:fs";
import { posix } from "node:path";
import { locateMemoryCgroup, type CgroupLocation } from "../../src/system/cgroup-locate.js";
import { HostFs } from "../../src/system/host-fs.js";
import { createIsolatedCgroup, removeIsolatedCgroup } from "../../src/system/isolate.js";

export type TestCgroupPlace = { ok: true; own: CgroupLocation; parent: CgroupLocation } | { ok: false; reason: string };

/** The cgroup one level up, or undefined above the root of the hierarchy. */
function up(loc: CgroupLocation): CgroupLocation | undefined {
  if (loc.path === "/") return undefined;
  return { version: loc.version, path: posix.dirname(loc.path), dir: posix.dirname(loc.dir) };
}

/** Where a test may create a memory cgroup next to process `pid`'s, or why it cannot. */
export function testCgroupPlace(fs: HostFs, pid: number, isRoot: boolean): TestCgroupPlace {
  const own = locateMemoryCgroup(fs, pid);
  if (!own.ok) return { ok: false, reason: `no memory cgroup: ${own.reason}` };
  if (!isRoot) return { ok: false, reason: "creating a memory cgroup needs root" };
  if (own.location.version === 1) return { ok: true, own: own.location, parent: own.location };
  for (let loc: CgroupLocation | undefined = own.location; loc; loc = up(loc)) {
    // Past the top of the cgroup2 mount (a container sees its own cgroup as the root) the file is not there.
    const handed = fs.readOptional(`${loc.dir}/cgroup.subtree_control`);
    if (handed === undefined) break;
    if (handed.split(/\s+/).includes("memory")) return { ok: true, own: own.location, parent: loc };
  }
  return { ok: false, reason: `no cgroup from ${own.location.path} upwards has memory in its cgroup.subtree_control` };
}

/** This test process's memory cgroup as memleak finds it; `memleak run` makes its cgroups inside it. */
export const OWN_MEMORY_CGROUP = locateMemoryCgroup(new HostFs(), process.pid);
/** Where this test process may make a memory cgroup of its own on this host, decided once per test file. */
export const HOST_TEST_CGROUP = testCgroupPlace(new HostFs(), process.pid, process.geteuid?.() === 0);

/** Appended to the name of a test that skips without a memory cgroup, so the run says why it skipped. */
export const skipNote = (r: { ok: true } | { ok: false; reason: string }) => (r.ok ? "" : ` [skipped: ${r.reason}]`);

export interface TestCgroup {
  location: CgroupLocation;
  /** Moves a process in, and checks memleak now finds it there (memory.current or memory.usage_in_bytes readable). */
  add(pid: number): void;
  /** Moves what is left back to our own cgroup and removes the cgroup; an error message, or undefined when gone. */
  remove(): string | undefined;
}

/** A new memory cgroup at `place` (see testCgroupPlace; a place with a reason throws it). */
export function createTestCgroup(fs: HostFs, place: TestCgroupPlace): TestCgroup {
  if (!place.ok) throw new Error(place.reason);
  const made = createIsolatedCgroup(fs, place.parent);
  if (!made.ok) throw new Error(made.reason);
  // Stragglers go back where the test runs: on v2 the parent may not hold processes.
  const iso = { ...made.isolation, parentDir: place.own.dir };
  return {
    location: iso.location,
    add(pid) {
      writeFileSync(fs.path(`${iso.location.dir}/cgroup.procs`), String(pid));
      const now = locateMemoryCgroup(fs, pid);
      if (!now.ok || now.location.dir !== iso.location.dir) {
        throw new Error(
          `PID ${pid} moved to ${iso.location.dir}, but memleak finds it ${now.ok ? `in ${now.location.dir}` : `nowhere: ${now.reason}`}`,
        );
      }
    },
    remove: () => removeIsolatedCgroup(fs, iso),
  };
}
