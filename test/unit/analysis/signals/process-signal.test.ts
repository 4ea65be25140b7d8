/**
 * signals/process.ts `analyzeProcess` on samples built by hand, without noise: one process watched 60 s at 1 Hz, its
 * anonymous memory and its agent's numbers each a shape of its own. What is pinned: which finding (and which beside
 * it), its confidence, its evidence, and the facts its sentences are worded from (the wording is report/wording's).
 * Through the whole engine: rules/several-causes.test.ts, fragmentation.test.ts, cow.test.ts, growth.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { AgentResults, Context } from "../../../../src/analysis/context.js";
import type { JudgedFinding } from "../../../../src/analysis/judgement.js";
import { copying } from "../../../../src/analysis/signals/cow.js";
import { analyzeProcess, processSubject } from "../../../../src/analysis/signals/process.js";
import { buildSeries, type ProcessSeries } from "../../../../src/series/series.js";
import type { Sample } from "../../../../src/system/sample.js";

const MB = 2 ** 20;
const T0 = 1_700_000_000_000;

interface Proc {
  pid?: number;
  ppid?: number;
  anon: (t: number) => number;
  uss?: (t: number) => number;
  shared?: (t: number) => number;
  agent?: (t: number) => Record<string, unknown> | undefined;
  from?: number;
  until?: number;
}

function series(procs: Proc[], seconds = 60) {
  const samples: Sample[] = [];
  for (let t = 0; t < seconds; t++) {
    const agent: Record<string, unknown> = {};
    const processes = procs
      .filter((p) => t >= (p.from ?? 0) && t < (p.until ?? Infinity))
      .map((p) => {
        const pid = p.pid ?? 100;
        const report = p.agent?.(t);
        if (report) agent[String(pid)] = report;
        const anon = p.anon(t);
        const uss = p.uss ? p.uss(t) : anon;
        return {
          pid,
          ppid: p.ppid ?? 1,
          starttime: pid,
          comm: "python3",
          rss: anon + 20 * MB,
          anon,
          file: 20 * MB,
          pss: uss + 5 * MB,
          pssAnon: uss,
          uss,
          sharedClean: 20 * MB,
          sharedDirty: p.shared ? p.shared(t) : 0,
        };
      });
    samples.push({ t: T0 + t * 1000, processes, ...(Object.keys(agent).length > 0 && { agent }) });
  }
  return buildSeries(samples);
}

const ctx = (o: Partial<Context> = {}): Context => ({ from: 0, warmup: 0, duration: 59, agentSeen: true, ...o });
function judged(procs: Proc[], o: { ctx?: Partial<Context>; pid?: number; seconds?: number } = {}): JudgedFinding {
  const set = series(procs, o.seconds);
  const ps = [...set.processes.values()].find((p) => p.pid === (o.pid ?? 100))!;
  const subject = processSubject(ps, set.rootPid, "python3 app.py") as Parameters<typeof analyzeProcess>[1];
  const relatives = [...set.processes.values()].some((q) => q !== ps && (q.pid === ps.ppid || q.ppid === ps.pid));
  return analyzeProcess(ps, subject, ctx(o.ctx), copying(ps, relatives));
}

const flat = (v: number) => () => v;
const linear = (base: number, perSecond: number) => (t: number) => base + perSecond * t;
/** malloc's numbers as the agent reports them. */
const malloc = (inUse: number, free: number, arenas = 4) => ({ malloc: { inUse, free, arenas } });

describe("processSubject", () => {
  it("names the process, its parent and whether it is the root", () => {
    const ps = { pid: 7, starttime: 70, ppid: 3 } as ProcessSeries;
    expect(processSubject(ps, 7, "cmd")).toEqual({
      type: "process",
      pid: 7,
      starttime: 70,
      command: "cmd",
      ppid: 3,
      isRoot: true,
    });
    expect(processSubject(ps, 8, "cmd")).toMatchObject({ isRoot: false });
    expect(processSubject(ps, undefined, "cmd")).toMatchObject({ isRoot: false });
  });
});

