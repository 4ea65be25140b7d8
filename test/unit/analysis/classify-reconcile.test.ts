/**
 * How classify.ts reconciles the tree's and the cgroup's findings with the processes' (explainBacklogs, reconcile,
 * markOutside), pinned by the facts each reconciled finding carries: the sentence it says and its numbers, the
 * evidence it adds, whose advice it takes. rules/gc-backlog.test.ts, rules/tree.test.ts and watch-rules.test.ts judge
 * the same cases by their kinds; these say what the finding is made of.
 */
import { phrase } from "../../../src/analysis/phrases.js";
import { describe, expect, it } from "vitest";
import { judge } from "../../../src/analysis/classify.js";
import type { JudgedFinding } from "../../../src/analysis/judgement.js";
import { buildSeries } from "../../../src/series/series.js";
import { synthesize, type SynthProcess, type SynthScenario } from "../../helpers/synthetic-samples.js";
import { alone, fill, flat, linear, MB, type Series } from "./signals/judge.js";
import { gcNumbers } from "./signals/gc-numbers.js";
import { analyzeRecording } from "../../../src/recording/replay.js";
import { analyzedUntil } from "../../helpers/recording-cut.js";
import { FIXTURES } from "../../helpers/fixtures.js";

function run(sc: SynthScenario, cgroup: { others?: number[]; othersAnonGrowth?: number } = {}) {
  const j = judge({
    set: buildSeries(synthesize(sc)),
    options: { warmup: 0 },
    cgroup: { path: "/r", version: 1, ...cgroup },
    target: { pid: 100 },
  });
  const of = (type: string, pid?: number): JudgedFinding =>
    j.findings.find((f) => f.subject.type === type && (pid === undefined || f.pid === pid))!;
  return { j, of };
}

/** gc_sawtooth between full collections: 4 MiB teeth every 60 s on lows rising 12 KiB/s (rules/gc-backlog.test.ts). */
const backlog: Series = {
  shape: { kind: "sawtooth", period: 60, amplitude: 4 * MB, bytesPerSecond: 12 * 1024 },
  baseline: 20 * MB,
  noise: 0.2 * MB,
};
/** Up 8 MiB over 290 s and back down at the full collection at 290 s. */
const ratchet: Series = {
  shape: { kind: "sawtooth", period: 290, amplitude: 8 * MB, bytesPerSecond: 0 },
  baseline: 20 * MB,
  noise: 0.2 * MB,
};

