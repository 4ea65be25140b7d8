/**
 * series/series.ts by exact columns on a few hand-made samples: per-process metrics, the tree's sums (only when every
 * process has the field; PSS carried forward, only once every live process has one), the cgroup's columns and its
 * unreclaimable memory, the agent's reports flattened one level, the last words and the injection time given to the
 * right process, short-lived processes dropped, and the set mapped column by column (interimView, packed-set.ts).
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../src/series/column.js";
import { packSet, unpackSet } from "../../../src/series/packed-set.js";
import {
  buildSeries,
  interimView,
  KEEP_EXITED_SECONDS,
  mapColumns,
  SeriesBuilder,
  type SeriesSet,
  unreclaimable,
} from "../../../src/series/series.js";
import type { ProcessSample, Sample } from "../../../src/system/sample.js";
import { agentOf, textOf } from "../../helpers/agent-columns.js";

const proc = (pid: number, extra: Partial<ProcessSample> = {}): ProcessSample => ({
  pid,
  ppid: 1,
  starttime: pid * 10,
  comm: "python3",
  ...extra,
});

const points = (c: Column | undefined) => (c ? { xs: c.xs, ys: c.ys } : undefined);

describe("SeriesBuilder.add", () => {
  it("times in seconds since the first sample; duration, count and the root's pid", () => {
    const b = new SeriesBuilder();
    expect(b.set).toMatchObject({ t0: undefined, duration: 0, samples: 0, rootPid: undefined, shortLivedDropped: 0 });
    b.add({ t: 5000, processes: [] });
    expect(b.set.rootPid).toBeUndefined();
    b.add({ t: 6500, processes: [proc(42, { rss: 10 }), proc(43, { rss: 1 })] });
    b.add({ t: 8000, processes: [proc(43, { rss: 2 })] });
    expect(b.set).toMatchObject({ t0: 5000, duration: 3, samples: 3, rootPid: 42 });
    expect(points(b.set.treeCount)).toEqual({ xs: [0, 1.5, 3], ys: [0, 2, 1] });
    const p42 = b.set.processes.get("42:420")!;
    expect(p42).toMatchObject({ pid: 42, starttime: 420, ppid: 1, comm: "python3", firstSeen: 1.5, lastSeen: 1.5 });
    expect(b.set.processes.get("43:430")).toMatchObject({ firstSeen: 1.5, lastSeen: 3, seenCount: 2 });
  });

  it("each process's metrics as read, a column only for the fields it had", () => {
    const b = new SeriesBuilder();
    b.add({ t: 0, processes: [proc(7, { rss: 100, anon: 60, file: 40, swap: 0, pss: 90, uss: 50 })] });
    b.add({ t: 1000, processes: [proc(7, { rss: 110, anon: 70, file: 40, swap: 1 })] });
    const m = b.set.processes.get("7:70")!.metrics;
    expect(points(m.rss)).toEqual({ xs: [0, 1], ys: [100, 110] });
    expect(points(m.anon)).toEqual({ xs: [0, 1], ys: [60, 70] });
    expect(points(m.file)).toEqual({ xs: [0, 1], ys: [40, 40] });
    expect(points(m.swap)).toEqual({ xs: [0, 1], ys: [0, 1] });
    expect(points(m.pss)).toEqual({ xs: [0], ys: [90] });
    expect(points(m.uss)).toEqual({ xs: [0], ys: [50] });
    expect(Object.keys(m).sort()).toEqual(["anon", "file", "pss", "rss", "swap", "uss"]);
  });

  it("shared = Shared_Clean + Shared_Dirty, only when both were read; the parent's anon at the child's start", () => {
    const b = new SeriesBuilder();
    b.add({
      t: 0,
      processes: [proc(1, { ppid: 0, anon: 500 }), proc(2, { ppid: 1, sharedClean: 30, sharedDirty: 12 })],
    });
    b.add({ t: 1000, processes: [proc(1, { ppid: 0, anon: 900 }), proc(2, { ppid: 1, sharedClean: 30 })] });
    const child = b.set.processes.get("2:20")!;
    expect(points(child.shared)).toEqual({ xs: [0], ys: [42] });
    expect(child.parentAnonAtStart).toBe(500);
    expect(b.set.processes.get("1:10")!.parentAnonAtStart).toBeUndefined();
  });

  it("the tree's rss, anon, file, swap: summed at a time only when every process has the field", () => {
    const b = new SeriesBuilder();
    b.add({ t: 0, processes: [proc(1, { rss: 10, anon: 5 }), proc(2, { rss: 20 })] });
    b.add({ t: 1000, processes: [proc(1, { rss: 11, anon: 6 }), proc(2, { rss: 21, anon: 7 })] });
    expect(points(b.set.tree.rss)).toEqual({ xs: [0, 1], ys: [30, 32] });
    expect(points(b.set.tree.anon)).toEqual({ xs: [1], ys: [13] });
    expect(b.set.tree.file).toBeUndefined();
    expect(b.set.tree.swap).toBeUndefined();
  });

  it("the tree's pss, uss and pss-anon: each process's last reading carried forward, summed once all have one", () => {
    const b = new SeriesBuilder();
    b.add({ t: 0, processes: [proc(1, { pss: 100, uss: 80, pssAnon: 60 }), proc(2)] });
    // process 2 has none yet: no total
    expect(b.set.tree.pss).toBeUndefined();
    b.add({ t: 1000, processes: [proc(1), proc(2, { pss: 10, pssAnon: 4 })] });
    // 1's 100 carried forward; 2 has no uss: no uss total
    expect(points(b.set.tree.pss)).toEqual({ xs: [1], ys: [110] });
    expect(b.set.tree.uss).toBeUndefined();
    expect(points(b.set.tree["pss-anon"])).toEqual({ xs: [1], ys: [64] });
    b.add({ t: 2000, processes: [proc(1, { pss: 120, uss: 90 }), proc(2, { pss: 12, uss: 9, pssAnon: 5 })] });
    expect(points(b.set.tree.pss)).toEqual({ xs: [1, 2], ys: [110, 132] });
    expect(points(b.set.tree.uss)).toEqual({ xs: [2], ys: [99] });
    // 1's pssAnon is now unknown (its last reading had none): no pss-anon total
    expect(points(b.set.tree["pss-anon"])).toEqual({ xs: [1], ys: [64] });
    // process 2 exits: its reading is forgotten, the tree is 1's alone
    b.add({ t: 3000, processes: [proc(1)] });
    expect(points(b.set.tree.pss)).toEqual({ xs: [1, 2, 3], ys: [110, 132, 120] });
    // a process that comes back with the same key has no reading until it reads again
    b.add({ t: 4000, processes: [proc(1), proc(2)] });
    expect(b.set.tree.pss!.xs).toEqual([1, 2, 3]);
  });

  it("GPU memory by GPU index, and mapped files at the most resident reading of each", () => {
    const b = new SeriesBuilder();
    b.add({
      t: 0,
      processes: [
        proc(5, {
          gpu: { "0": 300, "1": 50 },
          files: [
            { path: "/m/a", rss: 10 },
            { path: "/m/b", rss: 5 },
          ],
        }),
      ],
    });
    b.add({
      t: 1000,
      processes: [
        proc(5, {
          gpu: { "0": 400 },
          files: [
            { path: "/m/a", rss: 8 },
            { path: "/m/b", rss: 6, deleted: true },
            { path: "/m/c", rss: 0 },
          ],
        }),
      ],
    });
    const ps = b.set.processes.get("5:50")!;
    expect(points(ps.gpuUsed["0"])).toEqual({ xs: [0, 1], ys: [300, 400] });
    expect(points(ps.gpuUsed["1"])).toEqual({ xs: [0], ys: [50] });
    expect(ps.files.get("/m/a")).toEqual({ path: "/m/a", rss: 10 });
    expect(ps.files.get("/m/b")).toEqual({ path: "/m/b", rss: 6, deleted: true });
    // a file seen with 0 bytes resident is still listed
    expect(ps.files.get("/m/c")).toEqual({ path: "/m/c", rss: 0 });
    // a later reading with the same residence does not replace the first
    b.add({ t: 2000, processes: [proc(5, { files: [{ path: "/m/a", rss: 10, deleted: true }] })] });
    expect(ps.files.get("/m/a")).toEqual({ path: "/m/a", rss: 10 });
  });

  it("the cgroup's columns, its limit, memory.high and OOM kills, and the machine's memory", () => {
    const b = new SeriesBuilder();
    b.add({
      t: 0,
      processes: [],
      cgroup: {
        usage: 1000,
        workingSet: 800,
        limit: 4000,
        high: null,
        oomKills: 0,
        kernel: 50,
        stat: {
          anon: 500,
          file: 300,
          activeFile: 100,
          inactiveFile: 200,
          shmem: 20,
          fileDirty: 3,
          slabReclaimable: 10,
        },
      },
      machine: { memTotal: 16000, memAvailable: 9000 },
    });
    b.add({ t: 1000, processes: [], cgroup: { usage: 1100, oomKills: 1 } });
    const c = b.set.cgroup;
    expect(points(c.cgroup)).toEqual({ xs: [0, 1], ys: [1000, 1100] });
    expect(points(c["working-set"])).toEqual({ xs: [0], ys: [800] });
    expect(points(c["cgroup-anon"])).toEqual({ xs: [0], ys: [500] });
    expect(points(c["cgroup-file"])).toEqual({ xs: [0], ys: [300] });
    expect(points(c["cgroup-active-file"])).toEqual({ xs: [0], ys: [100] });
    expect(points(c["cgroup-inactive-file"])).toEqual({ xs: [0], ys: [200] });
    expect(points(c["cgroup-shmem"])).toEqual({ xs: [0], ys: [20] });
    expect(points(c["cgroup-dirty"])).toEqual({ xs: [0], ys: [3] });
    expect(points(c["cgroup-kernel"])).toEqual({ xs: [0], ys: [50] });
    // 500 + 20 + (50 − 10)
    expect(points(c["cgroup-unreclaimable"])).toEqual({ xs: [0], ys: [560] });
    // limit and high as last read: a sample without them leaves them
    expect(b.set.cgroupLimit).toBe(4000);
    expect(b.set.cgroupHigh).toBeNull();
    expect(points(b.set.cgroupOomKills)).toEqual({ xs: [0, 1], ys: [0, 1] });
    expect(b.set.machineTotal).toBe(16000);
    expect(b.set.machineAvailable).toBe(9000);
    b.add({ t: 2000, processes: [], cgroup: { limit: null, high: 3000 } });
    expect(b.set.cgroupLimit).toBeNull();
    expect(b.set.cgroupHigh).toBe(3000);
  });

  it("buildSeries: every sample added, at the capacity given", () => {
    const samples: Sample[] = [0, 1, 2, 3].map((i) => ({ t: i * 1000, processes: [proc(1, { rss: i })] }));
    const set = buildSeries(samples, 4);
    expect(set.samples).toBe(4);
    expect(points(set.processes.get("1:10")!.metrics.rss)).toEqual({ xs: [0.5, 2.5], ys: [0.5, 2.5] });
    expect(buildSeries(samples).processes.get("1:10")!.metrics.rss!.length).toBe(4);
  });
});

describe("unreclaimable", () => {
  it("anon + shmem + kernel memory less its reclaimable slab; undefined without anon", () => {
    expect(unreclaimable({ stat: { anon: 100 } })).toBe(100);
    expect(unreclaimable({ stat: { anon: 100, shmem: 7 } })).toBe(107);
    expect(unreclaimable({ kernel: 30, stat: { anon: 100 } })).toBe(130);
    expect(unreclaimable({ kernel: 30, stat: { anon: 100, slabReclaimable: 12 } })).toBe(118);
    // more reclaimable slab than kernel memory read (separate reads): never below 0
    expect(unreclaimable({ kernel: 5, stat: { anon: 100, slabReclaimable: 12 } })).toBe(100);
    expect(unreclaimable({ kernel: 30, stat: { shmem: 7 } })).toBeUndefined();
    expect(unreclaimable({ usage: 10 })).toBeUndefined();
  });
});

describe("the agent's reports", () => {
  it("numbers and booleans by their dotted names, text one level down, arrays and deeper objects left out", () => {
    const b = new SeriesBuilder();
    b.add({
      t: 0,
      processes: [proc(9)],
      agent: {
        "9": {
          top: 3,
          flag: true,
          name: "top-level text is left out",
          list: [1, 2],
          bad: NaN,
          malloc: { inUse: 800, allocator: "glibc", on: false, deep: { x: 1 }, arr: [1] },
        },
        "10": { top: 99 },
        "11": "not a report",
      },
    });
    b.add({ t: 2000, processes: [proc(9)], agent: { "9": { malloc: { inUse: 900 } } } });
    const ps = b.set.processes.get("9:90")!;
    expect(Object.keys(ps.agent).sort()).toEqual(["flag", "malloc.inUse", "malloc.on", "top"]);
    expect(points(agentOf(ps).top)).toEqual({ xs: [0], ys: [3] });
    expect(points(agentOf(ps).flag)).toEqual({ xs: [0], ys: [1] });
    expect(points(agentOf(ps)["malloc.on"])).toEqual({ xs: [0], ys: [0] });
    expect(points(ps.agent["malloc.inUse"])).toEqual({ xs: [0, 2], ys: [800, 900] });
    expect(ps.agentText).toEqual({ "malloc.allocator": "glibc" });
    expect(ps.firstReport).toBe(0);
    // reports for pids not in the sample are dropped
    expect(b.set.processes.size).toBe(1);
  });

  it("firstReport is the time of the first report, kept", () => {
    const b = new SeriesBuilder();
    b.add({ t: 0, processes: [proc(9)] });
    b.add({ t: 1000, processes: [proc(9)], agent: { "9": null } });
    b.add({ t: 1500, processes: [proc(9)], agent: { "9": 5 } });
    b.add({ t: 2000, processes: [proc(9)], agent: { "9": { a: 1 } } });
    b.add({ t: 3000, processes: [proc(9)], agent: { "9": { a: 2 } } });
    expect(b.set.processes.get("9:90")!.firstReport).toBe(2);
  });

  it("last words go to the latest process of that pid, at their own time or the last sample's", () => {
    const b = new SeriesBuilder();
    b.addLastWords(100, { "9": { a: 1 } }); // before any sample: nothing to add to
    expect(b.set.processes.size).toBe(0);
    b.add({ t: 0, processes: [proc(9, { starttime: 1 })] });
    b.add({ t: 1000, processes: [proc(9, { starttime: 2 })] });
    b.add({ t: 2000, processes: [proc(9, { starttime: 2 })] });
    b.addLastWords(5000, { "9": { a: 7, m: { kind: "x" } } });
    expect(agentOf(b.set.processes.get("9:1")!).a).toBeUndefined();
    const later = b.set.processes.get("9:2")!;
    expect(points(agentOf(later).a)).toEqual({ xs: [5], ys: [7] });
    expect(textOf(later)["m.kind"]).toBe("x");
    // words dated before the last sample are put at the last sample's time (2 s)
    b.addLastWords(500, { "9": { a: 8 } });
    expect(points(agentOf(later).a)).toEqual({ xs: [5, 2], ys: [7, 8] });
  });

  it("last words for the older of two processes of a pid when it was seen last", () => {
    const b = new SeriesBuilder();
    b.add({ t: 0, processes: [proc(9, { starttime: 2 })] });
    b.add({ t: 1000, processes: [proc(9, { starttime: 1 })] });
    b.addLastWords(1000, { "9": { a: 1 } });
    expect(agentOf(b.set.processes.get("9:1")!).a!.ys).toEqual([1]);
    expect(agentOf(b.set.processes.get("9:2")!).a).toBeUndefined();
  });
});

describe("addInjection", () => {
  const twoOfOnePid = () => {
    const b = new SeriesBuilder();
    for (let t = 0; t <= 4; t++) b.add({ t: t * 1000, processes: [proc(9, { starttime: 1 })] });
    for (let t = 5; t <= 9; t++) b.add({ t: t * 1000, processes: [proc(9, { starttime: 2 }), proc(3)] });
    return b;
  };

  it("the process of that pid alive at the injection's time", () => {
    const b = twoOfOnePid();
    b.addInjection(9, 2500);
    expect(b.set.processes.get("9:1")!.injectionStarted).toBe(2.5);
    expect(b.set.processes.get("9:2")!.injectionStarted).toBeUndefined();
    b.addInjection(9, 6000);
    expect(b.set.processes.get("9:2")!.injectionStarted).toBe(6);
    // at the boundaries of a process's life it is still alive
    const c = twoOfOnePid();
    c.addInjection(9, 4000);
    expect(c.set.processes.get("9:1")!.injectionStarted).toBe(4);
    const d = twoOfOnePid();
    d.addInjection(9, 5000);
    expect(d.set.processes.get("9:2")!.injectionStarted).toBe(5);
    expect(d.set.processes.get("9:1")!.injectionStarted).toBeUndefined();
  });

  it("none alive then: the one seen last; no process of that pid, or no time: nothing", () => {
    const b = twoOfOnePid();
    b.addInjection(9, 30_000);
    expect(b.set.processes.get("9:2")!.injectionStarted).toBe(30);
    expect(b.set.processes.get("9:1")!.injectionStarted).toBeUndefined();
    b.addInjection(77, 1000);
    b.addInjection(9, NaN);
    expect(b.set.processes.get("9:2")!.injectionStarted).toBe(30);
    expect([...b.set.processes.values()].filter((p) => p.injectionStarted !== undefined)).toHaveLength(1);
    const e = new SeriesBuilder();
    e.addInjection(9, 1000); // before any sample
    expect(e.set.t0).toBeUndefined();
  });

  it("the process alive then is chosen over one seen later, in either order of the map", () => {
    const b = new SeriesBuilder();
    for (let t = 0; t <= 9; t++) b.add({ t: t * 1000, processes: [proc(9, { starttime: t < 5 ? 1 : 2 })] });
    b.addInjection(9, -1000); // before both: the one seen last
    expect(b.set.processes.get("9:2")!.injectionStarted).toBe(-1);
    b.addInjection(9, 1000);
    expect(b.set.processes.get("9:1")!.injectionStarted).toBe(1);
  });
});

describe("two processes of one pid at once (pid namespaces): which one gets the injection and the last words", () => {
  /** Processes 9:1 and 9:2 (one pid, two start times), each present over its [first, last] seconds; t0 = 100 s. */
  function overlapping(a: [number, number], b: [number, number]): SeriesBuilder {
    const builder = new SeriesBuilder();
    for (let t = 0; t <= 9; t++) {
      const processes = [proc(1)];
      if (t >= a[0] && t <= a[1]) processes.push(proc(9, { starttime: 1 }));
      if (t >= b[0] && t <= b[1]) processes.push(proc(9, { starttime: 2 }));
      builder.add({ t: 100_000 + t * 1000, processes });
    }
    return builder;
  }
  const injected = (b: SeriesBuilder) =>
    ["9:1", "9:2"].filter((k) => b.set.processes.get(k)!.injectionStarted !== undefined);

  it.each([
    ["neither alive: the one seen last (9:1, 0–9 s, over 9:2, 3–5 s)", [0, 9], [3, 5], 99_000, "9:1"],
    ["neither alive, both seen last at 9 s: the first", [0, 9], [5, 9], 99_000, "9:1"],
    ["both alive at 5 s: the one seen last", [0, 5], [5, 9], 105_000, "9:2"],
    ["alive from its first sample, the other not yet", [0, 3], [2, 9], 100_000, "9:1"],
    ["alive, the other not yet (first seen at 2 s)", [0, 3], [2, 9], 101_000, "9:1"],
    ["between the two: the one seen last", [0, 3], [5, 9], 104_500, "9:2"],
    ["after both: the one seen last, though it was first seen first", [0, 8], [2, 5], 108_500, "9:1"],
  ] as [string, [number, number], [number, number], number, string][])("%s", (_name, a, b, at, want) => {
    const builder = overlapping(a, b);
    builder.addInjection(9, at);
    expect(injected(builder)).toEqual([want]);
    expect(builder.set.processes.get(want)!.injectionStarted).toBe((at - 100_000) / 1000);
  });

  it("last words: the one of the pid seen last; of two seen last together, the first", () => {
    const seenLast = overlapping([0, 9], [3, 5]);
    seenLast.addLastWords(112_000, { "9": { a: 1 } });
    expect(agentOf(seenLast.set.processes.get("9:1")!).a!.xs).toEqual([12]);
    expect(agentOf(seenLast.set.processes.get("9:2")!).a).toBeUndefined();
    const together = overlapping([0, 9], [5, 9]);
    together.addLastWords(105_000, { "9": { a: 1 } });
    // dated before the last sample (9 s): at 9 s
    expect(agentOf(together.set.processes.get("9:1")!).a!.xs).toEqual([9]);
    expect(agentOf(together.set.processes.get("9:2")!).a).toBeUndefined();
  });
});

