/**
 * Boundaries of the rules every subject shares (assess.ts): how much data a verdict needs, how much growth is worth
 * one, when growth that stopped is start-up rather than a plateau, and when a jump is a step.
 *   ≥ 20 samples and ≥ 10 s after warm-up for a shape, else insufficient-data (unless the early test calls a leak)
 *   growth ≥ max(2 MiB, 2% of the level) over the window, else no growth
 *   growth that levelled off within max(3 s, 5% of the series) of its start is start-up: stable, not a plateau
 */
import { describe, expect, it } from "vitest";
import { assess, LEVEL_FLOOR_SHARE, minGrowth } from "../../../../src/analysis/assess.js";
import { detectPlateau } from "../../../../src/analysis/stats/plateau.js";
import { Column } from "../../../../src/series/column.js";
import { warmupFor } from "../../../../src/analysis/context.js";
import { alone, fill, flat, judge, linear, MB, processFinding, type Row, type Series } from "./judge.js";
import { generate } from "../../../helpers/synthetic.js";
import { FIXTURES } from "../../../helpers/fixtures.js";
import { analyzeRecording } from "../../../../src/recording/replay.js";

/** The process's own finding. */
const kindOf = (...[sc, options]: Parameters<typeof judge>) => processFinding(judge(sc, options), 100).kind;

/** A perfectly quiet ramp from `level`, growing `by` bytes between the first and last tenths of 300 s. */
const ramp = (level: number, by: number): Series => linear(level, by / 270, 0.02 * MB);

describe("how much data the shape rules need (a leak called before that: rules/early.test.ts)", () => {
  // Growth the early test cannot call (it rose, then levelled off: its last third is flat), so that what decides is
  // whether the shape rules have their 20 samples over 10 s: a plateau once they do, nothing before.
  const filled = fill(100 * MB, 30 * MB, 6);
  const ROWS: Row[] = [
    ["19 samples over 19 s", "insufficient-data", alone({ anon: filled }, 19)],
    ["21 samples over 21 s", "plateau", alone({ anon: filled }, 21)],
    ["exactly 20 samples", "plateau", alone({ anon: filled }, 20)],
    ["exactly 10 s (21 samples at 2 Hz)", "plateau", { ...alone({ anon: filled }, 10.5), hz: 2 }],
    ["36 samples over 9 s (4 Hz)", "insufficient-data", { ...alone({ anon: filled }, 9), hz: 4 }],
    ["44 samples over 11 s (4 Hz)", "plateau", { ...alone({ anon: filled }, 11), hz: 4 }],
  ];
  it.each(ROWS)("%s → %s", (_name, kind, sc) => expect(kindOf(sc, { warmup: 0 })).toBe(kind));

  it("says what was missing", () => {
    expect(processFinding(judge(alone({ anon: filled }, 19), { warmup: 0 }), 100).summary).toMatch(
      /not enough data \(19 samples after warm-up \(needs 20\)\)/,
    );
    expect(processFinding(judge({ ...alone({ anon: filled }, 9), hz: 4 }, { warmup: 0 }), 100).summary).toMatch(
      /not enough data \(9 s after warm-up \(needs 10 s\)\)/,
    );
  });

  it("a worker seen for fewer than 20 samples or 10 s is left out, and counted in the tree's evidence", () => {
    const sc = (lives: [number, number]) => ({
      seconds: 120,
      processes: [
        { pid: 100, ppid: 1, anon: flat(100 * MB) },
        { pid: 101, ppid: 100, anon: flat(50 * MB), lives },
        { pid: 102, ppid: 100, anon: flat(50 * MB) },
      ],
    });
    const judged = (lives: [number, number]) => judge(sc(lives)).findings.some((f) => f.pid === 101);
    expect(judged([30, 49])).toBe(false);
    expect(judged([30, 51])).toBe(true);
    expect(judge(sc([30, 49])).findings.find((f) => f.subject.type === "tree")!.evidence.shortLivedProcesses).toBe(1);
  });
});

describe("how much growth is worth a verdict", () => {
  const ROWS: Row[] = [
    // 2 MiB: on a 50 MiB process 2% is 1 MiB, so the byte floor decides
    ["+1.8 MiB on 50 MiB", "stable", alone({ anon: ramp(50 * MB, 1.8 * MB) })],
    ["+2.3 MiB on 50 MiB", "leak", alone({ anon: ramp(50 * MB, 2.3 * MB) })],
    // 2% of the level: on 500 MiB, 10 MiB
    ["+9 MiB on 500 MiB (1.8%)", "stable", alone({ anon: ramp(500 * MB, 9 * MB) })],
    ["+11 MiB on 500 MiB (2.2%)", "leak", alone({ anon: ramp(500 * MB, 11 * MB) })],
  ];
  it.each(ROWS)("%s → %s", (_name, kind, sc) => expect(kindOf(sc, { warmup: 0 })).toBe(kind));

  it("a significant trend below the floor is not growth (a 1 MiB drift is real, and nobody's problem)", () => {
    const a = assessOf(ramp(50 * MB, 1 * MB), 300);
    expect(a.trend?.mannKendall.p).toBeLessThan(1e-4);
    expect(a.shape).toBe("flat");
  });
});

