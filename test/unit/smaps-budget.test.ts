import { describe, expect, it } from "vitest";
import { SmapsBudget, estimateCostMs } from "../../src/smaps-budget.js";

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
    expect(b.plan(1000, [{ key: "old", rss: 0 }, { key: "new", rss: 0 }])[0]).toBe("new");
  });

  it("forgets processes that are gone", () => {
    const b = new SmapsBudget(0.01);
    b.charge("gone", 0, 1);
    b.retain(new Set(["other"]));
    expect(b.lastReadAt("gone")).toBeUndefined();
  });
});