describe("analyzeProcess: one finding", () => {
  it("stable: when the process was seen, on anon", () => {
    // under 64 MiB: no retention to rule out without the agent
    const f = judged(
      [
        { pid: 5, anon: flat(MB) },
        { anon: flat(50 * MB), from: 2, until: 50 },
      ],
      { pid: 100 },
    );
    expect(f.kind).toBe("stable");
    expect(f.metric).toBe("anon");
    expect(f.pid).toBe(100);
    expect(f.evidence).toMatchObject({ firstSeenSeconds: 2, lastSeenSeconds: 49 });
    expect(f.summary).toEqual({
      say: "process.stable",
      facts: { pid: 100, command: "python3 app.py", metric: "anon", start: 50 * MB, end: 50 * MB },
    });
    expect(f.caveats).toEqual([]);
  });

  it("a leak of the root: its facts, the process variant of the advice, malloc's numbers beside it", () => {
    const f = judged([{ anon: linear(100 * MB, MB), agent: (t) => malloc(50 * MB + t * MB, 10 * MB) }]);
    expect(f.kind).toBe("leak");
    expect(f.summary.say).toBe("process.leak");
    expect(f.summary.facts).toMatchObject({
      pid: 100,
      command: "python3 app.py",
      metric: "anon",
      start: f.evidence.start,
      end: f.evidence.end,
      rate: f.rate,
      swings: false,
      early: false,
      layer: "native heap (malloc)",
    });
    expect(f.advice[0]).toEqual({
      say: "advice.leak",
      facts: { variant: "process", rate: f.rate, pid: 100, command: "python3 app.py", ppid: 1 },
    });
    // malloc's growth over the judged window, as anon's beside it: both rise 1 MiB/s.
    expect(f.evidence.mallocInUseGrowth).toBe(f.evidence.growth);
    expect(f.evidence).toMatchObject({
      layer: "native heap (malloc)",
      mallocInUseBytes: 106.5 * MB,
      liveHeapGrowth: expect.any(Number),
    });
    expect(f.caveats[0]).toMatchObject({ say: "layer.malloc" });
  });

  it("a worker's leak, traced: the traced worker variant, the sites on the finding, tracemalloc's cost", () => {
    const traces: AgentResults["traces"] = new Map([
      [
        101,
        {
          type: "trace",
          pid: 101,
          t: 59,
          traced: 0,
          tracedPeak: 0,
          interim: true,
          sites: [{ file: "w.py", line: 3, sizeDiff: 40 * MB, countDiff: 10, size: 40 * MB }],
          window: { seconds: 30, cpuShare: 0.12, cpuShareBefore: 0.1, overheadBytes: 3 * MB },
        },
      ],
    ]);
    const f = judged([{ anon: flat(100 * MB) }, { pid: 101, ppid: 100, anon: linear(50 * MB, MB) }], {
      pid: 101,
      ctx: { agentResults: { traces, trims: new Map() } },
    });
    expect(f.kind).toBe("leak");
    expect(f.advice[0]?.facts).toMatchObject({ variant: "worker-traced", pid: 101, ppid: 100 });
    expect(f.evidence.layer).toBe("Python objects (tracemalloc sees the growth)");
    expect(f.sites).toEqual(traces.get(101)!.sites);
    expect(f.sitesInterim).toBe(true);
    expect(f.evidence).toMatchObject({
      traceWindowSeconds: 30,
      traceCpuShare: 0.12,
      traceCpuShareBefore: 0.1,
      tracemallocBytes: 3 * MB,
    });
    // no agent: said on a leak
    expect(f.caveats.map((c) => c.say)).toContain("agent.missing");
  });

  it("a trace with no sites puts none on the finding; a final one is not interim", () => {
    const trace = (sites: number) =>
      new Map([
        [
          100,
          {
            type: "trace" as const,
            pid: 100,
            t: 59,
            traced: 0,
            tracedPeak: 0,
            sites: Array.from({ length: sites }, () => ({
              file: "a.py",
              line: 1,
              sizeDiff: MB,
              countDiff: 1,
              size: MB,
            })),
          },
        ],
      ]);
    const none = judged([{ anon: flat(100 * MB) }], { ctx: { agentResults: { traces: trace(0), trims: new Map() } } });
    expect("sites" in none).toBe(false);
    expect("traceWindowSeconds" in none.evidence).toBe(false);
    const one = judged([{ anon: flat(100 * MB) }], { ctx: { agentResults: { traces: trace(1), trims: new Map() } } });
    expect(one.sites).toHaveLength(1);
    expect("sitesInterim" in one).toBe(false);
  });

  it("retention: malloc's numbers as evidence, 0.8 sure, the process variant of its advice", () => {
    const f = judged([{ anon: flat(400 * MB), agent: () => malloc(100 * MB, 280 * MB, 6) }]);
    expect(f.kind).toBe("fragmentation");
    expect(f.confidence).toBe(0.8);
    expect(f.evidence).toMatchObject({
      anonBytes: 400 * MB,
      liveBytes: 100 * MB,
      mallocInUseBytes: 100 * MB,
      mallocFreeBytes: 280 * MB,
      heldBytes: 300 * MB,
      heldShare: 0.75,
      mallocArenas: 6,
    });
    expect("trimReleasedBytes" in f.evidence).toBe(false);
    expect(f.summary).toEqual({
      say: "process.retention",
      facts: {
        pid: 100,
        command: "python3 app.py",
        anon: 400 * MB,
        live: 100 * MB,
        mallocInUse: 100 * MB,
        mallocFree: 280 * MB,
        trimmed: undefined,
      },
    });
    expect(f.advice).toEqual([
      {
        say: "advice.fragmentation",
        facts: { variant: "process", pid: 100, anon: 400 * MB, live: 100 * MB, held: 300 * MB, trimmed: undefined },
      },
      { say: "advice.fragmentation-actions", facts: { arenas: 6, command: "python3 app.py", seconds: 59 } },
    ]);
  });

  it("retention proven by the trim probe alone: 0.95 sure, the trim variant, what it gave back", () => {
    const trims = new Map([
      [100, { type: "trim" as const, pid: 100, t: 59, anonBefore: 400 * MB, anonAfter: 100 * MB }],
    ]);
    const f = judged([{ anon: flat(400 * MB), agent: () => ({ py: { allocatedBlocks: 10 } }) }], {
      ctx: { agentResults: { traces: new Map(), trims } },
    });
    expect(f.kind).toBe("fragmentation");
    expect(f.confidence).toBe(0.95);
    expect(f.evidence.trimReleasedBytes).toBe(300 * MB);
    expect("mallocArenas" in f.evidence).toBe(false);
    expect(f.advice[0]?.facts).toMatchObject({ variant: "trim", trimmed: 300 * MB });
    // a trim that gave nothing back is no proof: 0.8 when malloc's numbers decide
    const nothing = new Map([
      [100, { type: "trim" as const, pid: 100, t: 59, anonBefore: 400 * MB, anonAfter: 400 * MB }],
    ]);
    const g = judged([{ anon: flat(400 * MB), agent: () => malloc(100 * MB, 280 * MB) }], {
      ctx: { agentResults: { traces: new Map(), trims: nothing } },
    });
    expect(g.kind).toBe("fragmentation");
    expect(g.confidence).toBe(0.8);
    expect(g.evidence.trimReleasedBytes).toBe(0);
  });

  it("copy-on-write: USS's assessment, the copying and its bound as evidence", () => {
    const f = judged(
      [{ anon: flat(260 * MB) }, { pid: 101, ppid: 100, anon: flat(60 * MB), uss: linear(5 * MB, MB) }],
      { pid: 101 },
    );
    expect(f.kind).toBe("cow");
    expect(f.metric).toBe("uss");
    expect(f.confidence).toBeGreaterThan(0.9);
    expect(f.evidence).toMatchObject({ growth: 54 * MB, residentGrowth: 0, bound: 260 * MB, sharedDrop: 0 });
    expect(f.summary).toEqual({
      say: "process.cow",
      facts: {
        pid: 101,
        command: "python3 app.py",
        ussStart: 7.5 * MB,
        ussEnd: 61.5 * MB,
        bound: 260 * MB,
        isRoot: false,
      },
    });
    expect(f.advice).toEqual([
      {
        say: "advice.cow-process",
        facts: {
          pid: 101,
          command: "python3 app.py",
          ussStart: 7.5 * MB,
          ussEnd: 61.5 * MB,
          bound: 260 * MB,
          isRoot: false,
        },
      },
    ]);
  });

  it("a plateau: where the level began", () => {
    const f = judged([{ anon: (t) => 100 * MB + Math.min(t, 20) * MB }]);
    expect(f.kind).toBe("plateau");
    expect(f.evidence.levelFromSeconds).toEqual(expect.any(Number));
    expect(f.summary).toMatchObject({ say: "process.plateau", facts: { pid: 100, step: false, end: 120 * MB } });
    // a noiseless jump levels off at once: a plateau of the jump's height
    const jump = judged([{ anon: (t) => 100 * MB + (t >= 30 ? 40 * MB : 0) }]);
    expect(jump.kind).toBe("plateau");
    expect(jump.summary.facts).toMatchObject({ growth: 40 * MB });
  });

  it("too short: insufficient, 0 sure, with the reason", () => {
    const f = judged([{ anon: linear(100 * MB, MB) }], { seconds: 8 });
    expect(f.kind).toBe("insufficient-data");
    expect(f.confidence).toBe(0);
    const reason = (f.summary.facts as { reason: string }).reason;
    expect(f.summary).toEqual({ say: "process.insufficient", facts: { pid: 100, command: "python3 app.py", reason } });
    expect(f.advice).toEqual([{ say: "advice.insufficient-data", facts: { reason } }]);
  });

  it("too short for a trend, but retention read in 3 reports or more is a state: judged", () => {
    const burst = (reports: number) =>
      judged([{ anon: flat(600 * MB), agent: (t) => (t >= 8 - reports ? malloc(12 * MB, 580 * MB) : undefined) }], {
        seconds: 8,
      });
    expect(burst(3).kind).toBe("fragmentation");
    expect(burst(2).kind).toBe("insufficient-data");
  });

  it("another allocator: named in the evidence and said", () => {
    const f = judged([{ anon: flat(100 * MB), agent: () => ({ malloc: { allocator: "jemalloc" } }) }]);
    expect(f.evidence.allocator).toBe("jemalloc");
    expect(f.caveats).toContainEqual({ say: "layer.other-allocator", facts: { name: "jemalloc" } });
    expect("allocator" in judged([{ anon: flat(100 * MB) }]).evidence).toBe(false);
  });
});