describe("start-up is not a plateau", () => {
  // +60 MiB that stops rising at `until`: a plateau once it is past max(3 s, 5% of the series). A rise that is over
  // before a sixth of the window never reaches the plateau detector at all (the first third's median is already at
  // the top), so the 5% share binds on steps, below.
  const ROWS: Row[] = [
    [
      "30 s series, the rise over by 1.5 s (3 s floor)",
      "stable",
      { ...alone({ anon: fill(100 * MB, 60 * MB, 1.5, 0.2 * MB) }, 30), hz: 4 },
    ],
    [
      "30 s series, the rise over by 6 s",
      "plateau",
      { ...alone({ anon: fill(100 * MB, 60 * MB, 6, 0.2 * MB) }, 30), hz: 4 },
    ],
  ];
  it.each(ROWS)("%s → %s", (_name, kind, sc) => expect(kindOf(sc)).toBe(kind));
});

describe("start-up counts from the exec: a pyenv shim's bash ran seconds before python", () => {
  // fixtures/recordings/steady_noisy.slow-exec.jsonl: steady_noisy.py (5-80 MB buffers that come and go over a 30 MB
  // state) exec'd by bash 4.5 s after its birth, as pyenv's shim did on a busy CI machine (run.test failed: plateau).
  const rootAnon = async () => {
    const { set } = await analyzeRecording(`${FIXTURES}recordings/steady_noisy.slow-exec.jsonl`);
    const root = [...set.processes.values()].find((ps) => ps.pid === set.rootPid)!;
    return { col: root.metrics.anon!, execAt: root.execAt };
  };
  it("the series builder dates the exec from the name's change (bash → python3)", async () => {
    const { execAt } = await rootAnon();
    expect(execAt).toBeGreaterThanOrEqual(4.5);
    expect(execAt).toBeLessThan(5.5);
  });
  it("from the exec the process is flat, and its first level is python's, not bash's", async () => {
    const { col, execAt } = await rootAnon();
    const a = assess(col, 0, 0, execAt);
    expect(a.shape).toBe("flat");
    expect(a.from).toBeGreaterThanOrEqual(execAt!);
    expect(a.start).toBeGreaterThan(30 * MB);
  });
  it("the control: counted from the process's birth, the same series is growth that stopped (a step)", async () => {
    const { col } = await rootAnon();
    expect(assess(col, 0, 0).shape).toBe("step");
  });
});

