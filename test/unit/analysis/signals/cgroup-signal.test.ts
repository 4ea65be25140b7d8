/**
 * signals/cgroup.ts `analyzeCgroup` on samples built by hand, without noise: 60 s at 1 Hz, each part of memory.stat
 * a shape of its own, so that the breakdown (levels of the first and last tenths: 6 points each) is exact and each
 * rule can be put exactly on its line. What is pinned: which finding, its evidence, and the facts its sentences are
 * worded from (the wording itself is report/wording's, tested there). Through the whole engine: rules/cgroup.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Context } from "../../../../src/analysis/context.js";
import type { OwnArrival } from "../../../../src/analysis/signals/own-footprint.js";
import { analyzeCgroup, artefactConfidence, breakdownChange } from "../../../../src/analysis/signals/cgroup.js";
import { Column } from "../../../../src/series/column.js";
import { buildSeries } from "../../../../src/series/series.js";
import type { Sample } from "../../../../src/system/sample.js";

const MB = 2 ** 20;
/** 16 KiB: rates in whole units of it keep every level change exact. */
const U = 2 ** 14;
/** A part growing `perSecond` bytes a second: over 60 points its level change is 54 × perSecond. */
const linear = (perSecond: number) => (t: number) => perSecond * t;
/** A part that steps up by `by` at 30 s: its level change is exactly `by`. */
const step = (by: number) => (t: number) => (t >= 30 ? by : 0);
/** Grows `perSecond` until `until`, then flat: a plateau. */
const fill =
  (perSecond: number, until = 20) =>
  (t: number) =>
    perSecond * Math.min(t, until);
const none = () => 0;

interface Parts {
  anon?: (t: number) => number;
  cache?: (t: number) => number;
  kernel?: (t: number) => number;
  shmem?: (t: number) => number;
  /** The processes' Σ Pss_Anon. */
  pss?: (t: number) => number;
  /** The processes' resident file pages (RssFile): mapped page cache. */
  mapped?: (t: number) => number;
  /** Usage, when not the sum of the parts (memory the parts do not list: sockets, per-cpu…). */
  usage?: (t: number) => number;
  workingSet?: (t: number) => number;
  limit?: number | null;
  oomKills?: (t: number) => number;
  dirty?: number;
  seconds?: number;
  files?: { path: string; rss: number }[];
}

function samples(p: Parts): Sample[] {
  const out: Sample[] = [];
  const f = (g: ((t: number) => number) | undefined, t: number) => (g ?? none)(t);
  for (let t = 0; t < (p.seconds ?? 60); t++) {
    const anon = 50 * MB + f(p.anon, t);
    const cache = 30 * MB + f(p.cache, t);
    const shmem = f(p.shmem, t);
    const kernel = 10 * MB + f(p.kernel, t);
    const usage = p.usage ? 90 * MB + p.usage(t) : anon + cache + shmem + kernel;
    out.push({
      t: 1_700_000_000_000 + t * 1000,
      processes: [
        {
          pid: 100,
          ppid: 1,
          starttime: 1,
          comm: "python3",
          rss: 70 * MB + f(p.mapped, t),
          anon: 50 * MB,
          file: 20 * MB + f(p.mapped, t),
          pss: 60 * MB,
          pssAnon: 40 * MB + f(p.pss, t),
          uss: 40 * MB,
          ...(p.files && t === 40 && { files: p.files }),
        },
      ],
      cgroup: {
        usage,
        workingSet: p.workingSet ? 70 * MB + p.workingSet(t) : usage - cache,
        limit: p.limit === undefined ? null : p.limit,
        kernel,
        ...(p.oomKills && { oomKills: p.oomKills(t) }),
        stat: { anon, file: cache + shmem, shmem, ...(p.dirty !== undefined && { fileDirty: p.dirty }) },
      },
    });
  }
  return out;
}

