/**
 * The tree's own finding (signals/tree.ts analyzeTree), before classify.ts reconciles it with the processes': which
 * sum it is judged on, and for each shape the kind, how sure, what it says (summary and advice facts) and the numbers
 * beside it. The rules' boundaries through the whole engine are in tree.test.ts.
 */
import { describe, expect, it } from "vitest";
import { assess, minGrowth } from "../../../../src/analysis/assess.js";
import type { Context } from "../../../../src/analysis/context.js";
import { confidenceFromP, stableConfidence } from "../../../../src/analysis/evidence.js";
import { phrase } from "../../../../src/analysis/phrases.js";
import { buildSeries } from "../../../../src/series/series.js";
import { analyzeTree, treeMetric } from "../../../../src/analysis/signals/tree.js";
import type { Sample } from "../../../../src/system/sample.js";
import { synthesize, type SynthProcess, type SynthScenario } from "../../../helpers/synthetic-samples.js";
import { fill, flat, linear, MB } from "./judge.js";

const ctx = (from = 0): Context => ({ from, warmup: from, duration: 300, agentSeen: false });

/** A flat parent and `children` (pids 101…), 300 s at 1 Hz. */
const tree = (...children: Omit<SynthProcess, "pid" | "ppid">[]): SynthScenario => ({
  seconds: 300,
  noCgroup: true,
  processes: [
    { pid: 100, ppid: 1, anon: flat(50 * MB, 0.05 * MB) },
    ...children.map((c, i) => ({ pid: 101 + i, ppid: 100, ...c })),
  ],
});
const judged = (sc: SynthScenario, from = 0) => {
  const set = buildSeries(synthesize(sc));
  return { set, f: analyzeTree(set, ctx(from))! };
};

describe("which sum the tree is judged on", () => {
  it("Σ Pss_Anon when exactly half of the ticks have it complete", () => {
    const samples = synthesize(tree({ anon: flat(50 * MB) }));
    samples.slice(0, 150).forEach((s) => delete s.processes.find((p) => p.pid === 101)!.pss);
    const set = buildSeries(samples);
    expect(set.tree["pss-anon"]!.length).toBe(150);
    expect(set.treeCount.length).toBe(300);
    expect(treeMetric(set)).toBe("pss-anon");
  });
  it("Σ RSS when no process's anon was read", () => {
    const samples: Sample[] = synthesize(tree({ anon: flat(50 * MB) }));
    for (const s of samples)
      for (const p of s.processes) for (const k of ["anon", "pss", "pssAnon"] as const) delete p[k];
    expect(treeMetric(buildSeries(samples))).toBe("rss");
  });
  it("no sample, no finding", () => expect(analyzeTree(buildSeries([]), ctx())).toBeUndefined());
});

