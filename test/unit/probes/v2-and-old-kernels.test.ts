/** Captures from other machines (see fixtures/SOURCES-v2.md): cgroup v2 hosts and containers, pure v1, old kernels. */
import { describe, expect, it } from "vitest";
import { parseMemoryStat } from "../../../src/probes/memory-stat.js";
import { parseBytesFile, parseLimitFile, parseOomFile } from "../../../src/probes/cgroup-files.js";
import { memoryCgroupOf, parseProcCgroup } from "../../../src/probes/proc-cgroup.js";
import { parseMountinfo } from "../../../src/probes/mountinfo.js";
import { parseStatus } from "../../../src/probes/status.js";
import { parseSmapsRollup } from "../../../src/probes/smaps-rollup.js";
import { cgroupDir, pickMount } from "../../../src/system/cgroup-locate.js";
import { fixture, value } from "../../helpers/fixtures.js";

const KiB = 1024;

describe("memory.stat v2", () => {
  it("kernel ≥ 5.18: reads kernel, slab, sock and the file LRUs in bytes", () => {
    const s = value(parseMemoryStat(fixture("v2/memory.stat")));
    expect(s.version).toBe(2);
    expect(s.breakdown).toMatchObject({
      anon: 2471755776,
      file: 8532865024,
      kernel: 2065149952,
      shmem: 4096,
      sock: 0,
      inactiveFile: 2935459840,
      activeFile: 5597401088,
      slab: 2037641160,
      slabReclaimable: 2032322192,
      fileMapped: 14213120,
      fileDirty: 319488,
    });
    expect(s.breakdown.swap).toBeUndefined();
  });

  it.each(["v2/memory.stat.kernel-6.8", "v2/memory.stat.old-kernel", "v2/memory.stat.old-kernel-early"])(
    "%s is detected as v2 and keeps unknown keys in raw",
    (file) => {
      const s = value(parseMemoryStat(fixture(file)));
      expect(s.version).toBe(2);
      expect(s.breakdown.anon).toBe(s.raw.anon);
      expect(Object.keys(s.raw).length).toBeGreaterThan(20);
    },
  );

  it("before 5.18 there is no `kernel` line: it is the sum of its parts when they are all there", () => {
    const s = value(parseMemoryStat(fixture("v2/memory.stat.old-kernel")));
    expect(s.raw.kernel).toBeUndefined();
    expect(s.breakdown.kernel).toBe(s.raw.kernel_stack! + s.raw.pagetables! + s.breakdown.slab!);
  });

  it("an early layout without pagetables leaves kernel missing rather than undercounted", () => {
    const s = value(parseMemoryStat(fixture("v2/memory.stat.old-kernel-early")));
    expect(s.breakdown.slab).toBe(296456192);
    expect(s.breakdown.kernel).toBeUndefined();
  });
});

describe("v2 one-value files", () => {
  it("memory.current, memory.max (max and a number), memory.peak, memory.events", () => {
    expect(value(parseBytesFile(fixture("v2/memory.current"), "memory.current"))).toBeGreaterThan(0);
    expect(value(parseLimitFile(fixture("v2/memory.max"), "memory.max"))).toBeNull();
    expect(value(parseLimitFile(fixture("v2/memory.max.limited"), "memory.max"))).toBe(103079215104);
    expect(value(parseBytesFile(fixture("v2/memory.peak"), "memory.peak"))).toBe(87302021120);
    expect(value(parseOomFile(fixture("v2/memory.events"), 2))).toEqual({
      oom: 0,
      oomKill: 0,
      max: 0,
      underOom: undefined,
    });
  });
});

describe("/proc/PID/cgroup and mountinfo on v2 and pure-v1 hosts", () => {
  it("pure v2: the 0:: line", () => {
    expect(memoryCgroupOf(value(parseProcCgroup(fixture("v2/proc-pid-cgroup"))))).toEqual({
      version: 2,
      path: "/user.slice/user-1000.slice/session-3.scope",
    });
  });

  it("pure v2 host: the cgroup2 mount at /sys/fs/cgroup serves every path", () => {
    const mounts = value(parseMountinfo(fixture("v2/mountinfo")));
    const m = pickMount(mounts, 2, "/user.slice/user-1000.slice/session-3.scope")!;
    expect(cgroupDir(m, "/user.slice/user-1000.slice/session-3.scope")).toBe(
      "/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope",
    );
    expect(pickMount(mounts, 1, "/")).toBeUndefined();
  });

  it.each(["v2/mountinfo.container-ns", "v2/mountinfo.container-ns-selinux"])(
    "inside a container with a cgroup namespace (%s), / is the container's own cgroup",
    (file) => {
      const m = pickMount(value(parseMountinfo(fixture(file))), 2, "/")!;
      expect(cgroupDir(m, "/")).toBe("/sys/fs/cgroup");
    },
  );

  it("pure-v1 ECS host: the memory line", () => {
    const ref = memoryCgroupOf(value(parseProcCgroup(fixture("v1/proc-pid-cgroup.ecs-pure-v1"))));
    expect(ref?.version).toBe(1);
    expect(ref?.path).toMatch(/^\/ecs\//);
  });

  it("inside a docker container on v1: the memory mount's root is the container's cgroup", () => {
    const ref = memoryCgroupOf(value(parseProcCgroup(fixture("v1/proc-pid-cgroup.docker"))))!;
    const m = pickMount(value(parseMountinfo(fixture("v1/mountinfo.docker"))), 1, ref.path)!;
    expect(ref.path).toMatch(/^\/docker\/c33988ec/);
    expect(cgroupDir(m, ref.path)).toBe("/sys/fs/cgroup/memory");
  });
});

describe("old kernels: missing fields stay missing", () => {
  it("2.6.32 status: VmRSS but no RssAnon/RssFile/RssShmem, spaces instead of tabs", () => {
    const s = value(parseStatus(fixture("old-kernel/status.2.6.32-openvz")));
    expect(s.vmRss).toBe(142048 * KiB);
    expect(s.vmHwm).toBe(147928 * KiB);
    expect(s.rssAnon).toBeUndefined();
    expect(s.rssFile).toBeUndefined();
    expect(s.threads).toBe(33);
  });

  it("smaps_rollup before 5.3: no Pss_Anon/Pss_File/Pss_Shmem/Pss_Dirty, USS still derived", () => {
    const r = value(parseSmapsRollup(fixture("old-kernel/smaps_rollup.pre-5.3")));
    expect(r.pss).toBe(29944 * KiB);
    expect(r.pssAnon).toBeUndefined();
    expect(r.pssFile).toBeUndefined();
    expect(r.pssDirty).toBeUndefined();
    expect(r.uss).toBe((15548 + 14396) * KiB);
    expect(r.lazyFree).toBe(5848 * KiB);
  });
});
