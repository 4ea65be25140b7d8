import { describe, expect, it } from "vitest";
import { HostFs } from "../../../src/system/host-fs.js";
import { processTree } from "../../../src/system/process-tree.js";
import { cgroupDir, locateMemoryCgroup, pickMount } from "../../../src/system/cgroup-locate.js";
import { takeSnapshot } from "../../../src/sampling/snapshot.js";
import { parseMountinfo } from "../../../src/probes/mountinfo.js";
import { FIXTURES, value } from "../../helpers/fixtures.js";
import { tempDir } from "../../helpers/temp.js";

const hybrid = new HostFs(`${FIXTURES}trees/hybrid-v1`);
const CG = "/process_api/2c952b984877f889993fb8e825cc050f";

describe("process tree from a captured hybrid host", () => {
  it("walks the root and both forked children through task/*/children", () => {
    expect(processTree(hybrid, 5932)).toEqual([
      { pid: 5932, ppid: expect.any(Number) },
      { pid: 5974, ppid: 5932 },
      { pid: 5975, ppid: 5932 },
    ]);
  });

  it("an absent root gives an empty tree, not an error", () => {
    expect(processTree(hybrid, 4242)).toEqual([]);
  });

  it("finds the v1 memory cgroup through mountinfo", () => {
    const r = locateMemoryCgroup(hybrid, 5932);
    expect(r).toEqual({ ok: true, location: { version: 1, path: CG, dir: `/sys/fs/cgroup/memory${CG}` } });
  });
});

describe("snapshot of the captured tree", () => {
  const snap = takeSnapshot(hybrid, 5932, 0);

  it("lists every process with status and smaps numbers", () => {
    expect(snap.processes.map((p) => p.pid)).toEqual([5932, 5974, 5975]);
    for (const p of snap.processes) {
      expect(p.rss).toBe(p.anon! + p.file! + p.shmem!);
      expect(p.uss).toBeLessThanOrEqual(p.pss!);
      expect(p.cmdline?.[1]).toBe("fixtures/scripts/forked_holder.py");
    }
  });

  it("totals are the sums over the tree", () => {
    const sum = (k: "pss" | "uss" | "rss") => snap.processes.reduce((s, p) => s + p[k]!, 0);
    expect(snap.totals).toMatchObject({ pss: sum("pss"), uss: sum("uss"), rss: sum("rss"), threads: 3 });
  });

  it("reads the cgroup: usage, working set = usage − total_inactive_file, no limit, kernel memory from kmem", () => {
    const r = snap.cgroup.reading!;
    expect(r.limit).toBeNull();
    expect(r.workingSet).toBe(Math.max(0, r.usage! - r.stat!.inactiveFile!));
    expect(r.kernel).toBeGreaterThan(0);
    expect(r.oomKills).toBe(0);
    expect(snap.cgroup.headroom).toBeUndefined();
    expect(snap.warnings).toEqual([]);
  });
});

describe("cgroup path → directory (namespaces and nested mounts)", () => {
  const mount = (root: string, mountPoint: string, fsType = "cgroup2", opts = "rw") =>
    value(parseMountinfo(`30 20 0:26 ${root} ${mountPoint} rw,nosuid - ${fsType} cgroup ${opts}`))[0]!;

  it.each([
    // [mount root, mount point, cgroup path, expected directory]
    ["/", "/sys/fs/cgroup", "/", "/sys/fs/cgroup"],
    ["/", "/sys/fs/cgroup", "/system.slice/a.service", "/sys/fs/cgroup/system.slice/a.service"],
    // A container that bind-mounts its own cgroup as /sys/fs/cgroup, without a cgroup namespace.
    ["/docker/abc", "/sys/fs/cgroup", "/docker/abc", "/sys/fs/cgroup"],
    ["/docker/abc", "/sys/fs/cgroup", "/docker/abc/child", "/sys/fs/cgroup/child"],
  ])("root %s at %s: %s → %s", (root, mp, path, dir) => {
    expect(cgroupDir(mount(root, mp), path)).toBe(dir);
  });

  it("a mount whose root is not a prefix of the path does not serve it", () => {
    expect(pickMount([mount("/docker/abc", "/sys/fs/cgroup")], 2, "/docker/abcdef")).toBeUndefined();
  });

  it("v1 needs a cgroup mount with the memory option; the longest matching root wins", () => {
    const a = mount("/", "/a", "cgroup", "rw,memory");
    const b = mount("/x", "/b", "cgroup", "rw,memory");
    const cpu = mount("/", "/c", "cgroup", "rw,cpu");
    expect(pickMount([cpu, a, b], 1, "/x/y")).toBe(b);
    expect(pickMount([cpu], 1, "/x/y")).toBeUndefined();
  });
});

describe("a captured v2 container (fixtures/trees/v2-container)", () => {
  const v2 = new HostFs(`${FIXTURES}trees/v2-container`);

  it("PID 1 in cgroup / of its namespace, cgroup2 at /sys/fs/cgroup", () => {
    expect(locateMemoryCgroup(v2, 1)).toEqual({ ok: true, location: { version: 2, path: "/", dir: "/sys/fs/cgroup" } });
  });

  it("snapshot reads memory.current/max/peak/events/stat; working set = current − inactive_file", () => {
    const snap = takeSnapshot(v2, 1, 0);
    expect(snap.processes.map((p) => p.pid)).toEqual([1]);
    const r = snap.cgroup.reading!;
    expect(r.usage).toBe(13071106048);
    expect(r.workingSet).toBe(13071106048 - r.stat!.inactiveFile!);
    expect(r.limit).toBe(103079215104);
    expect(snap.cgroup.headroom).toBe(103079215104 - r.workingSet!);
    expect(r.peak).toBeGreaterThan(0);
    expect(r.oomKills).toBe(0);
    expect(r.kernel).toBe(r.stat!.kernel);
  });
});

describe("no memory cgroup", () => {
  it("the snapshot says so and goes on with the processes", async () => {
    const { cpSync } = await import("node:fs");
    const dir = tempDir("nocg");
    cpSync(`${FIXTURES}trees/hybrid-v1/proc`, `${dir}/proc`, { recursive: true });
    const snap = takeSnapshot(new HostFs(dir), 5932, 0);
    expect(snap.processes).toHaveLength(3);
    expect(snap.cgroup.error).toMatch(/not found/);
    expect(snap.warnings.join("\n")).toMatch(/no memory cgroup: .*showing the processes only/);
  });
});
