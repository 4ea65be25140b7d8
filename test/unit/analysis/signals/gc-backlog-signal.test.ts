/**
 * signals/gc-backlog.ts on a process built by hand, one reading a second and no noise, pinned by exact values: which
 * collections count as releases and by how much memory fell at each (the lower of the two readings before the
 * collection can have run, against the lowest up to 2 s after the reading that saw it), what is left out (start-up,
 * imports, stale numbers), and when growth is waited for, cleared by a full collection, or left to the rules.
 * Through the whole engine: rules/gc-backlog.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Assessment } from "../../../../src/analysis/assess.js";
import { Column } from "../../../../src/series/column.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import { backlogOf, gcBacklog, judgeBacklog, withGcBacklog } from "../../../../src/analysis/signals/gc-backlog.js";

const MB = 2 ** 20;
const col = (seconds: number, y: (t: number) => number) => {
  const c = new Column();
  for (let t = 0; t <= seconds; t++) c.push(t, y(t));
  return c;
};

/**
 * Teeth that climb 0.5 MiB/s and fall at each generation-1 run (20 s, 40 s) onto lows 1 MiB higher each time; a full
 * collection at `full` s (if any) brings memory back to `fullLevel` (100 MiB), from where it climbs at `after` MiB/s.
 */
function memory(t: number, full = Infinity, after = 0, fullLevel = 100, dropAt = Infinity) {
  if (t >= full) return (fullLevel + after * (t - full) - (t >= dropAt ? 3 : 0)) * MB;
  const tooth = Math.floor(t / 20);
  return (100 + tooth + 0.5 * (t - 20 * tooth)) * MB;
}

interface Gc {
  seconds?: number;
  full?: number;
  after?: number;
  fullLevel?: number;
  /** After the full collection, memory falls by 3 MiB at this time. */
  dropAt?: number;
  /** Generation-1 runs added to the count (a full collection held back). */
  extraPending?: number;
  threshold?: number;
  /** The count's readings stop after this time. */
  countUntil?: number;
  /** Times at which the module count rises. */
  imports?: number[];
  /** Columns left out. */
  without?: string[];
  /** Generation-1 runs, by the time of the reading that saw each. */
  gen1?: number[];
}

function proc(g: Gc = {}): ProcessSeries {
  const seconds = g.seconds ?? 60;
  const gen1 = g.gen1 ?? [20, 40];
  const full = g.full ?? Infinity;
  const runs = (t: number) => gen1.filter((r) => r <= t).length;
  const count = new Column();
  for (let t = 0; t <= Math.min(seconds, g.countUntil ?? Infinity); t++)
    count.push(t, gen1.filter((r) => r <= t && r > (t >= full ? full : -1)).length + (g.extraPending ?? 0));
  const agent: Record<string, Column> = {
    "py.gcCount2": count,
    "py.gcThreshold2": col(seconds, () => g.threshold ?? 10),
    "py.gcCollected1": col(seconds, (t) => 40 * runs(t)),
    "py.gcCollected2": col(seconds, (t) => (t >= full ? 400 : 0)),
    "py.gcRuns2": col(seconds, (t) => (t >= full ? 1 : 0)),
    "py.modules": col(seconds, (t) => 100 + (g.imports ?? []).filter((i) => i <= t).length),
  };
  for (const k of g.without ?? []) delete agent[k];
  const anon = col(seconds, (t) => memory(t, full, g.after, g.fullLevel, g.dropAt));
  return { firstSeen: 0, lastSeen: seconds, agent, metrics: { anon } } as unknown as ProcessSeries;
}

const backlog = (g: Gc = {}, from = 0, freedFrom = 3, release = MB) => {
  const ps = proc(g);
  return gcBacklog(ps, ps.metrics.anon!, from, g.seconds ?? 60, freedFrom, release);
};

