import { describe, expect, it } from "vitest";
import { parseProcCgroup, memoryCgroupOf } from "../../../src/probes/proc-cgroup.js";
import { parseMountinfo, unescapeOctal } from "../../../src/probes/mountinfo.js";
import { parseMemoryStat } from "../../../src/probes/memory-stat.js";
import { parseBytesFile, parseLimitFile, parseOomFile } from "../../../src/probes/cgroup-files.js";
import { fixture, value } from "../../helpers/fixtures.js";

describe("/proc/PID/cgroup", () => {
  it("hybrid host: the v1 memory line wins over 0::/", () => {
    const lines = value(parseProcCgroup(fixture("hybrid/proc-pid-cgroup")));
    expect(lines.find((l) => l.id === 0)).toEqual({ id: 0, controllers: [], path: "/" });
    expect(memoryCgroupOf(lines)).toEqual({ version: 1, path: "/process_api/2c952b984877f889993fb8e825cc050f" });
  });

  it("keeps colons inside the path", () => {
    const lines = value(parseProcCgroup("0::/kubepods/pod:x/abc\n"));
    expect(memoryCgroupOf(lines)).toEqual({ version: 2, path: "/kubepods/pod:x/abc" });
  });

  it("a v1 host without memory and without a 0:: line has no memory cgroup", () => {
    expect(memoryCgroupOf(value(parseProcCgroup("3:cpu,cpuacct:/x\n")))).toBeUndefined();
  });

  it.each(["", "garbage", "x:memory:/a"])("rejects %j", (text) => {
    expect(parseProcCgroup(text).ok).toBe(false);
  });
});

describe("/proc/self/mountinfo", () => {
  it("hybrid host: a v1 memory mount and a cgroup2 mount without controllers", () => {
    const mounts = value(parseMountinfo(fixture("hybrid/mountinfo")));
    const memory = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes("memory"));
    expect(memory).toMatchObject({ mountPoint: "/sys/fs/cgroup/memory", root: "/" });
    expect(mounts.find((m) => m.fsType === "cgroup2")).toMatchObject({ mountPoint: "/sys/fs/cgroup/unified" });
  });

  it("unescapes octal in paths and handles optional fields before the dash", () => {
    const line = "36 35 98:0 /mnt\\0401 /mnt\\0402 rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue";
    const [m] = value(parseMountinfo(line));
    expect(m).toMatchObject({ root: "/mnt 1", mountPoint: "/mnt 2", fsType: "ext3", source: "/dev/root" });
    expect(m!.superOptions).toEqual(["rw", "errors=continue"]);
    expect(unescapeOctal("a\\134b")).toBe("a\\b");
  });

  it("rejects a line without the separator", () => {
    expect(parseMountinfo("36 35 98:0 / /x rw shared:1 ext3 /dev/root rw").ok).toBe(false);
  });
});

describe("memory.stat v1", () => {
  it("uses the hierarchical total_* values and keeps v1's meaning (rss = anon, cache includes shmem)", () => {
    const s = value(parseMemoryStat(fixture("hybrid/memory.stat")));
    expect(s.version).toBe(1);
    expect(s.breakdown.anon).toBe(s.raw.total_rss);
    expect(s.breakdown.file).toBe(s.raw.total_cache);
    expect(s.breakdown.inactiveFile).toBe(s.raw.total_inactive_file);
    expect(s.breakdown.kernel).toBeUndefined(); // v1 keeps it in memory.kmem.usage_in_bytes
  });

  it("after a child that imported torch exited: no anon left, ~438 MB of page cache still charged", () => {
    const s = value(parseMemoryStat(fixture("hybrid/memory.stat.after-torch-child-exited")));
    expect(s.breakdown.anon).toBe(0);
    expect(s.breakdown.file).toBe(438398976);
    // The LRU lists hold almost all of it (a few pages sit on no list while being moved).
    expect(s.breakdown.inactiveFile! + s.breakdown.activeFile!).toBeGreaterThan(0.99 * 438398976);
  });

  it("a version hint overrides detection; unknown text is a typed error", () => {
    expect(parseMemoryStat("nothing here 1").ok).toBe(false);
    expect(value(parseMemoryStat("anon 5\nfile 6\n", 2)).breakdown.anon).toBe(5);
  });
});

describe("one-value and event files", () => {
  it("v1 unlimited is no limit; v2 'max' is no limit", () => {
    expect(value(parseLimitFile(fixture("hybrid/memory.limit_in_bytes"), "memory.limit_in_bytes"))).toBeNull();
    expect(value(parseLimitFile("max\n", "memory.max"))).toBeNull();
    expect(value(parseLimitFile("536870912\n", "memory.max"))).toBe(536870912);
  });

  it("usage and peak are byte counts", () => {
    expect(value(parseBytesFile(fixture("hybrid/memory.usage_in_bytes"), "u"))).toBeGreaterThan(0);
    expect(parseBytesFile("12x", "u").ok).toBe(false);
    expect(parseBytesFile("", "u").ok).toBe(false);
  });

  it("v1 oom_control", () => {
    expect(value(parseOomFile(fixture("hybrid/memory.oom_control"), 1))).toEqual({
      oom: undefined,
      oomKill: 0,
      max: undefined,
      underOom: 0,
    });
  });

  it("v2 memory.events", () => {
    const e = value(parseOomFile("low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n", 2));
    expect(e).toEqual({ oom: 3, oomKill: 2, max: 12, underOom: undefined });
  });
});
