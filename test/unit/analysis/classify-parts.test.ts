/**
 * classify.ts's own steps, pinned by exact values where the rule tests (rules/*.test.ts) only look at the verdict's
 * kind: the order of findings (compareFindings), the command a process is named by, the analysis window the
 * judgement reports, and the verdict when nothing was sampled. Short synthetic runs, judged by `judge` itself (the
 * facts, before report/wording/ words them).
 */
import { describe, expect, it } from "vitest";
import { compareFindings, judge } from "../../../src/analysis/classify.js";
import { buildSeries } from "../../../src/series/series.js";
import type { Finding } from "../../../src/analysis/types.js";
import { MB, synthesize, type SynthScenario } from "../../helpers/synthetic-samples.js";
import { gpuReports } from "../../helpers/synthetic-gpu.js";

type Ordered = Pick<Finding, "kind" | "subject" | "confidence" | "rate">;
const process = { type: "process", pid: 1, starttime: 0, command: "x", ppid: 0, isRoot: true } as const;
const tree = { type: "tree", processes: 2 } as const;
const gpu = { type: "gpu", pid: 1, device: "cuda:0" } as unknown as Finding["subject"];
const cgroup = { type: "cgroup", path: "/", version: 2 } as const;
const f = (o: Partial<Ordered>): Ordered => ({ kind: "leak", subject: process, confidence: 0.9, ...o });
const rate = (bytesPerSecond: number) => ({ bytesPerSecond, percentPerHour: 1 });

describe("compareFindings", () => {
  it("puts the more serious kind first, by the difference of their severities", () => {
    // SEVERITY: leak 6, fragmentation 5, stable 1.
    expect(compareFindings(f({ kind: "leak" }), f({ kind: "stable" }))).toBe(-5);
    expect(compareFindings(f({ kind: "stable" }), f({ kind: "fragmentation" }))).toBe(4);
  });

  it("at the same kind puts the more specific subject first: process, gpu, tree, cgroup", () => {
    expect(compareFindings(f({ subject: process }), f({ subject: cgroup }))).toBe(-3);
    expect(compareFindings(f({ subject: tree }), f({ subject: gpu }))).toBe(1);
    expect(compareFindings(f({ subject: gpu, confidence: 0 }), f({ subject: tree, confidence: 1 }))).toBe(-1);
  });

  it("then the higher confidence, then the higher rate (none counts as 0)", () => {
    expect(compareFindings(f({ confidence: 0.5 }), f({ confidence: 0.75, rate: rate(0) }))).toBe(0.25);
    expect(compareFindings(f({ rate: rate(10) }), f({ rate: rate(4) }))).toBe(-6);
    expect(compareFindings(f({}), f({ rate: rate(4) }))).toBe(4);
    expect(compareFindings(f({ rate: rate(3) }), f({}))).toBe(-3);
    expect(compareFindings(f({}), f({}))).toBe(0);
  });
});

function judged(sc: SynthScenario, commands?: Map<number, string[]>) {
  return judge({ set: buildSeries(synthesize(sc)), options: {}, target: { pid: 100 }, commands });
}
const flat = { shape: { kind: "stable" as const }, noise: 0.5 * MB };
const alone: SynthScenario = { seconds: 30, noCgroup: true, processes: [{ pid: 100, ppid: 1, anon: flat }] };
const commandOf = (commands?: Map<number, string[]>) => {
  const s = judged(alone, commands).verdict.subject;
  return s.type === "process" ? s.command : undefined;
};

describe("the command a process is named by", () => {
  it("is the name (comm) when there is no command line, or an empty one", () => {
    expect(commandOf()).toBe("python3");
    expect(commandOf(new Map([[100, []]]))).toBe("python3");
    expect(commandOf(new Map([[7, ["other"]]]))).toBe("python3");
  });

  it("is the command line, program without its directory, cut to 80 characters with an ellipsis", () => {
    expect(commandOf(new Map([[100, ["/usr/bin/python3", "train.py", "--epochs", "3"]]]))).toBe(
      "python3 train.py --epochs 3",
    );
    const exactly80 = "p " + "a".repeat(78);
    expect(commandOf(new Map([[100, [exactly80]]]))).toBe(exactly80);
    const cut = commandOf(new Map([[100, ["p", "a".repeat(79)]]]));
    expect(cut).toBe("p " + "a".repeat(77) + "…");
    expect(cut).toHaveLength(80);
  });

  it("shows control characters escaped in a command line too", () => {
    expect(commandOf(new Map([[100, ["run", "a\nb"]]]))).toBe("run a\\x0ab");
  });
});