describe("gcBacklog: the collections that released memory", () => {
  it("each generation-1 run where memory fell: from the lower of 16 and 17 s (108 MiB) to 101 MiB at 20 s", () => {
    expect(backlog()).toEqual({
      releases: [20, 40],
      largestRelease: 7 * MB,
      olderFreed: 80,
      fullCollections: [],
      pending: 2,
      threshold: 10,
    });
  });

  it("a fall of exactly `release` counts; one byte more does not", () => {
    expect(backlog({}, 0, 3, 7 * MB)?.releases).toEqual([20, 40]);
    expect(backlog({}, 0, 3, 7 * MB + 1)).toMatchObject({ releases: [], largestRelease: 0, olderFreed: 80 });
  });

  it("collections before the window or the start-up's end are not counted, at the reading itself included", () => {
    expect(backlog({}, 20)).toMatchObject({ releases: [20, 40], olderFreed: 80 });
    expect(backlog({}, 21)).toMatchObject({ releases: [40], olderFreed: 40 });
    expect(backlog({}, 0, 21)).toMatchObject({ releases: [40], olderFreed: 40 });
    expect(backlog({}, 0, 41)).toMatchObject({ releases: [], olderFreed: 0 });
  });

  it("nor those at a reading where modules were loaded, or at the one before it", () => {
    expect(backlog({ imports: [20] })?.releases).toEqual([40]);
    expect(backlog({ imports: [19] })?.releases).toEqual([40]);
    expect(backlog({ imports: [18, 21] })?.releases).toEqual([20, 40]);
    expect(backlog({ imports: [40] })?.releases).toEqual([20]);
    expect(backlog({ without: ["py.modules"] })?.releases).toEqual([20, 40]);
  });

  it("a full collection: counted, with what generation 2 freed", () => {
    // at 50 s: from the lower of 46 and 48 s (105 MiB) to 100 MiB
    expect(backlog({ full: 50 })).toEqual({
      releases: [20, 40, 50],
      largestRelease: 7 * MB,
      olderFreed: 480,
      fullCollections: [50],
      pending: 0,
      threshold: 10,
    });
    expect(backlog({ full: 50, imports: [50] })?.fullCollections).toEqual([]);
  });

  it("nothing without the numbers, with a threshold that is no count, or a count older than 20 s", () => {
    for (const k of ["py.gcCount2", "py.gcThreshold2", "py.gcCollected1", "py.gcCollected2", "py.gcRuns2"])
      expect(backlog({ without: [k] }), k).toBeUndefined();
    expect(backlog({ threshold: 0 })).toBeUndefined();
    expect(backlog({ countUntil: 40 })).toBeDefined();
    expect(backlog({ countUntil: 39 })).toBeUndefined();
  });
});

describe("judgeBacklog", () => {
  const judge = (g: Gc = {}, growth = 4 * MB, from = 0, floor = 2 * MB) => {
    const ps = proc(g);
    return judgeBacklog(ps, ps.metrics.anon!, from, g.seconds ?? 60, floor, 3, growth);
  };

  it("no full collection yet: waiting, with how many generation-1 runs until one comes due", () => {
    expect(judge()).toEqual({ kind: "waiting", backlog: backlog(), dueIn: 9 });
    // due after threshold + 1 runs: 11 pending is due now, 12 is overdue (the quarter rule holds it back)
    expect(judge({ extraPending: 9 })).toMatchObject({ kind: "waiting", dueIn: 0 });
    expect(judge({ extraPending: 10 })).toBeUndefined();
  });

  it("growth up to 4 releases' worth, and only with a release", () => {
    expect(judge({}, 28 * MB)?.kind).toBe("waiting");
    expect(judge({}, 28 * MB + 1)).toBeUndefined();
    expect(judge({ gen1: [] })).toBeUndefined();
    expect(judge({ without: ["py.gcRuns2"] })).toBeUndefined();
  });

  it("a wait of 900 s at most", () => {
    const ps = proc({ seconds: 60 });
    const at = (from: number) => judgeBacklog(ps, ps.metrics.anon!, from, 60, 2 * MB, 3, 4 * MB);
    expect(at(-840)?.kind).toBe("waiting");
    expect(at(-841)).toBeUndefined();
  });

  it("a full collection that brought memory back: released, with the lows before and after it", () => {
    // lows before it: 101 MiB (20 s, after the start-up's 3 s); after it: 100 MiB, and still there at the end
    expect(judge({ full: 50 })).toEqual({
      kind: "released",
      backlog: backlog({ full: 50 }),
      at: 50,
      lowBefore: 101 * MB,
      lowAfter: 100 * MB,
    });
  });

  it("judged only 10 s after it: until then, waiting on the releases before it", () => {
    expect(judge({ full: 50, seconds: 59 })).toMatchObject({ kind: "waiting" });
    expect(judge({ full: 50, seconds: 60 })).toMatchObject({ kind: "released" });
  });

  it("memory that rose again after it by the floor: waiting if a collection released some since, else the rules'", () => {
    // 0.1 MiB/s from 50 s: lows at the end (60–80 s) 101 MiB, 1 MiB over the 100 MiB after it → released
    expect(judge({ full: 50, after: 0.1, seconds: 80 })?.kind).toBe("released");
    // 0.2 MiB/s: 102 MiB, the floor → not released; no release after 50 s
    expect(judge({ full: 50, after: 0.2, seconds: 80 })).toBeUndefined();
    // … with a generation-1 run at 70 s (memory does not fall there: no release) → still the rules'
    expect(judge({ full: 50, after: 0.2, seconds: 80, gen1: [20, 40, 70] })).toBeUndefined();
    // 0.3 MiB/s, and a generation-1 run at 70 s where memory falls 3 MiB (from 104.8 to 103 MiB): waiting again
    expect(judge({ full: 50, after: 0.3, seconds: 80, gen1: [20, 40, 70], dropAt: 70 })).toMatchObject({
      kind: "waiting",
      dueIn: 10,
      // generation 1's collections first, then generation 2's
      backlog: { releases: [20, 40, 70, 50] },
    });
  });

  it("memory kept across the full collection, its lows after it the floor or more above those before: the rules'", () => {
    // lows before it: 101 MiB (20 s); after it 102.5 MiB (1.5 MiB kept) or 103 MiB (2 MiB, the floor)
    expect(judge({ full: 50, fullLevel: 102.5 })).toMatchObject({ kind: "released", lowAfter: 102.5 * MB });
    expect(judge({ full: 50, fullLevel: 103 })).toBeUndefined();
    // the lows before are read from the window's start, not before it: from 21 s they are 101.5 MiB
    expect(judge({ full: 50, fullLevel: 103 }, 4 * MB, 21)).toMatchObject({ kind: "released", lowBefore: 101.5 * MB });
  });
});

