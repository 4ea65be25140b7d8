import { describe, expect, it } from "vitest";
import { interimView, KEEP_EXITED_SECONDS, SeriesBuilder } from "../../../src/series/series.js";
import { INTERIM_POINTS, nextAnalysisIn } from "../../../src/session/interim/verdicts.js";
import { injectedAt } from "../../../src/analysis/signals/own-footprint.js";
import { synthesize, MB } from "../../helpers/synthetic-samples.js";
import type { Shape } from "../../helpers/synthetic.js";
import { classify } from "../../../src/report/verdict.js";
import { Column } from "../../../src/series/column.js";
import type { Sample } from "../../../src/system/sample.js";
import { agentOf } from "../../helpers/agent-columns.js";

const MiB = 2 ** 20;

describe("series stay bounded over a long watch", () => {
  it("a pool that starts a short-lived worker every 2 s keeps the root's series and the last 30 s of workers, and counts the rest", () => {
    const b = new SeriesBuilder();
    for (let i = 0; i < 1000; i++) {
      const worker = 1000 + Math.floor(i / 2); // each worker lives 2 samples
      const s: Sample = {
        t: i * 1000,
        processes: [
          { pid: 1, ppid: 0, starttime: 1, comm: "python3", rss: 50 * MiB, anon: 40 * MiB },
          { pid: worker, ppid: 1, starttime: worker, comm: "python3", rss: 20 * MiB, anon: 15 * MiB },
        ],
      };
      b.add(s);
    }
    // At t = 999 s: the root, the running worker, and those last seen less than KEEP_EXITED_SECONDS ago (971 … 997 s).
    const recent = [...Array(500).keys()].filter(
      (w) => 999 - (2 * w + 1) > 0 && 999 - (2 * w + 1) < KEEP_EXITED_SECONDS,
    ).length;
    expect(recent).toBe(14);
    expect(b.set.processes.size).toBe(2 + recent);
    expect(b.set.shortLivedDropped).toBe(500 - 1 - recent);
    const doc = classify({ set: b.set, options: {}, target: { pid: 1 } });
    const tree = doc.findings.find((f) => f.subject.type === "tree")!;
    expect(tree.evidence.shortLivedProcesses as number).toBeGreaterThanOrEqual(498);
  });

  it("a column compacts to its capacity but keeps the exact peak", () => {
    const c = new Column(1000);
    for (let i = 0; i < 100_000; i++) c.push(i, i === 50_000 ? 1e9 : 1);
    expect(c.length).toBeLessThan(1000);
    expect(c.max()).toBe(1e9);
    expect(Math.max(...c.ys)).toBeLessThan(1e9 / 10); // the stored points averaged the spike away
  });
});

describe("the agents' reports, as columns", () => {
  it("each number (and, one level down, each text) by its flattened name; what is not a finite number or a nested text is left out", () => {
    const b = new SeriesBuilder();
    const proc = (pid: number) => ({ pid, ppid: 1, starttime: pid, comm: "python3", anon: 10 * MiB });
    const report = (i: number) => ({
      threads: 2,
      traced: i % 2 === 0, // a flag: 1 or 0
      label: "top-level text is not kept",
      list: [1, 2],
      gone: null,
      py: { allocatedBlocks: 100 + i, bad: Number.NaN, deep: { x: 1 }, on: false },
      malloc: { inUse: 1000 * i, allocator: i < 2 ? "glibc" : "jemalloc" },
      // A field that appears only from the third report on gets its column then.
      ...(i >= 2 && { census: { containerItems: i } }),
    });
    for (let i = 0; i < 4; i++) {
      b.add({
        t: i * 1000,
        processes: [proc(7), proc(8)],
        // 8 reports nothing; 9 is no process of the sample.
        agent: { "7": report(i), "9": { threads: 5 } },
      });
    }
    const ps7 = [...b.set.processes.values()].find((p) => p.pid === 7)!;
    const ps8 = [...b.set.processes.values()].find((p) => p.pid === 8)!;
    expect(Object.keys(ps7.agent)).toEqual([
      "threads",
      "traced",
      "py.allocatedBlocks",
      "py.on",
      "malloc.inUse",
      "census.containerItems",
    ]);
    expect(agentOf(ps7)["traced"]!.ys).toEqual([1, 0, 1, 0]);
    expect(ps7.agent["py.allocatedBlocks"]!.ys).toEqual([100, 101, 102, 103]);
    expect(agentOf(ps7)["py.on"]!.ys).toEqual([0, 0, 0, 0]);
    expect(ps7.agent["malloc.inUse"]!.xs).toEqual([0, 1, 2, 3]);
    expect(ps7.agent["census.containerItems"]!.xs).toEqual([2, 3]);
    expect(ps7.agentText).toEqual({ "malloc.allocator": "jemalloc" });
    expect(ps7.firstReport).toBe(0);
    expect(ps8.agent).toEqual({});
    expect(ps8.firstReport).toBeUndefined();
    expect(b.set.processes.size).toBe(2);
  });
});