describe("growth that a garbage backlog accounts for", () => {
  it("is undecided while the process waits for a full collection: the cgroup's growth (its usage) and the pids", () => {
    const { of } = run(alone({ anon: backlog, agent: gcNumbers({ gen1Every: 60 }) }));
    const cg = of("cgroup");
    expect(cg.kind).toBe("insufficient-data");
    expect(cg.confidence).toBe(0);
    expect(cg.summary).toEqual({
      say: "reconcile.backlog-waiting",
      facts: { subject: "cgroup", growth: cg.evidence.usageGrowth, pids: "100" },
    });
    // The cgroup's usage grew by more than the growth of the metric it was judged on.
    expect(cg.evidence.usageGrowth).not.toBe(cg.evidence.growth);
    expect(cg.evidence).toMatchObject({ gcBacklog: "waiting", explainedByPids: "100" });
    expect(cg.evidence.settling).toBeUndefined();
    // The process's advice (when its next full collection is due), not a generic one; its own finding is its own.
    expect(of("process", 100).evidence.gcBacklog).toBe("waiting");
    expect(of("process", 100).summary.say).toBe("process.insufficient");
    expect(cg.advice).toEqual(of("process", 100).advice);
  });

  it("…the tree's too, by its own growth, while a worker grows under the floor beside it", () => {
    const { of } = run({
      seconds: 300,
      // The worker first: its finding comes before the backlog process's.
      processes: [
        { pid: 200, ppid: 100, anon: linear(30 * MB, (1 * MB) / 300, 0.05 * MB) },
        { pid: 100, ppid: 1, anon: backlog, agent: gcNumbers({ gen1Every: 60 }) },
      ],
    });
    const tree = of("tree");
    expect(tree.kind).toBe("insufficient-data");
    expect(tree.summary).toEqual({
      say: "reconcile.backlog-waiting",
      facts: { subject: "tree", growth: tree.evidence.growth, pids: "100" },
    });
    // The advice of the process with the backlog, not of the worker listed before it.
    expect(tree.advice).toEqual(of("process", 100).advice);
    expect(tree.advice).not.toEqual(of("process", 200).advice);
  });

  it("…of every process with a backlog, named together", () => {
    const both = [100, 101].map((pid) => ({
      pid,
      ppid: pid === 100 ? 1 : 100,
      anon: backlog,
      agent: gcNumbers({ gen1Every: 60 }),
    }));
    const { of } = run({ seconds: 300, processes: both });
    for (const type of ["tree", "cgroup"]) {
      expect(of(type).kind).toBe("insufficient-data");
      expect(of(type).evidence.explainedByPids).toBe("100, 101");
    }
  });

  it("…undecided while any of them waits, though another's full collection gave its part back", () => {
    // 303 s: process 100's full collection at 290 s released its 8 MiB; process 101 still waits for one.
    const { of } = run({
      seconds: 303,
      processes: [
        { pid: 100, ppid: 1, anon: ratchet, agent: gcNumbers({ gen1Every: Infinity, fullAt: 290 }) },
        { pid: 101, ppid: 100, anon: backlog, agent: gcNumbers({ gen1Every: 60 }) },
      ],
    });
    expect([of("process", 100).evidence.gcBacklog, of("process", 101).evidence.gcBacklog]).toEqual([
      "released",
      "waiting",
    ]);
    for (const type of ["tree", "cgroup"]) {
      expect(of(type).kind).toBe("insufficient-data");
      expect(of(type).evidence).toMatchObject({ gcBacklog: "waiting", explainedByPids: "100, 101" });
    }
  });

  it("…but not when a process leaks: that leak explains the growth", () => {
    // A 300 MiB worker puts the tree's floor at ~6.4 MiB: the tree's 7.3 MiB less the backlog's 5.1 MiB is under it,
    // yet process 102's 2.8 MiB leak (over its own 2 MiB floor) heads it.
    const { of } = run({
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: backlog, agent: gcNumbers({ gen1Every: 60 }) },
        { pid: 101, ppid: 100, anon: flat(300 * MB, 0.2 * MB) },
        { pid: 102, ppid: 100, anon: linear(20 * MB, (3 * MB) / 300, 0.05 * MB) },
      ],
    });
    expect(of("process", 102).kind).toBe("leak");
    expect(of("tree").kind).toBe("leak");
    expect(of("tree").summary).toMatchObject({ say: "reconcile.attributed", facts: { pids: "102" } });
    expect(of("tree").evidence.gcBacklog).toBeUndefined();
  });

  it("…but not when four such workers add more than the growth floor", () => {
    const { of } = run({
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: backlog, agent: gcNumbers({ gen1Every: 60 }) },
        ...[200, 201, 202, 203].map((pid) => ({ pid, ppid: 100, anon: linear(30 * MB, (1 * MB) / 300, 0.05 * MB) })),
      ],
    });
    expect(of("tree").kind).toBe("leak");
    expect(of("tree").summary.say).toBe("tree.leak");
    expect(of("tree").evidence.gcBacklog).toBeUndefined();
  });

  it("is not a shared cgroup's: what the others add is no backlog of the watched tree's", () => {
    const cg = run(alone({ anon: backlog, agent: gcNumbers({ gen1Every: 60 }) }), { others: [999] }).of("cgroup");
    expect(cg.kind).toBe("leak");
    expect(cg.evidence.gcBacklog).toBeUndefined();
  });

  it("is stable once a full collection gave it back, keeping the cgroup's confidence", () => {
    // 303 s: the full collection at 290 s, 13 s before the end.
    const { of } = run(alone({ anon: ratchet, agent: gcNumbers({ gen1Every: Infinity, fullAt: 290 }) }, 303));
    const cg = of("cgroup");
    expect(cg.kind).toBe("stable");
    expect(cg.confidence).toBeGreaterThan(0.5);
    expect(cg.summary).toEqual({
      say: "reconcile.backlog-released",
      facts: { subject: "cgroup", growth: cg.evidence.usageGrowth, pids: "100" },
    });
    expect(cg.evidence).toMatchObject({ gcBacklog: "released", explainedByPids: "100" });
    expect(of("process", 100).evidence.gcBacklog).toBe("released");
    expect(cg.advice).toEqual(of("process", 100).advice);
  });
});