describe("what the tree's finding says", () => {
  it("a leak: its start, end and rate, and how many processes there were", () => {
    const { f } = judged(tree({ anon: linear(50 * MB, 0.2 * MB) }, { anon: linear(50 * MB, 0.2 * MB) }));
    expect(f.kind).toBe("leak");
    expect(f.evidence).toMatchObject({ processesStart: 3, processesEnd: 3, processesSeen: 3 });
    expect(f.summary).toEqual(
      phrase("tree.leak", {
        metric: "pss-anon",
        start: f.evidence.start as number,
        end: f.evidence.end as number,
        rate: f.rate!,
      }),
    );
    // The same three processes throughout: they grew, none was added (not "started and never reaped, 3 to 3").
    expect(f.advice).toEqual([
      phrase("advice.leak", { variant: "tree-spread", rate: f.rate!, processesStart: 3, processesEnd: 3 }),
    ]);
  });

  it("a leak of processes added and never reaped: the count they went from and to", () => {
    // A flat parent, and a worker of 40 MB started every 30 s that stays.
    const workers = Array.from({ length: 8 }, (_, i) => ({
      anon: flat(40 * MB, 0.05 * MB),
      lives: [30 + 30 * i, 300] as [number, number],
    }));
    const { f } = judged(tree(...workers));
    expect(f.kind).toBe("leak");
    expect(f.evidence).toMatchObject({ processesStart: 1, processesEnd: 9 });
    expect(f.advice).toEqual([
      phrase("advice.leak", { variant: "tree", rate: f.rate!, processesStart: 1, processesEnd: 9 }),
    ]);
  });

  it("too short: not enough data, saying why, sure of nothing", () => {
    const { f } = judged({ ...tree({ anon: flat(50 * MB) }), seconds: 8 });
    expect(f.kind).toBe("insufficient-data");
    expect(f.confidence).toBe(0);
    const reason = assess(
      buildSeries(synthesize({ ...tree({ anon: flat(50 * MB) }), seconds: 8 })).tree["pss-anon"]!,
      0,
      0,
    ).reason;
    expect(reason).toMatch(/samples/);
    expect(f.summary).toEqual(phrase("tree.insufficient", { reason }));
    expect(f.advice).toEqual([phrase("advice.insufficient-data", { reason })]);
  });

  it("a plateau: sure by the tail's p, with when and at what level it levelled off", () => {
    const { set, f } = judged(tree({ anon: fill(50 * MB, 100 * MB, 100) }));
    const a = assess(set.tree["pss-anon"]!, 0, 0);
    expect(a.shape).toBe("plateau");
    expect(confidenceFromP(a.plateau!.p)).not.toBe(confidenceFromP(a.p));
    expect(f.kind).toBe("plateau");
    expect(f.confidence).toBe(confidenceFromP(a.plateau!.p));
    expect(f.evidence.levelFromSeconds).toBe(Number(a.plateau!.levelFrom!.toFixed(1)));
    expect(f.summary).toEqual(phrase("tree.plateau", { metric: "pss-anon", end: a.end }));
    expect(f.advice).toEqual([
      phrase("advice.plateau", { growth: expect.any(Number) as number, level: a.end, levelFrom: a.plateau!.levelFrom }),
    ]);
    expect((f.advice[0] as { facts: { growth: number } }).facts.growth).toBeGreaterThan(75 * MB);
  });

  it("a step is a plateau too, levelled off at the jump", () => {
    const { set, f } = judged(
      tree({ anon: { shape: { kind: "step", at: 250, height: 60 * MB }, baseline: 50 * MB, noise: 0.05 * MB } }),
    );
    const a = assess(set.tree["pss-anon"]!, 0, 0);
    expect(a.shape).toBe("step");
    expect(f.kind).toBe("plateau");
    expect(f.evidence.levelFromSeconds).toBe(Number(a.step!.at.toFixed(1)));
  });

  it("memleak's own arrival under watch is said, and the tree judged without it", () => {
    // one worker whose agent was injected at 60 s and added 2.5 MiB by 63 s (own-footprint.test.ts for the process)
    const { f } = judged({
      ...tree({
        anon: { shape: { kind: "step", at: 63, height: 2.5 * MB }, baseline: 70 * MB, noise: 0.05 * MB },
        agent: (t) => (t >= 60 ? { py: { allocatedBlocks: 30_000 } } : undefined),
      }),
      seconds: 120,
    });
    expect(f.kind).toBe("stable");
    expect(f.caveats).toEqual([expect.objectContaining({ say: "own.step" })]);
  });

  /** `n` idle workers, the agent injected into one every 6 s from 10 s: each adds 4 MiB as it arrives (watch). */
  const injectedOneByOne = (n: number, seconds: number, leakPerSecond = 0) => ({
    seconds,
    noCgroup: true as const,
    processes: [
      { pid: 100, ppid: 1, anon: flat(50 * MB, 0.05 * MB) },
      ...Array.from({ length: n }, (_, k) => ({
        pid: 101 + k,
        ppid: 100,
        anon: {
          shape:
            k === 0 && leakPerSecond > 0
              ? ({ kind: "linear", bytesPerSecond: leakPerSecond } as const)
              : ({ kind: "step", at: 10 + 6 * k + 1, height: 4 * MB } as const),
          baseline: 20 * MB,
          noise: 0.05 * MB,
        },
        agent: (t: number) => (t >= 10 + 6 * k + 1 ? { py: { allocatedBlocks: 30_000 } } : undefined),
      })),
    ],
  });

  it("agents injected one process after another are memleak's own staircase, not the tree's growth", () => {
    // 10 workers, one every 6 s: 40 MiB in a straight staircase over the minute the injections take (an idle
    // 64-process tree under watch said "so far: leak" while its agents came in)
    const { f } = judged(injectedOneByOne(10, 70));
    const raw = judged({
      ...injectedOneByOne(10, 70),
      processes: injectedOneByOne(10, 70).processes.map((p) => ({ ...p, agent: undefined })),
    });
    expect(raw.f.kind).toBe("leak"); // without the agents' reports nothing says they came in
    expect(f.kind).toBe("stable");
    expect(f.caveats).toEqual([expect.objectContaining({ say: "own.step" })]);
    expect(f.caveats[0]!.facts).toMatchObject({ at: expect.arrayContaining([11, 65]) });
  });

  it("a worker that leaks while the agents come in is still the tree's growth", () => {
    const { f } = judged(injectedOneByOne(10, 70, 1 * MB));
    expect(f.kind).toBe("leak");
  });

  it("stable: surer the longer the window after warm-up, with its growth and noise", () => {
    const { set, f } = judged(tree({ anon: flat(50 * MB, 0.05 * MB) }), 60);
    const a = assess(set.tree["pss-anon"]!, 60, 0);
    expect(f.kind).toBe("stable");
    expect(f.confidence).toBe(stableConfidence(a.to - a.from));
    expect(f.summary).toEqual(phrase("tree.stable", { metric: "pss-anon", start: a.start, end: a.end }));
    expect(f.advice).toEqual([
      phrase("advice.stable", {
        subject: "tree",
        metric: "pss-anon",
        growth: a.growth,
        seconds: a.to - a.from,
        noise: a.plateau?.noise,
        p: a.p,
        floor: minGrowth(a.start),
        confidence: f.confidence,
      }),
    ]);
    expect(a.to - a.from).toBeCloseTo(239, 0);
  });
});