describe("analyzeProcess: a state and a trend both kept", () => {
  it("a leak that copies too: the leak first, copy-on-write beside it", () => {
    const f = judged(
      [
        { anon: flat(260 * MB) },
        {
          pid: 101,
          ppid: 100,
          anon: linear(60 * MB, 0.5 * MB),
          uss: linear(5 * MB, 2 * MB),
          shared: (t) => 200 * MB - 2 * MB * t,
        },
      ],
      { pid: 101 },
    );
    expect(f.kind).toBe("leak");
    expect(f.alsoFound?.map((x) => x.kind)).toEqual(["cow"]);
    expect(f.alsoFound?.[0]?.summary.facts).toMatchObject({ copied: 54 * 1.5 * MB, sharedDrop: 118 * MB });
  });

  it("retention with a container gaining items to the end: a leak pinning the holes, no retention beside it", () => {
    const f = judged([
      {
        anon: linear(200 * MB, 2 * MB),
        agent: (t) => ({
          ...malloc(20 * MB, 300 * MB + 2 * MB * t),
          census: { containerItems: 10, growingAdded: 100 * t, growing: "list of Tensor" },
        }),
      },
    ]);
    expect(f.kind).toBe("leak");
    expect(f.evidence.layer).toBe("Python objects");
    expect(f.caveats.find((c) => c.say === "layer.pinning")?.facts).toMatchObject({ what: "list of Tensor" });
    expect(f.alsoFound).toBeUndefined();
  });

  it("retention while anon grows and malloc's live bytes do not: retention alone", () => {
    const f = judged([{ anon: linear(200 * MB, 2 * MB), agent: (t) => malloc(20 * MB, 300 * MB + 2 * MB * t) }]);
    expect(f.kind).toBe("fragmentation");
    expect(f.alsoFound).toBeUndefined();
  });

  it("a leak that fills memory malloc held: judged on the live heap", () => {
    const f = judged([{ anon: flat(400 * MB), agent: (t) => malloc(20 * MB + 2 * MB * t, 360 * MB - 2 * MB * t) }]);
    expect(f.kind).toBe("leak");
    expect(f.metric).toBe("heap-live");
    expect(f.summary.say).toBe("process.hidden-leak");
    expect(f.summary.facts).toMatchObject({ pid: 100, anon: 400 * MB, layer: "native heap (malloc)" });
    expect(f.evidence).toMatchObject({ residentAnonBytes: 400 * MB, layer: "native heap (malloc)" });
    expect(f.advice[0]?.facts).toMatchObject({ variant: "process", ppid: 1 });
  });
});
