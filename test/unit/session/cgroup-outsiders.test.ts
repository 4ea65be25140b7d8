import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { anonGrowth, CgroupOutsiders } from "../../../src/session/cgroup-outsiders.js";
import type { Sample } from "../../../src/system/sample.js";
import { HostFs } from "../../../src/system/host-fs.js";
import { FIXTURES } from "../../helpers/fixtures.js";
import { tempDir } from "../../helpers/temp.js";

describe("anonGrowth", () => {
  it("sums the growth of the processes read at both ends; undefined when none was", () => {
    const m = (...kv: [string, number][]) => new Map(kv);
    expect(anonGrowth(m(["1:1", 100], ["2:2", 50]), m(["1:1", 150], ["2:2", 40]))).toBe(40);
    expect(anonGrowth(m(["1:1", 100]), m(["1:9", 500]))).toBeUndefined(); // the pid was reused: another process
    expect(anonGrowth(m(), m())).toBeUndefined();
  });
});

describe("CgroupOutsiders on a captured host", () => {
  /** The hybrid host's three processes, in a cgroup (and a child cgroup) that also holds memleak's PID 4242. */
  function host() {
    const root = tempDir("outsiders");
    for (const pid of [5932, 5974, 5975])
      cpSync(`${FIXTURES}trees/hybrid-v1/proc/${pid}`, `${root}/proc/${pid}`, { recursive: true });
    mkdirSync(`${root}/cg/child`, { recursive: true });
    writeFileSync(`${root}/cg/cgroup.procs`, "5932\n5974\n4242\n");
    writeFileSync(`${root}/cg/child/cgroup.procs`, "5975\n");
    return root;
  }
  const tree = { t: 0, processes: [{ pid: 5932, ppid: 1, starttime: 0, comm: "python3" }] } as Sample;

  it("finds the cgroup's processes outside the tree, memleak left out, and keeps those there at both ends", () => {
    const root = host();
    const o = new CgroupOutsiders(new HostFs(root), "/cg", 4242);
    o.first(tree);
    expect(o.pids.sort()).toEqual([5974, 5975]);
    expect(o.anonGrowth).toBeUndefined();
    writeFileSync(`${root}/cg/child/cgroup.procs`, "");
    const status = `${root}/proc/5974/status`;
    writeFileSync(status, readFileSync(status, "utf8").replace(/RssAnon:\s+\d+ kB/, "RssAnon:\t   48868 kB"));
    expect(o.last(tree)).toBe(true);
    expect(o.pids).toEqual([5974]);
    expect(o.anonGrowth).toBe(1000 * 1024);
  });

  it("has nothing to say when the tree is all there is", () => {
    const root = host();
    writeFileSync(`${root}/cg/cgroup.procs`, "5932\n");
    writeFileSync(`${root}/cg/child/cgroup.procs`, "");
    const o = new CgroupOutsiders(new HostFs(root), "/cg", 4242);
    o.first(tree);
    expect(o.last(tree)).toBe(false);
    expect(o.pids).toEqual([]);
  });
});