describe("growth that allocators still settling account for", () => {
  /** Anon +18 MiB over 120 s under a live heap churning 300k blocks every 5 s on flat lows (several-causes.test.ts). */
  const churning = alone(
    {
      anon: linear(30 * MB, (18 * MB) / 120, 0.3 * MB),
      agent: (t) => ({
        malloc: { inUse: 3 * MB, free: 2 * MB, arenas: 1 },
        py: { allocatedBlocks: 70_000 + ((t % 5) / 5) * 300_000 },
      }),
    },
    120,
  );

  it("is undecided in a shared cgroup too: the settling processes account for all of it", () => {
    const cg = run(churning, { others: [999] }).of("cgroup");
    expect(cg.kind).toBe("insufficient-data");
    expect(cg.summary.say).toBe("reconcile.settling");
  });

  it("is undecided, says so, and takes the settling process's advice", () => {
    const { of } = run(churning);
    const cg = of("cgroup");
    expect(of("process", 100).evidence.settling).toBe(true);
    expect(cg.kind).toBe("insufficient-data");
    expect(cg.confidence).toBe(0);
    expect(cg.summary).toEqual({
      say: "reconcile.settling",
      facts: { subject: "cgroup", growth: cg.evidence.usageGrowth, pids: "100" },
    });
    expect(cg.evidence).toMatchObject({ settling: true, explainedByPids: "100" });
    expect(cg.evidence.gcBacklog).toBeUndefined();
    expect(cg.advice).toEqual(of("process", 100).advice);
  });
});