describe("withGcBacklog and backlogOf", () => {
  const assessment = (o: Partial<Assessment>) =>
    ({ shape: "growing", from: 0, to: 60, start: 100 * MB, growth: 4 * MB, ...o }) as Assessment;

  it("waiting: insufficient, with what the collector freed and when the next full collection is due", () => {
    const ps = proc();
    const r = withGcBacklog(assessment({}), ps, ps.metrics.anon!);
    expect(r.a.shape).toBe("insufficient");
    expect(r.judgement?.kind).toBe("waiting");
    expect(r.waiting).toEqual({ olderFreed: 80, releases: 2, largestRelease: 7 * MB, growth: 4 * MB, dueIn: 9 });
    expect(r.note).toBeUndefined();
  });

  it("released: flat, with a note of what rose and when it came back", () => {
    const ps = proc({ full: 50 });
    const r = withGcBacklog(assessment({}), ps, ps.metrics.anon!);
    expect(r.a).toEqual(assessment({ shape: "flat" }));
    expect(r.note).toEqual({
      say: "gc.released",
      facts: {
        olderFreed: 480,
        releases: 3,
        largestRelease: 7 * MB,
        growth: 4 * MB,
        at: 50,
        lowBefore: 101 * MB,
        lowAfter: 100 * MB,
      },
    });
    expect(r.waiting).toBeUndefined();
  });

  it("anything but growth, or growth the backlog cannot hold, is returned as it is", () => {
    const ps = proc();
    const plateau = assessment({ shape: "plateau" });
    expect(withGcBacklog(plateau, ps, ps.metrics.anon!)).toEqual({ a: plateau });
    expect(withGcBacklog(plateau, ps, ps.metrics.anon!).a).toBe(plateau);
    const big = assessment({ growth: 40 * MB });
    expect(withGcBacklog(big, ps, ps.metrics.anon!)).toEqual({ a: big });
    // the floor is 2% of the level: at 1,000 MiB it is 20 MiB, and a 7 MiB fall is no release (half of it: 10 MiB)
    expect(withGcBacklog(assessment({ start: 1000 * MB }), ps, ps.metrics.anon!).judgement).toBeUndefined();
  });

  it("backlogOf: the process's own judgement on its anon, and how much that changed", () => {
    const ps = proc();
    // levels of the first and last 6 readings (of 61): 101.25 MiB at the start, 110.25 at the end (the last reading
    // is a fourth tooth's 103 MiB); the floor is 2% of 110.25 MiB, and half of it is still under each 7 MiB fall
    expect(backlogOf(ps, 0)).toEqual({ judgement: { kind: "waiting", backlog: backlog(), dueIn: 9 }, growth: 9 * MB });
    // from 30 s: 31 readings, levels of 3: 106.5 → 111 MiB
    expect(backlogOf(ps, 30)?.growth).toBe(4.5 * MB);
    expect(backlogOf({ ...ps, metrics: { rss: ps.metrics.anon } } as ProcessSeries, 0)?.growth).toBe(9 * MB);
    expect(backlogOf({ ...ps, metrics: {} } as ProcessSeries, 0)).toBeUndefined();
    expect(backlogOf({ ...ps, metrics: { anon: col(0, () => MB) } } as ProcessSeries, 0)).toBeUndefined();
    // growth past 4 releases' worth: no judgement
    const steep = { ...ps, metrics: { anon: col(60, (t) => memory(t) + t * MB) } } as ProcessSeries;
    expect(backlogOf(steep, 0)).toBeUndefined();
  });
});