const SUBJECT = { type: "cgroup", path: "/app", version: 2 } as const;
const ctx = (from = 0): Context => ({ from, warmup: from, duration: 59, agentSeen: false });
const analyze = (p: Parts, from = 0, own: OwnArrival[] = []) =>
  analyzeCgroup(buildSeries(samples(p)), SUBJECT, ctx(from), own)!;
/** The breakdown's part of the evidence, the trend's left out. */
const breakdown = (p: Parts, from = 0, own: OwnArrival[] = []) => {
  const e = analyze(p, from, own).evidence;
  const keys = [
    "usageGrowth",
    "anonGrowth",
    "pageCacheGrowth",
    "shmemGrowth",
    "kernelGrowth",
    "processesGrowth",
    "processesMetric",
    "workingSetGrowth",
    "growthIn",
  ];
  return Object.fromEntries(Object.entries(e).filter(([k]) => keys.includes(k)));
};

/** The breakdown's keys in the evidence, in order. */
const breakdownKeys = (f: { evidence: object }) =>
  Object.keys(f.evidence).filter((k) =>
    [
      "usageGrowth",
      "anonGrowth",
      "pageCacheGrowth",
      "shmemGrowth",
      "kernelGrowth",
      "processesGrowth",
      "processesMetric",
      "workingSetGrowth",
      "growthIn",
    ].includes(k),
  );

describe("artefactConfidence", () => {
  it("0.5 + 0.49 × the share, the share held to [0, 1]", () => {
    expect(artefactConfidence(-0.5)).toBe(0.5);
    expect(artefactConfidence(0)).toBe(0.5);
    expect(artefactConfidence(0.2)).toBe(0.6);
    expect(artefactConfidence(1)).toBe(0.99);
    expect(artefactConfidence(3)).toBe(0.99);
  });
});

