/**
 * A big tree's columns share POINTS_BUDGET (series.ts): each is compacted to its share as columns add up, never under
 * MIN_CAPACITY, raised again when processes are dropped; a few processes keep the full capacity. And what the rules
 * read of a long watch of a big tree, compacted so, is judged as the uncompacted series is.
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../../src/report/verdict.js";
import { DEFAULT_CAPACITY, type Column } from "../../../src/series/column.js";
import {
  KEEP_EXITED_SECONDS,
  MIN_CAPACITY,
  POINTS_BUDGET,
  SeriesBuilder,
  type SeriesSet,
} from "../../../src/series/series.js";
import type { ProcessSample } from "../../../src/system/sample.js";
import { MB, synthesize, type SynthScenario } from "../../helpers/synthetic-samples.js";

const proc = (pid: number, rss: number): ProcessSample => ({
  pid,
  ppid: 1,
  starttime: pid,
  comm: "python3",
  rss,
  anon: rss,
});

/** An agent's report with `fields` numbers in one section (as a census or torch section adds them). */
const report = (fields: number, t: number) => ({
  threads: 2,
  py: Object.fromEntries(Array.from({ length: fields - 1 }, (_, i) => [`f${i}`, t + i])),
});

/** Every column of the set, pushed to or not. */
function allColumns(set: SeriesSet): Column[] {
  const out = [set.treeCount, set.cgroupOomKills, ...Object.values(set.tree), ...Object.values(set.cgroup)] as Column[];
  for (const ps of set.processes.values())
    out.push(
      ...(Object.values(ps.metrics) as Column[]),
      ps.shared,
      ...(Object.values(ps.agent) as Column[]),
      ...Object.values(ps.gpuUsed),
    );
  return out;
}

/** The columns that hold points (no cgroup OOM kills or shared pages are read here). */
const columns = (set: SeriesSet) => allColumns(set).filter((c) => c.length > 0);

describe("the points budget", () => {
  it("a few processes keep the full capacity", () => {
    const b = new SeriesBuilder();
    for (let t = 0; t < DEFAULT_CAPACITY - 1; t++)
      b.add({ t: t * 1000, processes: [proc(1, t), proc(2, t)], agent: { 1: report(20, t) } });
    for (const c of columns(b.set)) expect(c.length).toBe(DEFAULT_CAPACITY - 1);
  });

  // A budget smaller than POINTS_BUDGET (the constructor's third argument) makes a tree of 20 processes behave as one
  // of a few hundred would, in a test that takes well under a second.
  it("a big tree's columns are each held to their share of the budget", () => {
    const budget = 1_720_000;
    const b = new SeriesBuilder(DEFAULT_CAPACITY, undefined, budget);
    const pids = Array.from({ length: 20 }, (_, i) => 10 + i);
    // 20 processes × (rss, anon, shared, threads and 39 agent fields) + the tree's: ~860 columns
    for (let t = 0; t < 2500; t++) {
      const agent = Object.fromEntries(pids.map((p) => [p, report(40, t)]));
      b.add({
        t: t * 1000,
        processes: pids.map((p) => proc(p, t * 4096)),
        agent,
        cgroup: { usage: t * 8192, workingSet: t * 4096, limit: null },
      });
    }
    const all = columns(b.set);
    expect(b.columnCount).toBe(allColumns(b.set).length);
    expect(Object.keys(b.set.cgroup).length).toBeGreaterThan(0);
    const share = Math.floor(budget / all.length / 2) * 2;
    expect(share).toBeGreaterThan(MIN_CAPACITY);
    expect(share).toBeLessThan(2500);
    for (const c of all) {
      expect(c.length).toBeLessThan(share + 1);
      expect(c.length).toBeGreaterThanOrEqual(share / 2 - 1);
    }
    expect(all.reduce((n, c) => n + c.length, 0)).toBeLessThanOrEqual(budget);
    // Compacted, the points are still the samples' times and values: the last stored point is near the end.
    const rss = b.set.processes.get("10:10")!.metrics.rss!;
    expect(rss.xs.at(-1)).toBeGreaterThan(2499 - 4);
    expect(rss.max()).toBe(2499 * 4096);
  });

  it("never under MIN_CAPACITY, however small the share", () => {
    const b = new SeriesBuilder(DEFAULT_CAPACITY, undefined, 400_000);
    const pids = Array.from({ length: 20 }, (_, i) => 10 + i);
    for (let t = 0; t < 1500; t++) {
      const agent = Object.fromEntries(pids.map((p) => [p, report(40, t)]));
      b.add({ t: t * 1000, processes: pids.map((p) => proc(p, t)), agent });
    }
    expect(400_000 / columns(b.set).length).toBeLessThan(MIN_CAPACITY);
    for (const c of columns(b.set)) {
      expect(c.length).toBeGreaterThanOrEqual(MIN_CAPACITY / 2 - 1);
      expect(c.length).toBeLessThan(MIN_CAPACITY);
    }
  });

  it("the default budget: 64 processes with agents of 21 numbers hold their columns to 2,000–3,500 points", () => {
    const b = new SeriesBuilder();
    const pids = Array.from({ length: 64 }, (_, i) => 10 + i);
    for (let t = 0; t < 3; t++) {
      const agent = Object.fromEntries(pids.map((p) => [p, report(21, t)]));
      b.add({ t: t * 1000, processes: pids.map((p) => proc(p, t)), agent });
    }
    const n = columns(b.set).length;
    expect(n).toBeGreaterThan(64 * 22);
    expect(Math.floor(POINTS_BUDGET / n)).toBeGreaterThan(2000);
    expect(Math.floor(POINTS_BUDGET / n)).toBeLessThan(3500);
  });

  it("when short-lived processes are dropped, the columns left grow into the full capacity again", () => {
    const b = new SeriesBuilder();
    const brief = Array.from({ length: 150 }, (_, i) => 10 + i);
    let t = 0;
    // 150 processes of 40 columns each live 2 s (too short to judge) beside the root
    for (; t < 2; t++) {
      const agent = Object.fromEntries(brief.map((p) => [p, report(40, t)]));
      // each with a GPU's memory too (the driver's count per process): its columns go with it
      const processes = [proc(1, t), ...brief.map((p) => ({ ...proc(p, t), gpu: { "0": t * MB } }))];
      b.add({ t: t * 1000, processes, agent });
    }
    for (; t < KEEP_EXITED_SECONDS + 10; t++) b.add({ t: t * 1000, processes: [proc(1, t)] });
    expect(b.set.processes.size).toBe(1);
    // What is left: the root's columns and the tree's; the dropped processes' columns are no longer counted.
    expect(b.columnCount).toBe(allColumns(b.set).length);
    for (; t < 5000; t++) b.add({ t: t * 1000, processes: [proc(1, t)] });
    expect(b.set.processes.get("1:1")!.metrics.rss!.length).toBe(5000);
    // The full capacity, and no more: at DEFAULT_CAPACITY points the column compacts as before.
    for (; t < DEFAULT_CAPACITY + 10; t++) b.add({ t: t * 1000, processes: [proc(1, t)] });
    const rss = b.set.processes.get("1:1")!.metrics.rss!;
    expect(rss.length).toBeLessThan(DEFAULT_CAPACITY);
    expect(rss.length).toBeGreaterThanOrEqual(DEFAULT_CAPACITY / 2);
  });
});