describe("a shared cgroup's growth that the watched tree does not account for", () => {
  it("says how much it grew, how much the tree did, and who else is in it", () => {
    const { j, of } = run(
      { seconds: 300, processes: [{ pid: 100, ppid: 1, anon: flat(50 * MB) }], outsiders: linear(0, 1 * MB, 1 * MB) },
      { others: [200, 201], othersAnonGrowth: 290 * MB },
    );
    const cg = of("cgroup");
    expect(cg.kind).toBe("leak");
    expect(cg.outsideWatchedTree).toBe(true);
    expect(cg.evidence.outsideWatchedTree).toBe(true);
    expect(cg.summary).toEqual({
      say: "reconcile.outside",
      facts: {
        growth: cg.evidence.usageGrowth,
        rate: cg.rate,
        tree: cg.evidence.processesGrowth,
        others: [200, 201],
        othersAnonGrowth: 290 * MB,
        artefact: undefined,
      },
    });
    expect(j.verdict.subject.type).toBe("process");
  });

  it("beside a leak of the watched process that explains a part of it: the advice sends to the others, not to the leak", () => {
    // A helper's trial: the watched program leaked +151 MiB while two other programs' runs in the same cgroup added 359
    // MiB; the summary said "not because of the watched tree" and the advice "because PID 5604 grows".
    const { of } = run(
      {
        seconds: 300,
        processes: [{ pid: 100, ppid: 1, anon: linear(50 * MB, 0.2 * MB) }],
        outsiders: linear(0, 1 * MB, 1 * MB),
      },
      { others: [200, 201], othersAnonGrowth: 290 * MB },
    );
    const cg = of("cgroup");
    expect(of("process", 100).kind).toBe("leak");
    expect(cg.kind).toBe("leak");
    expect(cg.outsideWatchedTree).toBe(true);
    expect(cg.advice).toEqual([
      phrase("advice.leak", {
        variant: "outside",
        rate: cg.rate!,
        others: [200, 201],
        tree: Number(cg.evidence.processesGrowth),
      }),
    ]);
  });

  it("a leak of the watched process that explains a third to three quarters of it: said as a part, with both figures", () => {
    // A helper's trial: "because PID 5605 grows" stood under a cgroup that others in it grew by 167 MiB of 475.
    const { of } = run(
      {
        seconds: 300,
        processes: [{ pid: 100, ppid: 1, anon: linear(50 * MB, 0.5 * MB) }],
        outsiders: linear(0, 0.6 * MB, 1 * MB),
      },
      { others: [200], othersAnonGrowth: 170 * MB },
    );
    const cg = of("cgroup");
    expect(cg.kind).toBe("leak");
    expect(cg.outsideWatchedTree).toBeUndefined();
    expect(cg.summary.say).toBe("reconcile.attributed");
    const facts = cg.summary.facts as { part?: { grown: number; growth: number } };
    expect(facts.part?.growth).toBe(cg.evidence.growth);
    expect(facts.part!.grown / facts.part!.growth).toBeGreaterThan(0.35);
    expect(facts.part!.grown / facts.part!.growth).toBeLessThan(0.55);
    // Its advice says it as the summary does ("partly because PID 100 grows").
    expect(cg.advice[0]).toMatchObject({ say: "advice.leak", facts: { variant: "attributed", part: facts.part } });
    // Alone in its cgroup, the same leak is all of it: no part said.
    const alone = run({ seconds: 300, processes: [{ pid: 100, ppid: 1, anon: linear(50 * MB, 0.5 * MB) }] });
    expect((alone.of("cgroup").summary.facts as { part?: unknown }).part).toBeUndefined();
  });

  it("is the outsiders' when it goes on growing after the watched tree stopped, whatever the tree added before", () => {
    // The pid fills 225 MiB in its first 150 s and stays; an outsider leaks 0.5 MiB/s throughout (watch-rules.test.ts).
    const { j, of } = run(
      {
        seconds: 300,
        processes: [
          {
            pid: 100,
            ppid: 1,
            anon: { shape: { kind: "fill", bytesPerSecond: 1.5 * MB, until: 150 }, noise: 0.5 * MB },
          },
        ],
        outsiders: linear(0, 0.5 * MB, 1 * MB),
      },
      { others: [200] },
    );
    const cg = of("cgroup");
    expect(of("process", 100).kind).toBe("plateau");
    expect(cg.kind).toBe("leak");
    expect(Number(cg.evidence.processesGrowth)).toBeGreaterThan(Number(cg.evidence.usageGrowth) / 3);
    expect(cg.outsideWatchedTree).toBe(true);
    expect(j.verdict.kind).toBe("plateau");
  });

  it("is the outsiders' by what the finding claims grew, where the usage's level change says less (a leak on the lows)", async () => {
    // fixtures/cuts/diverged_worker.outside-leak.jsonl: `memleak watch --duration 35 --max-agents 3 --record` of
    // bench/py/idle_tree_one_leaks.py 6 8 8 0 once (a worker steps up 48 MiB) beside a leaking tree of the same
    // script in the machine's shared cgroup, 2026-12-03: the cgroup's leak was found on its lows (+66 MiB) while its
    // tenths' medians fell 36 MiB, and judged by that fall the outsiders' leak was the verdict, "because PID … grows
    // (whose own finding is plateau)".
    const { doc } = await analyzeRecording(`${FIXTURES}cuts/diverged_worker.outside-leak.jsonl`);
    const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
    expect(Number(cg.evidence.usageGrowth)).toBeLessThan(0);
    expect(cg.kind).toBe("leak");
    expect(cg.outsideWatchedTree).toBe(true);
    expect(doc.verdict.kind).toBe("plateau");
    expect(doc.verdict.subject.type).toBe("process");
  });

  it("is the cgroup's own while the watched tree grows and accounts for a third of it or more", () => {
    // The pid leaks 0.45 MB/s, an outsider 0.55 MB/s: the tree (Σ PSS ≈ 0.9 × anon) accounts for ~40%.
    const leaking = (mb: number): Series => ({ shape: { kind: "linear", bytesPerSecond: mb * MB }, noise: 1 * MB });
    const { of } = run(
      { seconds: 300, processes: [{ pid: 100, ppid: 1, anon: leaking(0.45) }], outsiders: leaking(0.55) },
      {
        others: [200],
      },
    );
    expect(of("cgroup").kind).toBe("leak");
    expect(of("cgroup").outsideWatchedTree).toBeUndefined();
    expect(of("cgroup").summary.say).toBe("reconcile.attributed");
  });

  it("is the cgroup's own while a watched process's holes grow (fragmentation whose anon still climbs)", () => {
    // Issue 45: the watched tree grew by all of the cgroup's growth, its process fragmenting with anon rising 2 MiB/s;
    // nothing else in the cgroup grew. It was "not because of the watched tree" — and passed watch --fail-on leak.
    const { of } = run(
      {
        seconds: 300,
        processes: [
          {
            pid: 100,
            ppid: 1,
            anon: linear(200 * MB, 2 * MB),
            agent: (t) => ({
              malloc: { inUse: 20 * MB, free: 300 * MB + 2 * MB * t, arenas: 2, allocator: "glibc" },
              py: { allocatedBlocks: 50_000 },
            }),
          },
        ],
      },
      { others: [200] },
    );
    const p = of("process", 100);
    expect(p.kind).toBe("fragmentation");
    const cg = of("cgroup");
    expect(cg.outsideWatchedTree).toBeUndefined();
    expect(cg.summary).toMatchObject({ say: "reconcile.attributed", facts: { pids: "100", as: "fragmentation" } });
    // The process's holes are all of the growth: the cgroup's finding is that retention, with the process's advice —
    // never "no single process that memleak could see explains it".
    expect(cg.kind).toBe("fragmentation");
    expect(cg.advice).toEqual(p.advice);
    expect(cg.confidence).toBe(p.confidence);
  });

  it("a leak that processes explain points to them: its advice names them, never 'no single process'", () => {
    // The pid leaks 1 MB/s; the cgroup grows with it (and a little page cache).
    const { of } = run({
      seconds: 300,
      processes: [{ pid: 100, ppid: 1, anon: linear(50 * MB, 1 * MB, 0.2 * MB) }],
      cache: linear(0, 0.05 * MB, 0.01 * MB),
    });
    const cg = of("cgroup");
    expect(cg.kind).toBe("leak");
    expect(cg.summary).toMatchObject({ say: "reconcile.attributed", facts: { pids: "100" } });
    expect(cg.advice).toEqual([
      { say: "advice.leak", facts: { variant: "attributed", rate: cg.rate, subject: "cgroup", pids: "100" } },
    ]);
  });

  it("an artefact keeps its kind and its own sentence after the outsiders'", () => {
    const { of } = run(
      { seconds: 300, processes: [{ pid: 100, ppid: 1, anon: flat(50 * MB) }], cache: linear(0, 1 * MB, 0.1 * MB) },
      { others: [200] },
    );
    const cg = of("cgroup");
    expect(cg.kind).toBe("cgroup-artefact");
    expect(cg.outsideWatchedTree).toBe(true);
    expect(cg.summary.say).toBe("reconcile.outside");
    expect(cg.summary.facts).toMatchObject({ others: [200], artefact: { say: "cgroup.artefact" } });
  });

  it("no longer names the leaking process as its cause", () => {
    // The pid leaks 0.3 MB/s, an outsider 0.7 MB/s: the tree accounts for ~27% of the cgroup's growth.
    const leaking = (mb: number): Series => ({ shape: { kind: "linear", bytesPerSecond: mb * MB }, noise: 1 * MB });
    const { j, of } = run(
      { seconds: 300, processes: [{ pid: 100, ppid: 1, anon: leaking(0.3) }], outsiders: leaking(0.7) },
      {
        others: [200],
      },
    );
    expect(of("cgroup").outsideWatchedTree).toBe(true);
    expect(of("cgroup").evidence.explainedByPids).toBeUndefined();
    expect(j.verdict).toMatchObject({ kind: "leak", pid: 100 });
  });
});