describe("analyzeCgroup: where the growth went", () => {
  it("page cache the processes do not map: an artefact, with every part of the breakdown", () => {
    // usage +16 U/s: cache 13, anon 3
    const f = analyze({ cache: linear(13 * U), anon: linear(3 * U), dirty: 2 * MB });
    expect(f.kind).toBe("cgroup-artefact");
    expect(f.confidence).toBe(artefactConfidence(13 / 16));
    expect(f.metric).toBe("cgroup");
    expect(breakdown({ cache: linear(13 * U), anon: linear(3 * U) })).toEqual({
      usageGrowth: 54 * 16 * U,
      anonGrowth: 54 * 3 * U,
      pageCacheGrowth: 54 * 13 * U,
      shmemGrowth: 0,
      kernelGrowth: 0,
      processesGrowth: 0,
      processesMetric: "Σ pss-anon",
      workingSetGrowth: 54 * 3 * U,
      growthIn: "page-cache",
    });
    const facts = {
      variant: "page-cache",
      usage: 54 * 16 * U,
      processes: 0,
      processesMetric: "pss-anon",
      kernel: 0,
      cache: 54 * 13 * U,
      files: undefined,
      // the working set is usage less the cache: 60 MiB + anon's 3 U/s (levels at 2.5 s and 56.5 s)
      wsStart: 60 * MB + 2.5 * 3 * U,
      wsEnd: 60 * MB + 56.5 * 3 * U,
    };
    expect(f.summary).toEqual({ say: "cgroup.artefact", facts });
    expect(f.advice).toEqual([
      {
        say: "advice.cgroup-artefact",
        facts: { ...facts, cache: 54 * 13 * U, mapped: 0, treeMetric: "pss-anon", dirty: 2 * MB },
      },
    ]);
    expect(f.caveats).toEqual([]);
  });

  it("kernel memory larger than the cache names the kernel; equal to it, the cache", () => {
    expect(analyze({ kernel: linear(10 * U), cache: linear(3 * U), anon: linear(3 * U) }).evidence.growthIn).toBe(
      "kernel",
    );
    expect(analyze({ kernel: linear(8 * U), cache: linear(8 * U) }).evidence.growthIn).toBe("page-cache");
  });

  it("page cache the processes map: half of it mapped is enough, and the files are named", () => {
    const mapped = (share: number) =>
      analyze({
        cache: linear(16 * U),
        mapped: linear(share * 16 * U),
        files: [{ path: "/m/model.bin", rss: 40 * MB }],
      });
    const f = mapped(0.5);
    expect(f.evidence).toMatchObject({
      growthIn: "mapped-file",
      mappedFileGrowth: 54 * 8 * U,
      mappedFiles: "/m/model.bin (40.0 MiB resident)",
    });
    expect(f.summary.facts).toMatchObject({ variant: "mapped-file", files: "/m/model.bin (40.0 MiB resident)" });
    expect(mapped(0.4375).evidence.growthIn).toBe("page-cache");
    expect(mapped(0.4375).evidence.mappedFileGrowth).toBeUndefined();
    expect(mapped(0.4375).evidence.mappedFiles).toBeUndefined();
    expect(mapped(0.4375).summary.facts).toMatchObject({ files: undefined });
    // mapped without a file list: the growth, no names
    const unnamed = analyze({ cache: linear(16 * U), mapped: linear(16 * U) });
    expect(unnamed.evidence.mappedFileGrowth).toBe(54 * 16 * U);
    expect("mappedFiles" in unnamed.evidence).toBe(false);
  });

  it("no page cache grew: not mapped files, however much the processes map", () => {
    // usage grows beside a kernel that grew as much as nothing: the second artefact rule, cache 0
    const f = analyze({ usage: linear(16 * U), kernel: linear(0), mapped: linear(16 * U), pss: linear(16 * U) });
    expect(f.evidence.growthIn).not.toBe("mapped-file");
  });

  it("cache + kernel at exactly 60% of the growth is enough; the processes at exactly 30% are not too many", () => {
    // growth 54 × 5 U/s (with usage beyond the parts): 60% is 54 × 3 U/s
    const f = analyze({ usage: linear(5 * U), cache: linear(3 * U), anon: linear(2 * U) });
    expect(f.evidence.pageCacheGrowth).toBe(0.6 * Number(f.evidence.usageGrowth));
    expect(f.kind).toBe("cgroup-artefact");
    const g = analyze({ usage: linear(5 * U), cache: linear(4 * U), pss: step(0.3 * 54 * 5 * U) });
    expect(Number(g.evidence.processesGrowth) / Number(g.evidence.usageGrowth)).toBe(0.3);
    expect(g.kind).toBe("cgroup-artefact");
    expect(g.confidence).toBe(artefactConfidence(0.8));
    // the same with anon at the floor, so that only the first rule can call it an artefact
    const h = analyze({ usage: linear(5 * U), cache: linear(4 * U), anon: step(2 * MB), pss: step(0.3 * 54 * 5 * U) });
    expect(h.evidence.growthIn).toBe("page-cache");
  });

  it("shmem at exactly half of the growth names shmem: a leak while it grows, a plateau once it stopped", () => {
    const f = analyze({ shmem: linear(8 * U), anon: linear(8 * U) });
    expect(f.kind).toBe("leak");
    expect(f.evidence.growthIn).toBe("shmem");
    expect(f.evidence.shmemGrowth).toBe(54 * 8 * U);
    expect(f.evidence.pageCacheGrowth).toBe(0);
    expect(f.summary).toEqual({ say: "cgroup.shmem", facts: { shmem: 54 * 8 * U } });
    expect(f.advice).toEqual([{ say: "advice.leak", facts: { variant: "cgroup-shmem", rate: f.rate } }]);
    expect(f.confidence).toBeGreaterThan(0.5);
    const plateau = analyze({ shmem: fill(80 * U), anon: fill(80 * U) });
    expect(plateau.kind).toBe("plateau");
    expect(plateau.evidence.growthIn).toBe("shmem");
    expect(analyze({ shmem: linear(7 * U), anon: linear(9 * U) }).evidence.growthIn).toBe("anon");
  });

  it("anon growth: a leak, worded from the usage's levels", () => {
    const f = analyze({ anon: linear(13 * U), cache: linear(3 * U) });
    expect(f.kind).toBe("leak");
    expect(f.evidence.growthIn).toBe("anon");
    expect(f.summary).toEqual({
      say: "cgroup.leak",
      facts: { start: f.evidence.start, end: f.evidence.end, agentsTakenOut: false, rate: f.rate },
    });
    expect(f.advice).toEqual([{ say: "advice.leak", facts: { variant: "cgroup", rate: f.rate } }]);
  });

  it("anon that filled and stopped: a plateau, with where the level began", () => {
    const f = analyze({ anon: fill(160 * U, 20) });
    expect(f.kind).toBe("plateau");
    expect(f.evidence.growthIn).toBe("anon");
    expect(f.evidence.levelFromSeconds).toEqual(expect.any(Number));
    expect(f.summary).toMatchObject({
      say: "cgroup.plateau",
      facts: { start: f.evidence.start, end: f.evidence.end, agentsTakenOut: false },
    });
    expect((f.summary.facts as { growth: number }).growth).toBeGreaterThan(40 * MB);
    expect(f.advice[0]?.say).toBe("advice.plateau");
  });

  it("anon under the growth floor, under 40% of the growth and under cache + kernel: an artefact however the processes grew", () => {
    // usage +16 U/s beyond its parts; cache +8 U/s; the processes' Σ Pss_Anon +8 U/s (half: too much for the first rule)
    const f = analyze({ usage: linear(16 * U), cache: linear(8 * U), pss: linear(8 * U) });
    expect(f.kind).toBe("cgroup-artefact");
    expect(f.confidence).toBe(artefactConfidence(0.5));
    // anon +2 MiB, exactly the floor (start under 100 MiB): a leak's anon
    const floor = analyze({ usage: linear(16 * U), anon: step(2 * MB), cache: step(4 * MB) });
    expect(floor.evidence.growthIn).toBe("anon");
    expect(analyze({ usage: linear(16 * U), anon: step(2 * MB - 1), cache: step(4 * MB) }).kind).toBe(
      "cgroup-artefact",
    );
    // anon at 40% of the growth or more: 1.9 MiB of a 4.3 MiB growth
    expect(analyze({ usage: linear(5 * U), anon: step(1.9 * MB), cache: step(2 * MB) }).evidence.growthIn).toBe("anon");
    // anon at exactly 40% of the growth (54 × 2 of 54 × 5 U/s), under the floor and under the cache: anon
    const forty = analyze({ usage: linear(5 * U), anon: linear(2 * U), cache: step(2 * MB) });
    expect(Number(forty.evidence.anonGrowth)).toBe(0.4 * Number(forty.evidence.usageGrowth));
    expect(forty.evidence.growthIn).toBe("anon");
    // anon fell while other memory grew, no page cache grew: page cache is still the name, not mapped files
    expect(analyze({ usage: linear(16 * U), anon: step(-3 * MB) }).evidence.growthIn).toBe("page-cache");
    // cache + kernel no larger than anon
    expect(analyze({ usage: linear(16 * U), anon: step(MB), cache: step(MB) }).evidence.growthIn).toBe("anon");
    expect(analyze({ usage: linear(16 * U), anon: step(MB), cache: step(MB + 1) }).kind).toBe("cgroup-artefact");
    // shmem counts with anon: 1 + 1 MiB is the floor
    expect(
      analyze({ usage: linear(16 * U), anon: step(MB), shmem: step(MB), cache: step(4 * MB) }).evidence.growthIn,
    ).toBe("anon");
  });
});