describe("the window the judgement reports", () => {
  it("is the run's duration, samples, mean interval and warm-up, rounded", () => {
    // 30 samples at 1 Hz, 2 Hz and 3 Hz.
    expect(judged(alone).window).toEqual({ start: 0, end: 29, warmup: 0, samples: 30, interval: 1 });
    expect(judged({ ...alone, hz: 2 }).window).toEqual({ start: 0, end: 29.5, warmup: 0, samples: 60, interval: 0.5 });
    expect(judged({ ...alone, hz: 3 }).window).toEqual({
      start: 0,
      end: 29.667,
      warmup: 0,
      samples: 90,
      interval: 0.333,
    });
  });

  it("reports the warm-up found on the root's memory, or the one given, to a tenth of a second", () => {
    // A 200 MiB warm-up (time constant 10 s) before a 0.2 MB/s leak: classify.test.ts's "leak after a warm-up".
    const warming: SynthScenario = {
      seconds: 300,
      noCgroup: true,
      processes: [
        {
          pid: 100,
          ppid: 1,
          anon: {
            shape: { kind: "linear", bytesPerSecond: 0.2 * MB },
            noise: 3 * MB,
            warmup: { level: 200 * MB, tau: 10 },
          },
        },
      ],
    };
    expect(judged(warming).window.warmup).toBe(29.9);
    const given = judge({ set: buildSeries(synthesize(alone)), options: { warmup: 12.34 }, target: { pid: 100 } });
    expect(given.window.warmup).toBe(12.3);
  });

  it("with one sample lasts 0 s at an interval of 0", () => {
    expect(judged({ ...alone, seconds: 1 }).window).toEqual({ start: 0, end: 0, warmup: 0, samples: 1, interval: 0 });
  });
});

describe("with no sample at all", () => {
  it("the verdict is a finding of its own: insufficient data about a tree of no processes", () => {
    const j = judge({ set: buildSeries([]), options: {}, target: { pid: 100 } });
    expect(j.findings).toEqual([]);
    expect(j.verdict).toEqual({
      kind: "insufficient-data",
      confidence: 0,
      subject: { type: "tree", processes: 0 },
      metric: "rss",
      summary: { say: "verdict.no-samples", facts: {} },
      evidence: { samples: 0 },
      advice: [],
      caveats: [],
    });
    expect(j.schema).toBe("memleak.verdict/1");
    expect(j.target).toEqual({ pid: 100 });
  });
});

