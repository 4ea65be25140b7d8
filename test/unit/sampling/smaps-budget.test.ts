import { describe, expect, it } from "vitest";
import { SmapsBudget, TIME_EVERY_NTH_READ, estimateCostMs } from "../../../src/sampling/smaps-budget.js";

const GiB = 2 ** 30;

/** Runs the budget for `seconds` of simulated 1/hz ticks, charging each read 10 ms/GiB of its process's RSS. */
function simulate(budget: number, hz: number, seconds: number, rssList: number[]) {
  const b = new SmapsBudget(budget);
  const procs = rssList.map((rss, i) => ({ key: `p${i}`, rss }));
  const reads = new Map<string, number[]>();
  let spent = 0;
  for (let tick = 0; tick < seconds * hz; tick++) {
    const now = (tick * 1000) / hz;
    for (const key of b.plan(now, procs)) {
      const cost = estimateCostMs(procs.find((p) => p.key === key)!.rss);
      b.charge(key, now, cost);
      spent += cost;
      reads.set(key, [...(reads.get(key) ?? []), now]);
    }
  }
  return { spent, reads };
}

describe("smaps_rollup budget", () => {
  it.each([
    // budget, Hz, processes' RSS
    [0.01, 1, [10 * GiB]],
    [0.01, 10, [10 * GiB]],
    [0.01, 10, [2 * GiB, ...Array(8).fill(0.25 * GiB)]],
    [0.05, 1, [0.1 * GiB, 0.1 * GiB]],
    [0.001, 10, [30 * GiB, 1 * GiB]],
  ])("budget %d at %d Hz over %j: spends ≤ budget (+ one read) and refreshes every process", (budget, hz, rss) => {
    const seconds = 600;
    const { spent, reads } = simulate(budget, hz, seconds, rss);
    const biggestRead = Math.max(...rss.map(estimateCostMs));
    expect(spent).toBeLessThanOrEqual(budget * seconds * 1000 + budget * 1000 + biggestRead);
    // Every process keeps being read, roughly every Σcost/budget seconds (round-robin by staleness).
    const round = rss.reduce((s, r) => s + estimateCostMs(r), 0) / budget / 1000;
    for (let i = 0; i < rss.length; i++) {
      const times = reads.get(`p${i}`) ?? [];
      expect(times.length).toBeGreaterThan(0);
      const gaps = times.slice(1).map((t, k) => (t - times[k]!) / 1000);
      const worst = Math.max(0, ...gaps);
      expect(worst).toBeLessThanOrEqual(Math.max(round * 1.6, 1 / hz) + 1 / hz);
    }
  });

  it("small processes are read on every tick when the budget allows it", () => {
    const { reads } = simulate(0.01, 1, 60, [50 * 2 ** 20, 50 * 2 ** 20, 50 * 2 ** 20]);
    for (const times of reads.values()) expect(times.length).toBe(60);
  });

  it("a new process is read before processes that were read already", () => {
    const b = new SmapsBudget(0.01);
    b.charge("old", 0, 0.1);
    expect(
      b.plan(1000, [
        { key: "old", rss: 0 },
        { key: "new", rss: 0 },
      ])[0],
    ).toBe("new");
  });

  it("forgets processes that are gone", () => {
    const b = new SmapsBudget(0.01);
    b.charge("gone", 0, 1);
    b.retain(new Set(["other"]));
    expect(b.lastReadAt("gone")).toBeUndefined();
  });
});

describe("--pss-every: a target age, with the budget as the cap", () => {
  /** Ticks at `hz` for `seconds`, reads charged 10 ms/GiB; the oldest age each tick (ms) and the read time spent. */
  function ages(budget: number, everyMs: number, hz: number, seconds: number, rssList: number[]) {
    const b = new SmapsBudget(budget, Math.max(budget * 1000, 1), everyMs);
    const procs = rssList.map((rss, i) => ({ key: `p${i}`, rss }));
    let spent = 0;
    let worst = 0;
    for (let tick = 0; tick < seconds * hz; tick++) {
      const now = (tick * 1000) / hz;
      for (const key of b.plan(now, procs, 500 / hz)) {
        const cost = estimateCostMs(procs.find((p) => p.key === key)!.rss);
        b.charge(key, now, cost);
        spent += cost;
      }
      if (tick > 10 * hz) for (const p of procs) worst = Math.max(worst, now - b.lastReadAt(p.key)!);
    }
    return { spent, worst };
  }

  it("9 processes of 0.45 GiB at 1 Hz, every 2 s under a 3% cap: never older than 2 s, ~2.2% of a core", () => {
    const { spent, worst } = ages(0.03, 2000, 1, 300, Array(9).fill(0.45 * GiB));
    expect(worst).toBeLessThanOrEqual(2000);
    expect(spent / (300 * 1000)).toBeGreaterThan(0.015);
    expect(spent / (300 * 1000)).toBeLessThan(0.03);
  });

  it("a small tree is read no more often than the target, however much budget is left", () => {
    const { spent, worst } = ages(0.03, 2000, 10, 300, Array(4).fill(0.05 * GiB));
    expect(worst).toBeLessThanOrEqual(2000);
    // 4 reads of 0.54 ms every 2 s: 0.1% of a core, not the 3% the cap allows.
    expect(spent / (300 * 1000)).toBeLessThan(0.0015);
  });

  it("a tree too big for the cap gets older PSS, not more CPU", () => {
    const { spent, worst } = ages(0.03, 2000, 1, 600, Array(9).fill(4 * GiB));
    expect(spent / (600 * 1000)).toBeLessThanOrEqual(0.03 + 0.001);
    // 9 × 40 ms = 360 ms of reads per sweep at 30 ms/s: about 12 s old.
    expect(worst).toBeGreaterThan(10_000);
    expect(worst).toBeLessThan(15_000);
  });
});