describe("analyzeCgroup: the parts memory.stat did not give", () => {
  /** The samples with only the cgroup's usage (and `keep` of its other fields). */
  const bare = (
    p: Parts,
    keep: (c: NonNullable<Sample["cgroup"]>) => Partial<NonNullable<Sample["cgroup"]>> = () => ({}),
  ) => buildSeries(samples(p).map((s) => ({ ...s, cgroup: { usage: s.cgroup!.usage, ...keep(s.cgroup!) } })));

  it("usage alone: only the usage's and the processes' growth in the evidence", () => {
    const f = analyzeCgroup(bare({ anon: linear(16 * U) }), SUBJECT, ctx(), [])!;
    expect(f.kind).toBe("leak");
    expect(breakdownKeys(f)).toEqual(["usageGrowth", "processesGrowth", "processesMetric", "growthIn"]);
  });

  it("without memory.stat's anon the second artefact rule cannot say anon did not grow: anon", () => {
    // usage grows beside a little page cache; no anon reading
    const set = bare({ usage: linear(16 * U), cache: step(MB) }, (c) => ({
      stat: { file: c.stat!.file, shmem: c.stat!.shmem },
    }));
    expect(analyzeCgroup(set, SUBJECT, ctx(), [])!.evidence.growthIn).toBe("anon");
  });

  it("an artefact without a working set says nothing of it", () => {
    const set = bare({ cache: linear(16 * U) }, (c) => ({ stat: c.stat, kernel: c.kernel }));
    const f = analyzeCgroup(set, SUBJECT, ctx(), [])!;
    expect(f.kind).toBe("cgroup-artefact");
    expect(f.summary.facts).toMatchObject({ wsStart: undefined, wsEnd: undefined });
    expect("workingSetGrowth" in f.evidence).toBe(false);
  });

  it("memleak's own arrivals default to none", () => {
    const set = buildSeries(samples({ anon: linear(16 * U) }));
    expect(analyzeCgroup(set, SUBJECT, ctx())).toEqual(analyzeCgroup(set, SUBJECT, ctx(), []));
  });
});

