/**
 * Runs in each e2e file's worker before the file (vitest.config.ts, setupFiles): with two lanes (test/e2e-lanes.ts),
 * the worker moves into a memory cgroup of its own, so the programs the file starts are born there and no other file's
 * programs are; afterwards the worker and anything left of them go back, and the cgroup is removed. Imports nothing
 * of test/helpers: helpers/cgroup.ts reads "our own cgroup" once when loaded, and must find the lane's.
 */
import { writeFileSync } from "node:fs";
import { afterAll } from "vitest";
import { locateMemoryCgroup } from "../src/system/cgroup-locate.js";
import { HostFs } from "../src/system/host-fs.js";
import { createIsolatedCgroup, removeIsolatedCgroup } from "../src/system/isolate.js";

if (process.env.MEMLEAK_E2E_LANES === "2") {
  const fs = new HostFs();
  const own = locateMemoryCgroup(fs, process.pid);
  if (!own.ok) throw new Error(`two e2e lanes, but this worker has no memory cgroup: ${own.reason}`);
  const made = createIsolatedCgroup(fs, own.location);
  if (!made.ok) throw new Error(`two e2e lanes, but no memory cgroup for this file: ${made.reason}`);
  writeFileSync(fs.path(`${made.isolation.location.dir}/cgroup.procs`), String(process.pid));
  afterAll(() => {
    const left = removeIsolatedCgroup(fs, made.isolation);
    if (left) throw new Error(left);
  });
}