describe("the first seconds are eager", () => {
  it("for eagerForMs every process is read at every tick the budget allows; after it, once every everyMs", () => {
    const b = new SmapsBudget(0.03, 30, 2000, 30_000);
    const procs = [
      { key: "a", rss: 0.05 * GiB },
      { key: "b", rss: 0.05 * GiB },
    ];
    const readsAt: number[] = [];
    for (let tick = 0; tick < 60; tick++) {
      const now = tick * 1000;
      for (const key of b.plan(now, procs, 500)) {
        b.charge(key, now, estimateCostMs(0.05 * GiB));
        if (key === "a") readsAt.push(now);
      }
    }
    expect(readsAt.filter((t) => t < 30_000)).toHaveLength(30);
    expect(readsAt.filter((t) => t >= 30_000)).toHaveLength(15);
  });

  it("while eager, a process that has not moved since its last read (still) is read once every everyMs", () => {
    const b = new SmapsBudget(0.03, 30, 2000, 30_000);
    const readsAt = new Map<string, number[]>([
      ["busy", []],
      ["idle", []],
    ]);
    for (let tick = 0; tick < 30; tick++) {
      const now = tick * 1000;
      const procs = [
        { key: "busy", rss: 0.05 * GiB, still: false },
        // Its first read is never skipped: still says nothing before one.
        { key: "idle", rss: 0.05 * GiB, still: tick > 0 },
      ];
      for (const key of b.plan(now, procs, 500)) {
        b.charge(key, now, estimateCostMs(0.05 * GiB));
        readsAt.get(key)!.push(now);
      }
    }
    expect(readsAt.get("busy")).toHaveLength(30);
    expect(readsAt.get("idle")).toHaveLength(15);
  });

  it("times a process's first read and one in TIME_EVERY_NTH_READ after; the others are charged its smoothed cost", () => {
    const b = new SmapsBudget(1, 1000);
    const timed: number[] = [];
    const charged: number[] = [];
    for (let i = 0; i < 2 * TIME_EVERY_NTH_READ + 1; i++) {
      const time = b.timeNext("p");
      if (time) timed.push(i);
      // Timed reads cost 4 ms then 2 ms: the untimed ones in between pay the smoothed figure, not a guess.
      charged.push(b.charge("p", i * 1000, time ? (i === 0 ? 4 : 2) : undefined));
    }
    expect(timed).toEqual([0, TIME_EVERY_NTH_READ, 2 * TIME_EVERY_NTH_READ]);
    expect(charged.slice(1, TIME_EVERY_NTH_READ)).toEqual(Array(TIME_EVERY_NTH_READ - 1).fill(4));
    expect(charged[TIME_EVERY_NTH_READ + 1]).toBeCloseTo(4 * 0.7 + 2 * 0.3);
    expect(b.totals().spentMs).toBeCloseTo(charged.reduce((a, c) => a + c, 0));
    // A process gone and back (a reused key after retain) starts over: its reads timed at 0, 8, 16 again.
    b.retain(new Set());
    const again: number[] = [];
    for (let i = 0; i < 2 * TIME_EVERY_NTH_READ + 1; i++) {
      if (b.timeNext("p")) again.push(i);
      b.charge("p", 100_000 + i * 1000, b.timeNext("p") ? 3 : undefined);
    }
    expect(again).toEqual([0, TIME_EVERY_NTH_READ, 2 * TIME_EVERY_NTH_READ]);
  });

  it("a failed read costs its attempt but leaves the estimate alone: the next read is timed and paid in full", () => {
    const b = new SmapsBudget(1, 1000);
    b.chargeFailed("big", 0, 0.05);
    expect(b.lastReadAt("big")).toBe(0);
    expect(b.timeNext("big")).toBe(true);
    expect(b.charge("big", 1000, 100)).toBe(100);
    // The next seven pay the 100 ms it measured, not the failed attempt's 0.05 ms.
    expect(b.timeNext("big")).toBe(false);
    expect(b.charge("big", 2000, undefined)).toBe(100);
  });
});