describe("the tree, and what judge adds to each finding", () => {
  const linear = (perSecond: number) => ({
    shape: { kind: "linear" as const, bytesPerSecond: perSecond },
    baseline: 50 * MB,
    noise: 0.1 * MB,
  });

  it("a single process has no tree finding", () => {
    expect(judged(alone).findings.map((f) => f.subject.type)).toEqual(["process"]);
  });

  it("a leak called early says what the early test cannot know, the process's and the tree's", () => {
    // 15 s at 1 MB/s: too short for the shape rules, the early test calls it. The worker is too short to judge.
    const j = judged({
      seconds: 15,
      noCgroup: true,
      processes: [
        { pid: 100, ppid: 1, anon: linear(1 * MB) },
        { pid: 101, ppid: 100, anon: linear(1 * MB) },
      ],
    });
    const tree = j.findings.find((f) => f.subject.type === "tree")!;
    expect(tree.kind).toBe("leak");
    expect(tree.caveats.map((c) => c.say)).toEqual(["leak.early"]);
    expect(j.findings.find((f) => f.pid === 100)!.caveats.map((c) => c.say)).toContain("leak.early");
    // Process 101 lived the whole 15 s, as long as the root: a finding of its own, not "short-lived" (a 15 s watch of
    // gunicorn said "short-lived processes 2" of two workers that lived throughout, and nothing of them).
    const worker = j.findings.find((f) => f.pid === 101)!;
    expect(worker.kind).toBe("leak");
    expect(worker.caveats.map((c) => c.say)).toContain("leak.early");
    expect(tree.evidence).not.toHaveProperty("shortLivedProcesses");
  });

  it("a worker seen for under 90% of a short window is still short-lived: counted on the tree", () => {
    const j = judged({
      seconds: 15,
      noCgroup: true,
      processes: [
        { pid: 100, ppid: 1, anon: linear(1 * MB) },
        { pid: 101, ppid: 100, anon: linear(1 * MB), lives: [3, 15] },
      ],
    });
    expect(j.findings.some((f) => f.pid === 101)).toBe(false);
    expect(j.findings.find((f) => f.subject.type === "tree")!.evidence.shortLivedProcesses).toBe(1);
  });

  it("counts on the tree the processes dropped as short-lived, and none when there were none", () => {
    const sc = (extra: SynthScenario["processes"]): SynthScenario => ({
      seconds: 120,
      noCgroup: true,
      processes: [{ pid: 100, ppid: 1, anon: flat }, { pid: 104, ppid: 100, anon: flat }, ...extra],
    });
    const treeOf = (s: SynthScenario) => judged(s).findings.find((f) => f.subject.type === "tree")!;
    // Seen 15 s, 12 s and 2 s: buildSeries drops all three (SeriesSet.shortLivedDropped).
    const short = [
      { pid: 101, ppid: 100, anon: flat, lives: [10, 25] as [number, number] },
      { pid: 102, ppid: 100, anon: flat, lives: [10, 22] as [number, number] },
      { pid: 103, ppid: 100, anon: flat, lives: [30, 32] as [number, number] },
    ];
    expect(treeOf(sc(short)).evidence.shortLivedProcesses).toBe(3);
    expect(treeOf(sc([])).evidence).not.toHaveProperty("shortLivedProcesses");
  });

  it("a process seen 20 times over 4.75 s (at 4 Hz) is too short to judge, wherever in the run it was", () => {
    const j = judged({
      seconds: 120,
      hz: 4,
      noCgroup: true,
      processes: [
        { pid: 100, ppid: 1, anon: flat },
        { pid: 104, ppid: 100, anon: flat },
        { pid: 101, ppid: 100, anon: flat, lives: [100, 105] },
      ],
    });
    expect(j.findings.some((f) => f.pid === 101)).toBe(false);
    expect(j.findings.find((f) => f.subject.type === "tree")!.evidence.shortLivedProcesses).toBe(1);
  });

  it("GPU findings join the host's, named by the same command, and head the verdict when they are the most serious", () => {
    const j = judged(
      {
        seconds: 120,
        noCgroup: true,
        processes: [
          {
            pid: 100,
            ppid: 1,
            anon: flat,
            agent: gpuReports(
              {
                0: {
                  allocated: { shape: { kind: "linear", bytesPerSecond: 2 * MB }, baseline: 1024 * MB, noise: 1 * MB },
                },
              },
              120,
            ),
          },
        ],
      },
      new Map([[100, ["/bin/train", "x"]]]),
    );
    expect(j.findings.map((f) => [f.subject.type, f.kind])).toEqual([
      ["gpu", "leak"],
      ["process", "stable"],
    ]);
    expect(j.verdict).toBe(j.findings[0]);
    expect(j.verdict.subject).toMatchObject({ type: "gpu", command: "train x" });
  });
});

describe("what every rule reads besides its own series", () => {
  /** Flat at 50 MiB after a 200 MiB warm-up with a 10 s time constant. */
  const warming = {
    shape: { kind: "stable" as const },
    baseline: 50 * MB,
    noise: 0.5 * MB,
    warmup: { level: 200 * MB, tau: 10 },
  };
  const pair = (root: SynthScenario["processes"][0]["anon"], child: SynthScenario["processes"][0]["anon"]) =>
    judged({
      seconds: 120,
      noCgroup: true,
      processes: [
        { pid: 100, ppid: 1, anon: root },
        { pid: 101, ppid: 100, anon: child },
      ],
    });

  it("the warm-up is found on the root's memory, not a child's nor the tree's", () => {
    expect(pair(flat, warming).window.warmup).toBe(0);
    expect(pair(warming, flat).window.warmup).toBe(29.8);
  });

  it("…on its anonymous memory, not its resident memory, which counts file pages too", () => {
    // The root's file pages warm up (a model read in), its anon does not.
    const filePagesWarm = judged({
      seconds: 120,
      noCgroup: true,
      processes: [{ pid: 100, ppid: 1, anon: flat, file: { ...warming, baseline: 30 * MB } }],
    });
    expect(filePagesWarm.window.warmup).toBe(0);
  });

  it("a process without the agent's numbers says why: none in the session, or it never reported while others did", () => {
    const leaking = { shape: { kind: "linear" as const, bytesPerSecond: 1 * MB }, baseline: 50 * MB, noise: 0.1 * MB };
    const run = (rootAgent: boolean) =>
      judged({
        seconds: 60,
        noCgroup: true,
        processes: [
          {
            pid: 100,
            ppid: 1,
            anon: flat,
            ...(rootAgent && { agent: () => ({ malloc: { inUse: 40 * MB, free: 1 * MB, arenas: 1 } }) }),
          },
          { pid: 101, ppid: 100, anon: leaking },
        ],
      });
    const why = (rootAgent: boolean) => {
      const c = run(rootAgent)
        .findings.find((f) => f.pid === 101)!
        .caveats.find((x) => x.say === "agent.missing");
      return c?.say === "agent.missing" ? c.facts.why : undefined;
    };
    expect(why(true)).toBe("it never reported");
    expect(why(false)).toBe("no agent in this session");
  });
});