describe("short-lived processes", () => {
  it("dropped KEEP_EXITED_SECONDS after they exit when too short to judge; the root and long-lived ones kept", () => {
    expect(KEEP_EXITED_SECONDS).toBe(30);
    const b = new SeriesBuilder();
    for (let t = 0; t <= 60; t++) {
      const processes = [proc(1, { rss: 1 })];
      if (t < 3) processes.push(proc(2)); // 3 samples: too short
      if (t < 25) processes.push(proc(3)); // 25 samples over 24 s: long enough
      b.add({ t: t * 1000, processes });
    }
    expect([...b.set.processes.keys()].sort()).toEqual(["1:10", "3:30"]);
    expect(b.set.shortLivedDropped).toBe(1);
  });

  it("kept until KEEP_EXITED_SECONDS have passed since it was last seen", () => {
    const b = new SeriesBuilder();
    b.add({ t: 0, processes: [proc(1)] });
    b.add({ t: 5000, processes: [proc(1), proc(2)] });
    b.add({ t: 34_000, processes: [proc(1)] });
    expect(b.set.processes.has("2:20")).toBe(true);
    b.add({ t: 35_000, processes: [proc(1)] });
    expect(b.set.processes.has("2:20")).toBe(false);
    expect(b.set.shortLivedDropped).toBe(1);
  });

  it("the root is kept even when it was short-lived", () => {
    const b = new SeriesBuilder();
    b.add({ t: 0, processes: [proc(1)] });
    b.add({ t: 40_000, processes: [proc(2)] });
    expect(b.set.processes.has("1:10")).toBe(true);
    expect(b.set.shortLivedDropped).toBe(0);
  });

  it("20 samples over less than 10 s are still too few to keep", () => {
    const b = new SeriesBuilder();
    for (let i = 0; i < 20; i++) b.add({ t: i * 400, processes: [proc(1), proc(2)] });
    b.add({ t: 60_000, processes: [proc(1)] });
    expect(b.set.processes.has("2:20")).toBe(false);
    const c = new SeriesBuilder();
    for (let i = 0; i < 20; i++) c.add({ t: i * 1000, processes: [proc(1), proc(2)] });
    c.add({ t: 60_000, processes: [proc(1)] });
    expect(c.set.processes.has("2:20")).toBe(true);
    // 20 samples from 6 s to 15.5 s: 9.5 s, too short (its span, not its last time, is what counts)
    const d = new SeriesBuilder();
    d.add({ t: 0, processes: [proc(1)] });
    for (let i = 0; i < 20; i++) d.add({ t: 6000 + i * 500, processes: [proc(1), proc(2)] });
    d.add({ t: 60_000, processes: [proc(1)] });
    expect(d.set.processes.has("2:20")).toBe(false);
  });
});

