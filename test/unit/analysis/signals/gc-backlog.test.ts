/**
 * Garbage cycles waiting for a full collection (signals/gc-backlog.ts): growth that the trend rules call a leak is
 * undecided while collections of the older generations take memory back and no full collection has run, and stable
 * once a full collection brought memory back down; a leak stays a leak when the backlog rule cannot apply (objects
 * freed while memory does not fall, start-up's or imports' collections, a full collection overdue, a wait over 15
 * minutes, memory kept across it, no gc numbers).
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../../../src/report/verdict.js";
import { buildSeries } from "../../../../src/series/series.js";
import { gcBacklog, judgeBacklog } from "../../../../src/analysis/signals/gc-backlog.js";
import { synthesize, type SynthScenario } from "../../../helpers/synthetic-samples.js";
import { alone, judge, linear, MB, processFinding, subjectFinding } from "./judge.js";
import type { Series } from "./judge.js";
import { gcNumbers, type Gc } from "./gc-numbers.js";

/** 30 KiB/s on 20 MiB for 300 s: +8.8 MiB, a leak by the trend rules, with no fall for a collection to explain. */
const creep: Series = linear(20 * MB, 30 * 1024, 0.3 * MB);

/**
 * gc_sawtooth's shape between full collections: 4 MiB teeth that fall every 60 s (generation-1 runs) on lows that
 * rise 12 KiB/s (what waits in generation 2): a leak by the trend rules.
 */
const backlog: Series = {
  shape: { kind: "sawtooth", period: 60, amplitude: 4 * MB, bytesPerSecond: 12 * 1024 },
  baseline: 20 * MB,
  noise: 0.2 * MB,
};

/**
 * Rises 8 MiB over 290 s and falls back at 290 s, 10 s before the end: what a full collection does to a backlog
 * (the last tenth's median is still high, so the trend rules call it growth).
 */
const ratchet = (keptBytes = 0): Series => ({
  shape: { kind: "sawtooth", period: 290, amplitude: 8 * MB, bytesPerSecond: keptBytes / 290 },
  baseline: 20 * MB,
  noise: 0.2 * MB,
});

const judged = (anon: Series, gc?: Gc, seconds = 300) =>
  judge(alone({ anon, ...(gc && { agent: gcNumbers(gc) }) }, seconds), { warmup: 0 });
const kindOf = (anon: Series, gc?: Gc, seconds?: number) => processFinding(judged(anon, gc, seconds), 100);