describe("a report repeated from tick to tick (the same object: memleak repeats an agent's latest)", () => {
  it("gives the same columns as equal reports made afresh each tick, and a new one after it is flattened again", () => {
    const proc = { pid: 7, ppid: 1, starttime: 7, comm: "python3", anon: 10 * MiB };
    const reportAt = (i: number) =>
      i < 5
        ? { threads: 2, py: { allocatedBlocks: 100, on: true }, malloc: { inUse: 1000, allocator: "glibc" } }
        : { threads: 3, py: { allocatedBlocks: 140 }, census: { containerItems: 9 } };
    const repeated = new SeriesBuilder();
    const fresh = new SeriesBuilder();
    const kept = [reportAt(0), reportAt(5)];
    for (let i = 0; i < 8; i++) {
      repeated.add({ t: i * 1000, processes: [proc], agent: { "7": kept[i < 5 ? 0 : 1] } });
      fresh.add({ t: i * 1000, processes: [proc], agent: { "7": reportAt(i) } });
    }
    const columns = (b: SeriesBuilder) => {
      const ps = [...b.set.processes.values()][0]!;
      return Object.fromEntries(Object.entries(ps.agent).map(([n, c]) => [n, [c!.xs, c!.ys]]));
    };
    expect(columns(repeated)).toEqual(columns(fresh));
    expect(columns(repeated)["py.allocatedBlocks"]![1]).toEqual([100, 100, 100, 100, 100, 140, 140, 140]);
    expect(columns(repeated)["malloc.inUse"]![0]).toEqual([0, 1, 2, 3, 4]);
    expect(columns(repeated)["census.containerItems"]![0]).toEqual([5, 6, 7]);
    expect([...repeated.set.processes.values()][0]!.agentText).toEqual({ "malloc.allocator": "glibc" });
  });
});

describe("the agents' last words", () => {
  it("a last word that is no report (a number, null) gives the process no first report", () => {
    const b = new SeriesBuilder();
    for (let i = 0; i < 3; i++)
      b.add({ t: i * 1000, processes: [{ pid: 7, ppid: 1, starttime: 70, comm: "python3", anon: 9 * MiB }] });
    b.addLastWords(3_000, { "7": 5 });
    b.addLastWords(3_500, { "7": null });
    const ps = [...b.set.processes.values()][0]!;
    expect(ps.firstReport).toBeUndefined();
    expect(ps.agent).toEqual({});
    b.addLastWords(4_000, { "7": { threads: 2 } });
    expect(ps.firstReport).toBe(4);
  });

  it("are added to the process's agent columns after its last sample, and only to processes it knows", () => {
    const b = new SeriesBuilder();
    for (let i = 0; i < 30; i++) {
      b.add({
        t: i * 1000,
        processes: [{ pid: 7, ppid: 1, starttime: 70, comm: "python3", anon: 900 * MiB }],
        agent: { "7": { malloc: { inUse: 800 * MiB } } },
      });
    }
    b.addLastWords(30_500, { "7": { malloc: { inUse: 12 * MiB, allocator: "glibc" } }, "8": { malloc: { inUse: 1 } } });
    const ps = [...b.set.processes.values()][0]!;
    expect(ps.agent["malloc.inUse"]!.xs.at(-1)).toBe(30.5);
    expect(ps.agent["malloc.inUse"]!.ys.at(-1)).toBe(12 * MiB);
    expect(ps.agentText["malloc.allocator"]).toBe("glibc");
    expect(b.set.processes.size).toBe(1);
  });
});

describe("samples of an interpreter's teardown, after its agent's last words", () => {
  // swing_leak.py under run (1 in 4 side by side): its kept list, 59 MiB, freed at exit, and a last sample of 11 MiB
  // taken then made the run stable. The agent sends its last words from atexit, before the teardown.
  const run = () => {
    const b = new SeriesBuilder();
    for (let i = 0; i <= 41; i++) {
      const anon = i < 41 ? (10 + 1.5 * i) * MiB : 11 * MiB;
      b.add({ t: i * 1000, processes: [{ pid: 7, ppid: 1, starttime: 70, comm: "python3", anon }] });
    }
    return b;
  };
  it("are left out, from the process's columns and, for the root, the tree's", () => {
    const b = run();
    b.addLastWords(41_500, { "7": { threads: 2, sentAt: 40.5 } });
    const ps = [...b.set.processes.values()][0]!;
    expect(ps.metrics.anon!.xs.at(-1)).toBe(40);
    expect(ps.metrics.anon!.ys.at(-1)).toBe(70 * MiB);
    expect(ps.lastSeen).toBe(40);
    expect(b.set.tree.anon!.xs.at(-1)).toBe(40);
    // The words themselves are a report like any other; when they were sent is no agent field.
    expect(ps.agent.threads!.ys.at(-1)).toBe(2);
    expect(agentOf(ps).sentAt).toBeUndefined();
  });
  it("the control: last words sent after the last sample (or without a time) leave every sample", () => {
    for (const words of [{ threads: 2, sentAt: 41.2 }, { threads: 2 }]) {
      const b = run();
      b.addLastWords(41_500, { "7": words });
      const ps = [...b.set.processes.values()][0]!;
      expect(ps.metrics.anon!.xs.at(-1)).toBe(41);
      expect(ps.lastSeen).toBe(41);
    }
  });
});