describe("a long watch of a big tree, compacted to its share", () => {
  // 12 processes for 2 hours at 0.5 Hz (3,600 samples), each with an agent's report of 12 numbers, under a budget that
  // holds each column to MIN_CAPACITY (1,000 points: 64 agents' processes keep ~3,000 under the default budget, so this
  // is the harder case); the same samples built with every point kept are the reference.
  const workers = (leaking: boolean): SynthScenario => ({
    seconds: 2 * 3600,
    hz: 0.5,
    processes: Array.from({ length: 12 }, (_, i) => ({
      pid: 100 + i,
      ppid: i === 0 ? 1 : 100,
      anon:
        leaking && i === 7
          ? { shape: { kind: "linear", bytesPerSecond: 4 * 1024 }, noise: 1 * MB, baseline: 80 * MB }
          : { shape: { kind: "stable" }, noise: 1 * MB, baseline: 80 * MB },
      agent: (t: number) => report(12, Math.floor(t / 600)),
    })),
  });
  const judge = (sc: SynthScenario, budget: number) => {
    const b = new SeriesBuilder(DEFAULT_CAPACITY, undefined, budget);
    for (const s of synthesize(sc)) b.add(s);
    const set = b.set;
    return { set, doc: classify({ set, options: {}, cgroup: { path: "/t", version: 1 }, target: { pid: 100 } }) };
  };

  it.each([
    ["a worker leaking 4 KiB/s (28 MiB in 2 h)", true],
    ["a steady tree", false],
  ])("%s: the same verdict and subject as the series with every point", (_, leaking) => {
    const held = judge(workers(leaking), 100_000);
    expect(held.set.processes.get("107:1070")!.metrics.anon!.length).toBeLessThan(MIN_CAPACITY);
    const full = judge(workers(leaking), Number.MAX_SAFE_INTEGER);
    expect(full.set.processes.get("107:1070")!.metrics.anon!.length).toBe(3600);
    expect(held.doc.verdict.kind).toBe(full.doc.verdict.kind);
    expect(held.doc.verdict.pid).toBe(full.doc.verdict.pid);
    expect(held.doc.verdict.kind).toBe(leaking ? "leak" : "stable");
    if (leaking) expect(held.doc.verdict.pid).toBe(107);
  });
});