describe("analyzeCgroup: what every finding carries", () => {
  it("the limit and the OOM kills seen during the watch", () => {
    const f = analyze({ anon: linear(16 * U), limit: 2048 * MB, oomKills: (t) => 1 + (t >= 30 ? 2 : 0) });
    expect(f.evidence.limit).toBe(2048 * MB);
    expect(f.evidence.oomKillsDuringWatch).toBe(2);
    const quiet = analyze({ anon: linear(16 * U), oomKills: () => 3 });
    expect("limit" in quiet.evidence).toBe(false);
    expect("oomKillsDuringWatch" in quiet.evidence).toBe(false);
    const one = analyze({ anon: linear(16 * U), oomKills: (t) => (t === 59 ? 5 : 0), seconds: 60 });
    expect(one.evidence.oomKillsDuringWatch).toBe(5);
    // a counter that fell (a new cgroup) is no kill
    expect("oomKillsDuringWatch" in analyze({ anon: linear(16 * U), oomKills: (t) => (t < 30 ? 4 : 1) }).evidence).toBe(
      false,
    );
  });

  it("memleak's agents taken out: judged without them, and said", () => {
    // two agents of 3 and 1 MiB arrived by 31 s: the usage's level at the end is 4 MiB lower
    const own: OwnArrival[] = [
      { from: 20, at: 22, until: 100, bytes: 3 * MB, pid: 10 },
      { from: 30, at: 31, until: 100, bytes: 1 * MB, pid: 11 },
    ];
    const f = analyze({ anon: linear(16 * U) }, 0, own);
    expect(f.evidence.usageGrowth).toBe(54 * 16 * U - 4 * MB);
    expect(f.evidence.agentFootprint).toBe(4 * MB);
    expect(f.caveats).toEqual([{ say: "cgroup.agents", facts: { bytes: 4 * MB, processes: 2 } }]);
    expect(f.summary.facts).toMatchObject({ agentsTakenOut: true });
    const without = analyze({ anon: linear(16 * U) });
    expect(without.evidence.usageGrowth).toBe(54 * 16 * U);
    expect("agentFootprint" in without.evidence).toBe(false);
  });

  it("a growing usage's breakdown is read from the window's start; a plateau's from the series' start", () => {
    // from 10 s: 50 points, levels of 5 (at 12 s and 57 s): 45 × the rate
    expect(analyze({ anon: linear(16 * U) }, 10).evidence.usageGrowth).toBe(45 * 16 * U);
    expect(analyze({ cache: linear(16 * U) }, 10).summary.facts).toMatchObject({ wsStart: 60 * MB, wsEnd: 60 * MB });
    // a plateau: from 0 whatever the warm-up
    expect(analyze({ anon: fill(160 * U, 20) }, 10).evidence.usageGrowth).toBe(20 * 160 * U - 2.5 * 160 * U);
  });

  it("too short: insufficient, with the assessment's reason", () => {
    const f = analyze({ anon: linear(16 * U), seconds: 8 });
    expect(f.kind).toBe("insufficient-data");
    expect(f.confidence).toBe(0);
    const reason = (f.summary.facts as { reason: string }).reason;
    expect(reason).toEqual(expect.any(String));
    expect(f.summary).toEqual({ say: "cgroup.insufficient", facts: { path: "/app", reason } });
    expect(f.advice).toEqual([{ say: "advice.insufficient-data", facts: { reason } }]);
  });

  it("flat: stable, judged as the cgroup's usage", () => {
    const f = analyze({});
    expect(f.kind).toBe("stable");
    expect(f.summary).toEqual({
      say: "cgroup.stable",
      facts: { start: 90 * MB, end: 90 * MB, agentsTakenOut: false },
    });
    expect(f.advice[0]?.facts).toMatchObject({ subject: "cgroup", metric: "cgroup" });
    expect("usageGrowth" in f.evidence).toBe(false);
  });

  it("no cgroup usage, no finding", () => {
    const set = buildSeries(samples({}).map((s) => ({ ...s, cgroup: undefined })));
    expect(analyzeCgroup(set, SUBJECT, ctx())).toBeUndefined();
  });
});