describe("the processes outside the watched tree that share its cgroup", () => {
  const sc: SynthScenario = {
    seconds: 300,
    processes: [{ pid: 100, ppid: 1, anon: flat(50 * MB) }],
    outsiders: flat(50 * MB),
  };

  it("are a caveat and evidence of the cgroup's finding, their anon growth rounded to a byte", () => {
    const cg = run(sc, { others: [200], othersAnonGrowth: 1000.6 }).of("cgroup");
    expect(cg.kind).toBe("stable");
    expect(cg.caveats).toEqual([{ say: "cgroup.others", facts: { others: [200] } }]);
    expect(cg.evidence).toMatchObject({ otherProcessesInCgroup: 1, otherProcessesAnonGrowth: 1001 });
    // A cgroup that does not grow is nobody's doing.
    expect(cg.outsideWatchedTree).toBeUndefined();
  });

  it("…without their growth when their /proc could not be read, and not at all when there are none", () => {
    const unread = run(sc, { others: [200] }).of("cgroup");
    expect(unread.evidence.otherProcessesInCgroup).toBe(1);
    expect(unread.evidence).not.toHaveProperty("otherProcessesAnonGrowth");
    const none = run(sc, { others: [], othersAnonGrowth: 1000.6 }).of("cgroup");
    expect(none.caveats).toEqual([]);
    expect(none.evidence).not.toHaveProperty("otherProcessesInCgroup");
    expect(none.evidence).not.toHaveProperty("otherProcessesAnonGrowth");
  });
});

