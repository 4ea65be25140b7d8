/**
 * A process that exits between the sampler's read of its stat and of its status: stat still says it runs, status
 * already says zombie and has no memory lines. Read on a copy of a captured tree (fixtures/trees/hybrid-v1: PID 5932
 * and its children 5974 and 5975) whose status files are replaced by a captured zombie's (fixtures/hybrid/status.zombie).
 * CI on f189e9d: `memleak run -- true` sampled its root in that instant, judged a process with no memory figures, and
 * crashed (exit 70).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseStatus } from "../../../src/probes/status.js";
import { Sampler } from "../../../src/sampling/sampler.js";
import { HostFs } from "../../../src/system/host-fs.js";
import { FIXTURES, fixture, value } from "../../helpers/fixtures.js";
import { tempDir } from "../../helpers/temp.js";

/** The captured tree with `pid`'s status a zombie's (its Pid and PPid lines its own), its stat untouched ("S"). */
function treeWithZombieStatus(pid: number): string {
  const dir = tempDir("exit-mid-read");
  cpSync(`${FIXTURES}trees/hybrid-v1`, dir, { recursive: true });
  const own = value(parseStatus(readFileSync(`${dir}/proc/${pid}/status`, "utf8")));
  const zombie = fixture("hybrid/status.zombie")
    .replace(/^Pid:\t\d+$/m, `Pid:\t${pid}`)
    .replace(/^PPid:\t\d+$/m, `PPid:\t${own.ppid}`);
  writeFileSync(`${dir}/proc/${pid}/status`, zombie);
  return dir;
}

/** The captured tree with `pid`'s status stripped of its memory lines, as while it exits (exit_mm), state kept. */
function treeExiting(pid: number): string {
  const dir = tempDir("exit-mid-read");
  cpSync(`${FIXTURES}trees/hybrid-v1`, dir, { recursive: true });
  const status = readFileSync(`${dir}/proc/${pid}/status`, "utf8");
  writeFileSync(`${dir}/proc/${pid}/status`, status.replace(/^(Vm|Rss)\w+:.*\n/gm, ""));
  return dir;
}

describe("a process that exits between its stat and its status", () => {
  it("status's state is read: Z for a zombie, S for a sleeping process", () => {
    expect(value(parseStatus(fixture("hybrid/status.zombie"))).state).toBe("Z");
    expect(value(parseStatus(fixture("hybrid/status.torch"))).state).toBe("S");
  });

  it("the root is gone: the tick gives no sample (not one whose root has no memory figures)", () => {
    const fs = new HostFs(treeWithZombieStatus(5932));
    expect(readFileSync(`${fs.root}/proc/5932/stat`, "utf8")).toMatch(/^5932 \(\S+\) S /);
    expect(new Sampler({ fs, rootPid: 5932 }).tick()).toBeUndefined();
  });

  it("a child is left out of the tick, the rest read as before", () => {
    const sample = new Sampler({ fs: new HostFs(treeWithZombieStatus(5975)), rootPid: 5932 }).tick();
    expect(sample?.processes.map((p) => p.pid).sort()).toEqual([5932, 5974]);
    for (const p of sample!.processes) expect(p.rss).toBeGreaterThan(0);
  });

  it("one whose memory is released before it is a zombie (no VmRSS, state still S) is skipped the same way", () => {
    const fs = new HostFs(treeExiting(5932));
    expect(readFileSync(`${fs.root}/proc/5932/status`, "utf8")).toMatch(/^State:\tS/m);
    expect(new Sampler({ fs, rootPid: 5932 }).tick()).toBeUndefined();
    const sample = new Sampler({ fs: new HostFs(treeExiting(5974)), rootPid: 5932 }).tick();
    expect(sample?.processes.map((p) => p.pid).sort()).toEqual([5932, 5975]);
  });
});