describe("copying needs a relative alive when the copier was last seen", () => {
  // Process 101 copies 40 MiB of pages shared with a relative in its first 100 s (USS up, anon flat) and exits at
  // 150 s; its parent (999) is not watched.
  const worker = {
    pid: 101,
    ppid: 999,
    anon: { shape: { kind: "stable" as const }, baseline: 260 * MB, noise: 0.1 * MB },
    uss: {
      shape: { kind: "fill" as const, bytesPerSecond: (40 * MB) / 100, until: 100 },
      baseline: 5 * MB,
      noise: 0.1 * MB,
    },
    lives: [0, 150] as [number, number],
  };
  const kindOf101 = (...others: SynthScenario["processes"]) =>
    judged({
      seconds: 300,
      noCgroup: true,
      processes: [{ pid: 100, ppid: 1, anon: flat }, worker, ...others],
    }).findings.find((f) => f.pid === 101)!.kind;

  it("a child of its own alive then: cow", () => {
    expect(kindOf101({ pid: 102, ppid: 101, anon: flat, lives: [100, 300] })).toBe("cow");
  });

  it("a child first seen at its very last sample: cow", () => {
    expect(kindOf101({ pid: 102, ppid: 101, anon: flat, lives: [149, 300] })).toBe("cow");
  });

  it("a parent last seen one sampling interval before it, at 2 Hz: cow; two intervals before: not copying", () => {
    // The grace is 1.5 intervals, 0.75 s at 2 Hz: the worker's last sample is at 299.5 s.
    const at2Hz = (parentUntil: number) =>
      judged({
        seconds: 300,
        hz: 2,
        noCgroup: true,
        processes: [
          { pid: 100, ppid: 1, anon: flat, lives: [0, parentUntil] },
          { ...worker, ppid: 100, lives: [0, 300] },
        ],
      }).findings.find((f) => f.pid === 101)!.kind;
    expect(at2Hz(299.5)).toBe("cow");
    expect(at2Hz(299)).toBe("stable");
  });

  it("a child seen only after it exited, or none, or itself as its own parent: not copying", () => {
    expect(kindOf101({ pid: 102, ppid: 101, anon: flat, lives: [200, 300] })).toBe("stable");
    expect(kindOf101()).toBe("stable");
    expect(
      judged({
        seconds: 300,
        noCgroup: true,
        processes: [
          { pid: 100, ppid: 1, anon: flat },
          { ...worker, ppid: 101, lives: [0, 300] },
        ],
      }).findings.find((f) => f.pid === 101)!.kind,
    ).toBe("stable");
  });
});

describe("a process seen but never read (no memory lines in any of its readings)", () => {
  // What a sampler before the status-state fix recorded of a `true` that exited between its stat and its status read
  // (CI on f189e9d: exit 70, "reading 'xs'"); a recording holding one is judged, not crashed on.
  const unread = { pid: 100, ppid: 1, starttime: 5, comm: "true", cpuTicks: 0, threads: 1 };

  it("alone, the verdict is no samples", () => {
    const j = judge({ set: buildSeries([{ t: 1000, processes: [unread] }]), options: {}, target: { pid: 100 } });
    expect(j.findings).toEqual([]);
    expect(j.verdict.summary).toEqual({ say: "verdict.no-samples", facts: {} });
  });

  it("beside read children, they are judged and it is left out", () => {
    const samples = synthesize({
      seconds: 60,
      processes: [{ pid: 101, ppid: 100, anon: { shape: { kind: "stable" }, baseline: 50 * MB } }],
    });
    for (const s of samples) s.processes.unshift({ ...unread });
    const j = judge({ set: buildSeries(samples), options: {}, target: { pid: 100 } });
    expect(j.findings.map((f) => f.subject.type === "process" && f.subject.pid)).not.toContain(100);
    expect(j.findings.some((f) => f.subject.type === "process" && f.subject.pid === 101)).toBe(true);
  });
});