describe("interim verdicts on the coarse twins (a session's verdict so far)", () => {
  const watch = (shape: Shape, seconds: number) => {
    const b = new SeriesBuilder(undefined, INTERIM_POINTS);
    const samples = synthesize({
      seconds,
      processes: [
        { pid: 100, ppid: 1, anon: { shape, baseline: 300 * MB, noise: 5 * MB } },
        { pid: 101, ppid: 100, anon: { shape: { kind: "stable" }, baseline: 80 * MB, noise: 1 * MB } },
      ],
    });
    for (const s of samples) b.add(s);
    return b.set;
  };

  it("the view reaches the newest sample, however coarse its points", () => {
    const set = watch({ kind: "stable" }, 3001);
    const view = interimView(set);
    const last = (c: { xs: number[] } | undefined) => c!.xs[c!.xs.length - 1]!;
    // The last point is the mean of the samples not yet a full coarse point: within a stride of the newest.
    expect(last(set.processes.get("100:1000")!.metrics.anon)).toBe(3000);
    expect(3000 - last(view.processes.get("100:1000")!.metrics.anon)).toBeLessThan(16);
  });

  it("an agent there from the first sample is not taken for an injected one on a compacted view", () => {
    const b = new SeriesBuilder(undefined, INTERIM_POINTS);
    for (const s of synthesize({
      seconds: 3600,
      processes: [
        {
          pid: 100,
          ppid: 1,
          anon: { shape: { kind: "stable" }, baseline: 100 * MB },
          agent: () => ({ py: { allocatedBlocks: 1 } }),
        },
      ],
    }))
      b.add(s);
    const view = interimView(b.set);
    expect(view.processes.get("100:1000")!.agent["py.allocatedBlocks"]!.xs[0]).toBeGreaterThan(1);
    expect(injectedAt(view.processes.get("100:1000")!)).toBeUndefined();
  });

  it("every column of the view has at most INTERIM_POINTS points after an hour, and the full set keeps them all", () => {
    const set = watch({ kind: "stable" }, 3600);
    const view = interimView(set);
    const columns = (s: typeof set) =>
      [...s.processes.values()]
        .flatMap((p) => [...Object.values(p.metrics), p.shared])
        .concat(Object.values(s.cgroup), Object.values(s.tree));
    // At most the twin's capacity, and the pending partial point.
    expect(Math.max(...columns(view).map((c) => c!.length))).toBeLessThanOrEqual(INTERIM_POINTS + 1);
    expect(Math.min(...columns(set).map((c) => c!.length))).toBe(3600);
  });

  it.each([
    ["a leak of 0.2 MiB/s", { kind: "linear", bytesPerSecond: 0.2 * MB }, "leak"],
    ["a 60 s GC sawtooth of 200 MiB", { kind: "sawtooth", period: 60, amplitude: 200 * MB }, "stable"],
    ["a cache that fills for 10 minutes", { kind: "fill", bytesPerSecond: 0.5 * MB, until: 600 }, "plateau"],
  ] as [string, Shape, string][])(
    "%s over 30 minutes: the same verdict on the view as on the full series (%s)",
    (_name, shape, kind) => {
      const set = watch(shape, 1800);
      const judge = (s: typeof set) =>
        classify({ set: s, options: {}, target: { pid: 100 }, cgroup: { path: "/x", version: 1 } }).verdict.kind;
      expect(judge(set)).toBe(kind);
      expect(judge(interimView(set))).toBe(kind);
    },
  );
});

describe("how often the verdict so far is worked out", () => {
  it.each([
    ["early, cheap: every second", 10, 0.002, 1],
    ["early, 60 ms (64 processes): held to 0.5% of a core, its garbage counted", 10, 0.06, 24],
    ["early, 12 ms (9 processes): every 4.8 s", 10, 0.012, 4.8],
    ["later, cheap (1 ms): every 5 s", 120, 0.001, 5],
    ["later, 2 ms (one process): its garbage counted, every 8 s", 120, 0.002, 8],
    ["later, 12 ms: held to 0.05% of a core, its garbage counted", 120, 0.012, 48],
    ["later, 60 ms (64 processes): every 4 minutes", 600, 0.06, 240],
  ] as [string, number, number, number][])("%s", (_name, duration, cost, seconds) => {
    expect(nextAnalysisIn(duration, cost)).toBeCloseTo(seconds, 6);
  });

  it("under --fail-fast, every 5 s whatever a verdict costs (it runs on its own thread)", () => {
    expect(nextAnalysisIn(600, 0.3, true)).toBe(5);
    expect(nextAnalysisIn(10, 0.3, true)).toBe(1);
  });
});