describe("addCgroupReading", () => {
  it("a reading of a cgroup alone: the cgroup's columns and a count of 0, no tree", () => {
    const b = new SeriesBuilder();
    b.addCgroupReading({ t: 1000, processes: [], cgroup: { usage: 10, stat: { anon: 4 } } });
    b.addCgroupReading({ t: 3000, processes: [], cgroup: { usage: 12, stat: { anon: 5 } } });
    b.addCgroupReading({ t: 4000, processes: [] });
    expect(b.set).toMatchObject({ t0: 1000, duration: 3, samples: 3 });
    expect(points(b.set.cgroup.cgroup)).toEqual({ xs: [0, 2], ys: [10, 12] });
    expect(points(b.set.cgroup["cgroup-unreclaimable"])).toEqual({ xs: [0, 2], ys: [4, 5] });
    expect(points(b.set.treeCount)).toEqual({ xs: [0, 2, 3], ys: [0, 0, 0] });
    expect(b.set.tree).toEqual({});
  });

  it("a reading with a process, the machine or an agent goes through add", () => {
    const b = new SeriesBuilder();
    b.addCgroupReading({ t: 0, processes: [proc(1, { rss: 3 })], cgroup: { usage: 10 } });
    expect(points(b.set.tree.rss)).toEqual({ xs: [0], ys: [3] });
    b.addCgroupReading({ t: 1000, processes: [], machine: { memTotal: 100, memAvailable: 50 } });
    expect(b.set.machineTotal).toBe(100);
    // add() sums the tree over no process: 0 (what addCgroupReading alone leaves out)
    expect(points(b.set.tree.rss)).toEqual({ xs: [0, 1], ys: [3, 0] });
    b.addCgroupReading({ t: 2000, processes: [], agent: {} });
    expect(b.set.tree.rss!.ys).toEqual([3, 0, 0]);
  });
});

