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

describe("a tree's or cgroup's leak names the processes that account for it", () => {
  const run = (sc: SynthScenario) =>
    judge({
      set: buildSeries(synthesize(sc)),
      options: { warmup: 0 },
      cgroup: { path: "/r", version: 1 },
      target: { pid: 100 },
    });
  const find = (j: ReturnType<typeof run>, type: string) => j.findings.find((x) => x.subject.type === type)!;
  const root = { pid: 100, ppid: 1, anon: { shape: { kind: "stable" as const }, baseline: 260 * MB, noise: 0.1 * MB } };
  const linearFrom = (level: number, perSecond: number, noise: number) => ({
    shape: { kind: "linear" as const, bytesPerSecond: perSecond },
    baseline: level,
    noise,
  });
  /** A worker whose private pages grow 40 MiB over the run while its resident anon stays flat: copy-on-write. */
  const copier = (pid: number) => ({
    pid,
    ppid: 100,
    anon: { shape: { kind: "stable" as const }, baseline: 260 * MB, noise: 0.1 * MB },
    uss: linearFrom(5 * MB, (40 * MB) / 270, 0.1 * MB),
  });
  /** Growth in the cgroup that no watched process shows (the synthetic cgroup does not charge the copied pages). */
  const outsiders = (mb: number) => linearFrom(0, (mb * MB) / 270, 0.05 * MB);

  it("processes that leak, every one of them, whatever else grows", () => {
    const j = run({
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: linearFrom(50 * MB, 0, 0.5 * MB) },
        { pid: 101, ppid: 100, anon: linearFrom(50 * MB, 0.5 * MB, 0.5 * MB) },
        { pid: 102, ppid: 100, anon: linearFrom(50 * MB, 0.3 * MB, 0.5 * MB) },
      ],
    });
    for (const type of ["tree", "cgroup"]) {
      const f = find(j, type);
      expect(f.kind).toBe("leak");
      expect(f.summary).toMatchObject({ say: "reconcile.attributed", facts: { of: { say: `${type}.leak` } } });
      expect(f.summary.facts).toEqual(expect.objectContaining({ pids: "101, 102" }));
      expect(f.summary.facts).not.toHaveProperty("as");
      expect(f.evidence.explainedByPids).toBe("101, 102");
    }
  });

  it("with none leaking, processes of one other kind whose growth is a third of it or more, and that kind", () => {
    // The cgroup grows ~210 MiB, the two copiers' USS 84 MiB: over a third, under the half that would make it cow.
    const cg = find(
      run({ seconds: 300, processes: [root, copier(101), copier(102)], outsiders: outsiders(200) }),
      "cgroup",
    );
    expect(cg.kind).toBe("leak");
    expect(cg.summary).toMatchObject({
      say: "reconcile.attributed",
      facts: { of: { say: "cgroup.leak" }, pids: "101, 102", as: "cow" },
    });
    expect(cg.evidence.explainedByPids).toBe("101, 102");
  });

  it("…and no kind when they are of several", () => {
    // A third worker that filled 30 MiB and levelled off (a plateau): 111 MiB of the cgroup's ~290 MiB.
    const filler = {
      pid: 103,
      ppid: 100,
      anon: {
        shape: { kind: "fill" as const, bytesPerSecond: (30 * MB) / 100, until: 100 },
        baseline: 50 * MB,
        noise: 0.1 * MB,
      },
    };
    const j = run({ seconds: 300, processes: [root, copier(101), copier(102), filler], outsiders: outsiders(250) });
    expect(find(j, "cgroup").summary).toMatchObject({ say: "reconcile.attributed", facts: { pids: "101, 102, 103" } });
    expect(find(j, "cgroup").summary.facts).not.toHaveProperty("as");
  });

  it("…and nothing when their growth is under a third of it", () => {
    // The cgroup grows ~262 MiB: a third is 87 MiB, more than the copiers' 84.
    const cg = find(
      run({ seconds: 300, processes: [root, copier(101), copier(102)], outsiders: outsiders(250) }),
      "cgroup",
    );
    expect(cg.kind).toBe("leak");
    expect(cg.summary.say).toBe("cgroup.leak");
    expect(cg.evidence.explainedByPids).toBeUndefined();
  });
});