describe("breakdownChange", () => {
  it("each part that was read; the assessment's growth when the usage has no level change", () => {
    const set = buildSeries(samples({ cache: linear(2 * U), shmem: linear(U) }));
    const a = { growth: 123 } as Parameters<typeof breakdownChange>[1];
    expect(breakdownChange(set, a, 0)).toEqual({
      usage: 54 * 3 * U,
      anon: 0,
      cache: 54 * 2 * U,
      shmem: 54 * U,
      kernel: 0,
      processes: 0,
      mapped: 0,
      // usage less the cache: shmem is in it
      workingSet: 54 * U,
    });
    const bare = buildSeries(
      samples({}).map((s) => ({ ...s, cgroup: { usage: s.cgroup!.usage }, processes: [] }) as Sample),
    );
    // a usage column with no level change (memleak's agents taken out of a one-point column): the assessment's
    expect(breakdownChange(bare, a, 0, new Column())).toEqual({
      usage: 123,
      anon: undefined,
      cache: undefined,
      shmem: undefined,
      kernel: undefined,
      // the tree's sums of no process
      processes: 0,
      mapped: 0,
      workingSet: undefined,
    });
    expect(breakdownChange(bare, a, 0).usage).toBe(0);
    // file without shmem: all of it is cache
    const noShmem = buildSeries(
      samples({ cache: linear(2 * U) }).map((s) => {
        const { shmem: _, ...stat } = s.cgroup!.stat!;
        return { ...s, cgroup: { ...s.cgroup!, stat } };
      }),
    );
    expect(breakdownChange(noShmem, a, 0).cache).toBe(54 * 2 * U);
    expect(breakdownChange(noShmem, a, 0).shmem).toBeUndefined();
  });
});