describe("mapColumns, interimView and the packed set", () => {
  const small = (): SeriesSet => {
    const b = new SeriesBuilder(8, 2);
    for (let t = 0; t < 5; t++)
      b.add({
        t: t * 1000,
        processes: [proc(1, { rss: 10 + t, sharedClean: 1, sharedDirty: t, gpu: { "0": t } })],
        cgroup: { usage: 100 + t, oomKills: 0 },
        agent: { "1": { a: t } },
      });
    return b.set;
  };

  it("mapColumns replaces every column and keeps the rest", () => {
    const set = small();
    const lengths = mapColumns(set, (c: Column) => c.length);
    expect(lengths.treeCount).toBe(5);
    expect(lengths.cgroupOomKills).toBe(5);
    expect(lengths.tree).toEqual({ rss: 5 });
    expect(lengths.cgroup.cgroup).toBe(5);
    const p = lengths.processes.get("1:10")!;
    expect(p).toMatchObject({ pid: 1, comm: "python3", shared: 5, metrics: { rss: 5 }, agent: { a: 5 } });
    expect(p.gpuUsed).toEqual({ "0": 5 });
    expect(lengths.samples).toBe(5);
  });

  it("interimView: the coarse twins up to the newest sample", () => {
    const set = small();
    const view = interimView(set);
    // capacity 2: (0,1) compacted to 0.5, then (2,3) → 2.5, compacted with it to 1.5 at stride 4; 4 pending
    expect(view.processes.get("1:10")!.metrics.rss!.xs).toEqual([1.5, 4]);
    expect(view.treeCount.xs).toEqual([1.5, 4]);
    expect(view.cgroup.cgroup!.ys).toEqual([101.5, 104]);
    expect(agentOf(view.processes.get("1:10")!).a!.xs).toEqual([1.5, 4]);
    // a column without a twin is itself
    const plain = buildSeries([{ t: 0, processes: [proc(1, { rss: 1 })] }]);
    expect(interimView(plain).processes.get("1:10")!.metrics.rss).toBe(plain.processes.get("1:10")!.metrics.rss);
  });

  it("packSet / unpackSet: the same points and peaks, the buffers listed to transfer", () => {
    const set = small();
    const { packed, transfer } = packSet(set);
    const p = packed.processes.get("1:10")!;
    expect(p.metrics.rss!.xs).toBeInstanceOf(Float64Array);
    expect(Array.from(p.metrics.rss!.ys)).toEqual([10, 11, 12, 13, 14]);
    expect(p.metrics.rss!.peak).toBe(14);
    // rss, shared, gpu 0, agent a, treeCount, tree rss, cgroup usage, oomKills: two buffers each
    expect(transfer).toHaveLength(16);
    expect(transfer).toContain(p.metrics.rss!.xs.buffer);
    expect(transfer).toContain(p.metrics.rss!.ys.buffer);
    const back = unpackSet(packed);
    const rss = back.processes.get("1:10")!.metrics.rss!;
    expect(rss).toBeInstanceOf(Column);
    expect(points(rss)).toEqual({ xs: [0, 1, 2, 3, 4], ys: [10, 11, 12, 13, 14] });
    expect(rss.max()).toBe(14);
    expect(points(back.cgroupOomKills)).toEqual({ xs: [0, 1, 2, 3, 4], ys: [0, 0, 0, 0, 0] });
    expect(back.samples).toBe(5);
  });
});