describe("a steady CI step started through pyenv's shim beside busy neighbours (ci.test's steady smoke step)", () => {
  // fixtures/recordings/steady_buffer.shim-busy.jsonl: bash ran 3-4 s before python, whose start-up (a 20 MiB buffer)
  // lands at 4-6 s; the run's cgroup then sits at 28.9 MiB and steps to 29.1 MiB at 16 s (pages charged in batches).
  const recorded = () => analyzeRecording(`${FIXTURES}recordings/steady_buffer.shim-busy.jsonl`);
  it("stable for the process, the tree and the cgroup: the step's summary says stable", async () => {
    const { doc } = await recorded();
    expect(doc.verdict.kind).toBe("stable");
    expect(doc.findings.map((f) => [f.subject.type, f.kind])).toEqual([
      ["process", "stable"],
      ["tree", "stable"],
      ["cgroup", "stable"],
    ]);
  });
  it("no agent was injected under run: nothing of python's start-up is taken for memleak's", async () => {
    const { doc } = await recorded();
    for (const f of doc.findings) {
      expect(f.evidence.agentFootprint).toBeUndefined();
      expect(f.caveats.join(" ")).not.toMatch(/memleak's agents added/);
    }
  });
  it("the cgroup's level is dated at its start-up (within a quarter of the floor of it), not at the 200 KiB step", async () => {
    const { set } = await recorded();
    const root = [...set.processes.values()].find((ps) => ps.pid === set.rootPid)!;
    const a = assess(set.cgroup.cgroup!, 0, 0, root.execAt);
    expect(a.shape).toBe("flat");
    // the control: the plateau detector alone, without the floor's tolerance, levels it at the 200 KiB step
    const plain = detectPlateau(set.cgroup.cgroup!.xs, set.cgroup.cgroup!.ys);
    expect(plain.ok && plain.levelFrom).toBeGreaterThan(14);
    const tolerant = detectPlateau(set.cgroup.cgroup!.xs, set.cgroup.cgroup!.ys, {
      levelTolerance: LEVEL_FLOOR_SHARE * minGrowth(a.start),
    });
    expect(tolerant.ok && tolerant.levelFrom).toBeLessThan(root.execAt! + 3);
  });
});

describe("a step is one jump clear of the growth floor, after start-up", () => {
  // Late in the window (the last third holds the jump, so the plateau detector sees no flat tail): the step rule.
  const step = (at: number, height: number): Series => ({
    shape: { kind: "step", at, height },
    baseline: 100 * MB,
    noise: 0.2 * MB,
  });
  it.each([
    ["+30 MiB at 250 of 300 s", step(250, 30 * MB), 300, "step"],
    ["+1.8 MiB at 250 s (under the 2 MiB floor)", step(250, 1.8 * MB), 300, "flat"],
    ["+2.3 MiB at 250 s", step(250, 2.3 * MB), 300, "step"],
    ["a 1.5 MiB plateau at 150 s (under the floor)", step(150, 1.5 * MB), 300, "flat"],
    ["+30 MiB at 2.5 s of 30 s (under the 3 s start-up)", step(2.5, 30 * MB), 30, "flat"],
    ["+30 MiB at 4 s of 30 s", step(4, 30 * MB), 30, "step"],
  ] as [string, Series, number, string][])("%s", (_name, s, seconds, shape) => {
    expect(assessOf(s, seconds, seconds < 100 ? 4 : 1).shape).toBe(shape);
  });

  it.each([
    ["+30 MiB at 14 s of 400 s (5% is 20 s)", step(14, 30 * MB), "flat"],
    ["+30 MiB at 26 s of 400 s", step(26, 30 * MB), "step"],
  ] as [string, Series, string][])("start-up share: %s", (_name, s, shape) => {
    expect(assessOf(s, 400).shape).toBe(shape);
  });

  it("a step is reported as a plateau with the jump and when it happened", () => {
    const f = processFinding(judge(alone({ anon: step(250, 30 * MB) })), 100);
    expect(f.kind).toBe("plateau");
    expect(f.summary).toMatch(/one step of 3\d\.\d+ MiB, then levelled off at 13\d MiB/);
    expect(Number(f.evidence.levelFromSeconds)).toBeGreaterThan(245);
    expect(Number(f.evidence.levelFromSeconds)).toBeLessThan(255);
  });
});

describe("a plateau that keeps rising after its level is a leak after a long start-up", () => {
  // 90 s at 2 Hz: ~190 MiB of start-up (τ = 12 s: most of it in the first 25 s) on 100 MiB, then `rate`: the floor after it is 2% of ~290 MiB ≈ 5.8 MiB
  const afterStartup = (rate: number) => ({
    ...alone(
      {
        anon: {
          shape: { kind: "linear" as const, bytesPerSecond: rate },
          baseline: 100 * MB,
          noise: 0.1 * MB,
          warmup: { level: 190 * MB, tau: 12 },
        },
      },
      90,
    ),
    hz: 2,
  });
  it.each([
    ["flat after it", "plateau", 0],
    ["+0.05 MiB/s after it (~3 MiB, under the floor)", "plateau", 0.05 * MB],
    ["+0.22 MiB/s after it (~14 MiB)", "leak", 0.22 * MB],
  ] as [string, string, number][])("%s → %s", (_name, kind, rate) => expect(kindOf(afterStartup(rate))).toBe(kind));
});

describe("warm-up: a start that sits off the steady line by more than noise and half the growth floor", () => {
  // 400 s of a quiet 100 MiB process (floor 2 MiB, half of it 1 MiB) whose first 60 s sit `offset` below its level
  const startingLow = (offset: number) => {
    const col = new Column();
    const { ys } = generate({
      seconds: 400,
      hz: 1,
      baseline: 100 * MB,
      noise: 0.02 * MB,
      seed: 3,
      shape: { kind: "stable" },
    });
    ys.forEach((y, t) => col.push(t, t < 60 ? y - offset : y));
    return warmupFor(col, {});
  };
  it("0.8 MiB off for a minute is not warm-up", () => expect(startingLow(0.8 * MB)).toBe(0));
  it("1.4 MiB off for a minute is", () => {
    expect(startingLow(1.4 * MB)).toBeGreaterThanOrEqual(56);
    expect(startingLow(1.4 * MB)).toBeLessThanOrEqual(64);
  });
  it("the user's --warmup wins", () => expect(warmupFor(new Column(), { warmup: 12 })).toBe(12));
});

describe("the peak", () => {
  // 2,000 s at 1 Hz in a 200-point column: compaction averages a 1 s spike of +100 MiB into its neighbours
  const spiky = () => {
    const col = new Column(200);
    for (let t = 0; t < 2000; t++) col.push(t, 100 * MB + (t === 700 ? 100 * MB : 0) + (t % 7) * 0.01 * MB);
    return col;
  };
  it("over the whole series is the exact one, even after compaction averaged it away", () => {
    expect(assess(spiky(), 0).peak).toBe(200 * MB);
  });
  it("over part of the series is the largest stored point after its start", () => {
    const col = spiky();
    expect(assess(col, 0, 1000).peak).toBeLessThan(101 * MB);
    const averaged = assess(col, 0, 500).peak;
    expect(averaged).toBeGreaterThan(101 * MB);
    expect(averaged).toBeLessThan(200 * MB);
  });
});

function assessOf(s: Series, seconds: number, hz = 1) {
  const { xs, ys } = generate({ seconds, hz, baseline: 100 * MB, noise: 0, seed: 1, ...s });
  const col = new Column();
  xs.forEach((x, i) => col.push(x, ys[i]!));
  return assess(col, 0);
}