describe("growth that copy-on-write accounts for", () => {
  /** A worker whose private pages grow 40 MiB over the run while its resident anon stays flat. */
  const copier = (pid: number): SynthProcess => ({
    pid,
    ppid: 100,
    anon: flat(260 * MB, 0.1 * MB),
    uss: linear(5 * MB, (40 * MB) / 270, 0.1 * MB),
  });
  const root: SynthProcess = { pid: 100, ppid: 1, anon: flat(260 * MB, 0.1 * MB) };

  it("is cow: the copiers, what they copied, and the first copier's advice", () => {
    const { of } = run({ seconds: 300, processes: [root, copier(101), copier(102)] });
    const tree = of("tree");
    const copied = Number(of("process", 101).evidence.growth) + Number(of("process", 102).evidence.growth);
    expect(tree.kind).toBe("cow");
    expect(tree.summary).toEqual({
      say: "reconcile.cow",
      facts: { subject: "tree", growth: tree.evidence.growth, copiers: 2, copied },
    });
    expect(tree.evidence).toMatchObject({ copyOnWriteGrowth: Math.round(copied), copyOnWritePids: "101,102" });
    expect(tree.advice).toEqual(of("process", 101).advice);
    expect(tree.alsoFound).toBeUndefined();
  });

  it("is cow when copiers each under the floor add up to it, with the tree's own advice", () => {
    // Four 60 MiB workers each copy 7 MiB (under the 8 MiB floor: each stable); the tree grows ~27 MiB.
    const small = (pid: number): SynthProcess => ({
      pid,
      ppid: 100,
      anon: flat(60 * MB, 0.1 * MB),
      uss: fill(5 * MB, 7 * MB, 200),
    });
    const { of } = run({ seconds: 300, processes: [root, small(101), small(102), small(103), small(104)] });
    const tree = of("tree");
    expect(of("process", 101).kind).toBe("stable");
    expect(tree.kind).toBe("cow");
    const facts = {
      subject: "tree",
      growth: tree.evidence.growth,
      copiers: 4,
      copied: tree.evidence.copyOnWriteGrowth,
    };
    expect(tree.summary).toEqual({ say: "reconcile.cow", facts });
    expect(tree.advice).toEqual([{ say: "advice.cow-tree", facts }]);
    expect(tree.evidence.copyOnWritePids).toBe("101,102,103,104");
  });

  it("leaves a stable cgroup stable, however little it grew beside the copying", () => {
    // The synthetic cgroup is not charged the copied pages: it grows the outsiders' 1 MiB, under its floor.
    const { of } = run({
      seconds: 300,
      processes: [root, copier(101), copier(102)],
      outsiders: linear(0, (1 * MB) / 300, 0.01 * MB),
    });
    expect(of("tree").kind).toBe("cow");
    expect(of("cgroup").kind).toBe("stable");
    expect(Number(of("cgroup").evidence.growth)).toBeGreaterThan(0);
  });

  it("is cow when the tree levelled off too (a plateau)", () => {
    const filler = (pid: number): SynthProcess => ({ ...copier(pid), uss: fill(5 * MB, 40 * MB, 200) });
    const { of } = run({ seconds: 300, processes: [root, filler(101), filler(102)] });
    expect(of("tree").kind).toBe("cow");
    expect(of("tree").summary.say).toBe("reconcile.cow");
  });

  it("counts only the copiers alive when the run's last level was read", () => {
    // 102 exits at 150 s (what it copied is freed then), or at 295 s, within the last tenth of the run.
    const until = (end: number) => ({ ...copier(102), lives: [0, end] as [number, number] });
    expect(run({ seconds: 300, processes: [root, copier(101), until(150)] }).of("tree").evidence.copyOnWritePids).toBe(
      "101",
    );
    expect(run({ seconds: 300, processes: [root, copier(101), until(295)] }).of("tree").evidence.copyOnWritePids).toBe(
      "101,102",
    );
    // The last level is read from 270 s on (the last tenth), less 1.5 intervals: a copier last seen at 269 s counts.
    expect(run({ seconds: 300, processes: [root, copier(101), until(270)] }).of("tree").evidence.copyOnWritePids).toBe(
      "101,102",
    );
  });

  it("beside a process's leak is listed under the leak, as the bounded part", () => {
    const { of } = run({
      seconds: 300,
      processes: [
        root,
        copier(101),
        copier(102),
        { pid: 103, ppid: 100, anon: linear(100 * MB, (50 * MB) / 270, 0.1 * MB) },
      ],
    });
    for (const type of ["tree", "cgroup"]) {
      const f = of(type);
      expect(f.kind).toBe("leak");
      expect(f.summary.say).toBe("reconcile.attributed");
      expect(f.alsoFound).toHaveLength(1);
      const cow = f.alsoFound![0]!;
      expect(cow.kind).toBe("cow");
      expect(cow.summary).toMatchObject({
        say: "reconcile.cow",
        facts: { subject: type, copiers: 2, besideLeak: true },
      });
      expect(cow.evidence.copyOnWritePids).toBe("101,102");
      // The growth the copying is set against: the cgroup's usage, the tree's own.
      expect(cow.summary.facts).toMatchObject({
        growth: type === "cgroup" ? f.evidence.usageGrowth : f.evidence.growth,
      });
      expect(f.evidence.copyOnWritePids).toBeUndefined();
    }
    // The leaking process keeps its finding: copying explains groups' growth, not a process's own.
    expect(of("process", 103).summary.say).toBe("process.leak");
    expect(of("process", 103).alsoFound).toBeUndefined();
  });
});

