/**
 * The e2e files' lanes (test/e2e-lanes.ts, test/e2e-lane-setup.ts): with two files at a time, each must run in a
 * memory cgroup of its own, or a test reading "its own cgroup" sees the other file's programs.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { locateMemoryCgroup } from "../../src/system/cgroup-locate.js";
import { HostFs } from "../../src/system/host-fs.js";
import { OWN_MEMORY_CGROUP } from "../helpers/cgroup.js";

const lanes = process.env.MEMLEAK_E2E_LANES;

// One test, whichever the lanes are: a pair of tests each skipped in the other case left a skip in every green run, and
// under CI a skip is a prerequisite missing (issue 47).
describe("this file's lane", () => {
  const twoLanes = lanes === "2";
  it(
    twoLanes
      ? "two lanes: a memory cgroup of its own, which the file's programs are born in"
      : "one lane: the files run one after another, in the suite's own cgroup",
    async () => {
      const fs = new HostFs();
      const own = locateMemoryCgroup(fs, process.pid);
      if (!twoLanes) {
        if (own.ok) expect(own.location.path).not.toMatch(new RegExp(`/memleak-${process.pid}-`));
        return;
      }
      expect(own.ok).toBe(true);
      if (!own.ok) return;
      expect(own.location.path).toMatch(new RegExp(`/memleak-${process.pid}-[0-9a-z]+$`));
      // helpers/cgroup.ts, which the tests use for "our own cgroup", found the lane too.
      expect(OWN_MEMORY_CGROUP).toEqual(own);
      const child = spawn("sleep", ["5"]);
      try {
        const procs = readFileSync(`${own.location.dir}/cgroup.procs`, "utf8").split("\n").filter(Boolean).map(Number);
        expect(procs).toContain(child.pid);
        expect(procs).toContain(process.pid);
        // Nothing of another file's: only this worker and what it started.
        expect(procs.every((p) => p === process.pid || p === child.pid)).toBe(true);
      } finally {
        child.kill();
      }
    },
  );
});