describe("gc backlog", () => {
  it("growth that generation-1 runs keep taking back is undecided until the full collection; without gc numbers, a leak", () => {
    expect(kindOf(backlog).kind).toBe("leak");
    const waiting = kindOf(backlog, { gen1Every: 60 });
    expect(waiting.kind).toBe("insufficient-data");
    expect(waiting.evidence.gcBacklog).toBe("waiting");
    // 4 generation-1 runs since the last full collection at 299 s; one comes due after the 11th
    expect(waiting.summary).toMatch(
      /not enough data \(garbage cycles may be waiting for a full collection: \+.*4 times as memory fell.*comes due after 7 more generation-1 runs/,
    );
  });

  it("collections that free objects while memory does not fall are no backlog: a leak (dict_cache_leak's exit)", () => {
    expect(kindOf(creep, { gen1Every: 60 }).kind).toBe("leak");
    // A release is a fall of half the 2 MiB floor: teeth of 0.5 MiB fall by less (with ±0.2 MiB of noise on each reading), of 1.3 MiB by more
    const teeth = (amplitude: number): Series => ({
      ...backlog,
      shape: { kind: "sawtooth", period: 60, amplitude, bytesPerSecond: 12 * 1024 },
    });
    expect(kindOf(teeth(0.5 * MB)).kind).toBe("leak");
    expect(kindOf(teeth(0.5 * MB), { gen1Every: 60 }).kind).toBe("leak");
    expect(kindOf(teeth(1.3 * MB), { gen1Every: 60 }).kind).toBe("insufficient-data");
  });

  it("collections during start-up or while the program imports are theirs, however long the imports take", () => {
    // The fall at 60 s is a release from 50 s on, not from 70 s on (what the start-up's end sets).
    const ps = [
      ...buildSeries(synthesize(alone({ anon: backlog, agent: gcNumbers({ gen1Every: 60 }) }))).processes.values(),
    ][0]!;
    const releasesFrom = (freedFrom: number) =>
      gcBacklog(ps, ps.metrics.anon!, 0, 299, freedFrom, 1 * MB)!.releases.length;
    expect(releasesFrom(50)).toBe(4);
    expect(releasesFrom(70)).toBe(3);
    expect(kindOf(backlog, { gen1Every: 60, freesUntil: 125, importsUntil: 125 }).kind).toBe("leak");
    expect(kindOf(backlog, { gen1Every: 60, freesUntil: 125, importsUntil: 100 }).kind).toBe("insufficient-data");
  });

  it("a full collection overdue (held back by the quarter rule), or a wait over 15 minutes, is not waited for", () => {
    // 4 generation-1 runs since the last full collection at the end; threshold 10: due after 11, overdue from 12
    expect(kindOf(backlog, { gen1Every: 60, extraPending: 7 }).kind).toBe("insufficient-data");
    expect(kindOf(backlog, { gen1Every: 60, extraPending: 8 }).kind).toBe("leak");
    expect(kindOf(backlog, { gen1Every: 60, threshold: 2 }).kind).toBe("leak");
    // the window starts at 3 s (assess.ts afterStartup): 897 s long at 900 s, 903 s long at 906 s
    expect(kindOf(backlog, { gen1Every: 60, threshold: 100 }, 901).kind).toBe("insufficient-data");
    expect(kindOf(backlog, { gen1Every: 60, threshold: 100 }, 907).kind).toBe("leak");
  });

  it("a collector whose third threshold is no count (CPython 3.14's incremental one) is not waited for", () => {
    // its count stays 0: "due after 1 more run", forever
    expect(kindOf(backlog, { gen1Every: 60, threshold: 0, extraPending: -4 }).kind).toBe("leak");
  });

  it("gc numbers that stopped coming 20 s before the end say nothing about now", () => {
    expect(kindOf(backlog, { gen1Every: 60, reportsUntil: 285 }).kind).toBe("insufficient-data");
    expect(kindOf(backlog, { gen1Every: 60, reportsUntil: 275 }).kind).toBe("leak");
  });

  it("growth past what the releases could hold back is a leak whatever the collector does", () => {
    // 4 MiB teeth release ~4 MiB at each fall; 4× that is ~16 MiB: 12 KiB/s (3.5 MiB) stays under it, 80 KiB/s (23 MiB) does not
    const faster: Series = {
      ...backlog,
      shape: { kind: "sawtooth", period: 60, amplitude: 4 * MB, bytesPerSecond: 80 * 1024 },
    };
    expect(kindOf(faster, { gen1Every: 60 }).kind).toBe("leak");
  });

  it("memory that came back down at a full collection is stable; kept across it, a leak; just after it, still waiting", () => {
    expect(kindOf(ratchet()).kind).toBe("leak");
    // the rules called it growth 10 s after the fall (the last tenth's median still high); here judged 20 s after it
    const judgedAt = (kept: number, to: number) => {
      const ps = [
        ...buildSeries(
          synthesize(alone({ anon: ratchet(kept), agent: gcNumbers({ gen1Every: Infinity, fullAt: 290 }) }, 320)),
        ).processes.values(),
      ][0]!;
      return judgeBacklog(ps, ps.metrics.anon!, 3, to, 2 * MB, 16, 8 * MB);
    };
    expect(judgedAt(0, 310)).toMatchObject({ kind: "released", at: 290 });
    expect(judgedAt(3 * MB, 310)).toBeUndefined();
    expect(judgedAt(3 * MB, 295)?.kind).toBe("waiting");
    const released = kindOf(ratchet(), { gen1Every: Infinity, fullAt: 290 });
    expect(released.kind).toBe("insufficient-data");
    expect(released.evidence.gcBacklog).toBe("waiting");
    // 3 MiB kept across the full collection (over the 2 MiB floor): a leak under the backlog once its lows are seen
    expect(judgedAt(3 * MB, 310)).toBeUndefined();
  });

  it("a program calling gc.collect() every 5 s is judged on the full collections that can be, not waited on", () => {
    const leaking: Series = {
      ...backlog,
      shape: { kind: "sawtooth", period: 60, amplitude: 4 * MB, bytesPerSecond: 30 * 1024 },
    };
    expect(kindOf(leaking, { gen1Every: 60, fullAt: 60, fullEvery: 5 }).kind).toBe("leak");
  });

  it("a full collection early in the window (a gc.collect() after loading) does not clear the growth after it", () => {
    // teeth fall every 60 s, the full collection at 60 s brings the lows back, and they then rise 20 KiB/s: +5.5 MiB
    const after: Series = {
      ...backlog,
      shape: { kind: "sawtooth", period: 60, amplitude: 4 * MB, bytesPerSecond: 20 * 1024 },
    };
    expect(kindOf(after, { gen1Every: Infinity, fullAt: 60 }).kind).toBe("leak");
  });

  it("the tree's growth is the backlog's only when nothing else grows past the floor; never a shared cgroup's", () => {
    // a backlog process and workers leaking 1 MiB each over the window (each under its own 2 MiB floor)
    const tree = (workers: number): SynthScenario => ({
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: backlog, agent: gcNumbers({ gen1Every: 60 }) },
        ...Array.from({ length: workers }, (_, i) => ({
          pid: 200 + i,
          ppid: 100,
          anon: linear(30 * MB, (1 * MB) / 300, 0.05 * MB),
        })),
      ],
    });
    expect(subjectFinding(judge(tree(1), { warmup: 0 }), "tree").kind).toBe("insufficient-data");
    expect(subjectFinding(judge(tree(4), { warmup: 0 }), "tree").kind).toBe("leak");
    const shared = classify({
      set: buildSeries(synthesize(alone({ anon: backlog, agent: gcNumbers({ gen1Every: 60 }) }))),
      options: { warmup: 0 },
      cgroup: { path: "/rules", version: 1, others: [999] },
      target: { pid: 100 },
    });
    expect(subjectFinding(shared, "cgroup").kind).toBe("leak");
  });

  it("the cgroup's growth is the process's backlog: undecided, then stable — never a leak the process is not", () => {
    const cgroupOf = (anon: Series, gc?: Gc) => subjectFinding(judged(anon, gc), "cgroup");
    expect(cgroupOf(backlog).kind).toBe("leak");
    expect(cgroupOf(backlog, { gen1Every: 60 }).kind).toBe("insufficient-data");
    expect(cgroupOf(ratchet(), { gen1Every: Infinity, fullAt: 290 }).kind).toBe("insufficient-data");
    expect(cgroupOf(creep, { gen1Every: 60 }).kind).toBe("leak");
  });
});