describe("a tree's or cgroup's leak names the processes that account for it", () => {
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
    const { of } = run({
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: linearFrom(50 * MB, 0, 0.5 * MB) },
        { pid: 101, ppid: 100, anon: linearFrom(50 * MB, 0.5 * MB, 0.5 * MB) },
        { pid: 102, ppid: 100, anon: linearFrom(50 * MB, 0.3 * MB, 0.5 * MB) },
      ],
    });
    for (const type of ["tree", "cgroup"]) {
      const f = of(type);
      expect(f.kind).toBe("leak");
      expect(f.summary).toMatchObject({ say: "reconcile.attributed", facts: { of: { say: `${type}.leak` } } });
      expect(f.summary.facts).toEqual(expect.objectContaining({ pids: "101, 102" }));
      expect(f.summary.facts).not.toHaveProperty("as");
      expect(f.evidence.explainedByPids).toBe("101, 102");
    }
    for (const pid of [101, 102]) expect(of("process", pid).summary.say).toBe("process.leak");
  });

  it("not a cgroup's artefact, which page cache explains, while a process leaks", () => {
    const { of } = run({
      seconds: 300,
      processes: [{ pid: 100, ppid: 1, anon: linearFrom(50 * MB, 0.1 * MB, 0.2 * MB) }],
      cache: linearFrom(0, 1 * MB, 0.1 * MB),
    });
    expect(of("process", 100).kind).toBe("leak");
    expect(of("cgroup").kind).toBe("cgroup-artefact");
    expect(of("cgroup").summary.say).toBe("cgroup.artefact");
    expect(of("cgroup").evidence.explainedByPids).toBeUndefined();
  });

  it("with none leaking, processes of one other kind whose growth is a third of it or more, and that kind", () => {
    // The cgroup grows ~210 MiB, the two copiers' USS 84 MiB: over a third, under the half that would make it cow.
    const cg = run({ seconds: 300, processes: [root, copier(101), copier(102)], outsiders: outsiders(200) }).of(
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
    const { of } = run({
      seconds: 300,
      processes: [root, copier(101), copier(102), filler],
      outsiders: outsiders(250),
    });
    expect(of("cgroup").summary).toMatchObject({ say: "reconcile.attributed", facts: { pids: "101, 102, 103" } });
    expect(of("cgroup").summary.facts).not.toHaveProperty("as");
  });

  it("…counting no stable process's growth", () => {
    // Four workers each grow 1.8 MiB, under their own floor: stable. The cgroup grows ~259 MiB, a third 86.4 MiB:
    // the copiers' 84 MiB fall short of it, and would not with the workers' 7.5 MiB.
    const stable = [201, 202, 203, 204].map((pid) => ({
      pid,
      ppid: 100,
      anon: linearFrom(50 * MB, (1.8 * MB) / 270, 0.05 * MB),
    }));
    const { of } = run({
      seconds: 300,
      processes: [root, copier(101), copier(102), ...stable],
      outsiders: outsiders(240),
    });
    expect(of("process", 201).kind).toBe("stable");
    expect(of("cgroup").summary.say).toBe("cgroup.leak");
    expect(of("cgroup").evidence.explainedByPids).toBeUndefined();
  });

  it("not growth in shared memory (shmem), which is no process's own", () => {
    const { of } = run({
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: linearFrom(50 * MB, 0, 0.5 * MB) },
        { pid: 101, ppid: 100, anon: linearFrom(50 * MB, 0.1 * MB, 0.5 * MB) },
      ],
      shmem: linearFrom(0, 1 * MB, 0.05 * MB),
    });
    expect(of("process", 101).kind).toBe("leak");
    const cg = of("cgroup");
    expect(cg.evidence.growthIn).toBe("shmem");
    expect(cg.kind).toBe("leak");
    expect(cg.summary.say).toBe("cgroup.shmem");
    expect(cg.evidence.explainedByPids).toBeUndefined();
  });

  it("…and nothing when their growth is under a third of it", () => {
    // The cgroup grows ~262 MiB: a third is 87 MiB, more than the copiers' 84.
    const cg = run({ seconds: 300, processes: [root, copier(101), copier(102)], outsiders: outsiders(250) }).of(
      "cgroup",
    );
    expect(cg.kind).toBe("leak");
    expect(cg.summary.say).toBe("cgroup.leak");
    expect(cg.evidence.explainedByPids).toBeUndefined();
  });
});

describe("a tree's or cgroup's growth that stable processes account for", () => {
  // kept.py's fixed running loss under run, 20 s (CI on ec3431e): the process's anon rose ~2.3 MiB in its first
  // seconds (under its 2.34 MiB floor: stable; levelled off in a 90 s run), the cgroup's usage by that and a little
  // more, 120 → 123 MiB, past the cgroup's floor: "the cgroup grows at 165 KiB/s … mostly anonymous memory", a leak
  // heading a steady job's verdict. Here: the process +1.6 MiB, the kernel's part of the cgroup +1.9 MiB.
  const settlingTorch = (kernelGrowth: number, othersGrowth = 0) =>
    alone({ anon: linear(100 * MB, (1.8 * MB) / 60, 0.2 * MB) }, 60, {
      kernel: linear(10 * MB, kernelGrowth / 60, 0.02 * MB),
      // Anon of processes memleak did not see (short-lived ones between two samples).
      outsiders: linear(0, othersGrowth / 60, 0.02 * MB),
    });

  it("is stable when the processes are and what the cgroup adds to them is under the floor too", () => {
    const { of } = run(settlingTorch(2 * MB));
    const p = of("process", 100);
    expect(p.kind).toBe("stable");
    const cg = of("cgroup");
    expect(cg.kind).toBe("stable");
    expect(cg.summary).toEqual({
      say: "reconcile.stable",
      facts: {
        subject: "cgroup",
        // What the finding claims grew: here its trend's growth, more than the usage's level change.
        growth: Math.max(Number(cg.evidence.growth), Number(cg.evidence.usageGrowth)),
        grown: expect.any(Number),
        pids: "100",
        floor: 0.02 * Number(cg.evidence.start),
      },
    });
    const { grown } = cg.summary.facts as { grown: number };
    expect(grown).toBeGreaterThan(1.2 * MB);
    expect(grown).toBeLessThan(1.8 * MB);
    expect(cg.evidence.explainedByPids).toBe("100");
    expect(cg.confidence).toBe(p.confidence);
  });

  it("…but a leak where the cgroup adds a reportable growth of its own", () => {
    const cg = run(settlingTorch(0.8 * MB, 3 * MB)).of("cgroup");
    expect(cg.kind).toBe("leak");
    expect(cg.summary.say).toBe("cgroup.leak");
  });

  it("…and a leak where the processes' growth together passes the floor, each under its own (a leak shared out)", () => {
    const workers = [201, 202, 203, 204].map((pid) => ({
      pid,
      ppid: 100,
      anon: linear(20 * MB, (1.8 * MB) / 60, 0.05 * MB),
    }));
    const { of } = run({ seconds: 60, processes: [{ pid: 100, ppid: 1, anon: flat(50 * MB, 0.05 * MB) }, ...workers] });
    expect(of("process", 201).kind).toBe("stable");
    expect(of("cgroup").kind).toBe("leak");
    expect(of("tree").kind).toBe("leak");
  });

  it("…but not where workers copy after fork: their anon, which counted the pages shared, does not show the copies", async () => {
    // cow_below_floor_steady: two workers copy ~3.5 MiB in all by 45 s while each one's anon stays at 124 MiB.
    const doc = (await analyzedUntil("fixtures/calibration/recordings/cow_below_floor_steady.jsonl", 45)) as {
      findings: { subject: { type: string }; kind: string }[];
    };
    expect(doc.findings.filter((f) => f.subject.type !== "process").map((f) => [f.subject.type, f.kind])).toEqual([
      ["tree", "cow"],
      ["cgroup", "cow"],
    ]);
  });
});
