/**
 * Boundaries of the early test (stats/sequential.ts): a leak called on a window too short for the shape rules.
 *   ≥ 8 samples over ≥ 5 s; Mann–Kendall of the block means at p ≤ 1% / looks (looks = max(20, 10 s / interval));
 *   the last third's slope ≥ half the window's; the growth floor as everywhere. Otherwise insufficient-data.
 * And the claim it is built on: over every look of its phase, white noise is called growing in at most 1% of series.
 */
import { describe, expect, it } from "vitest";
import { assess } from "../../../../src/analysis/assess.js";
import { Column } from "../../../../src/series/column.js";
import { earlyGrowth } from "../../../../src/analysis/stats/sequential.js";
import { generate } from "../../../helpers/synthetic.js";
import { mulberry32 } from "../../../../src/analysis/stats/random.js";
import { alone, fill, flat, judge, linear, MB, processFinding, type Row } from "./judge.js";

const kindOf = (...[sc, options]: Parameters<typeof judge>) => processFinding(judge(sc, options), 100).kind;
const leak = linear(100 * MB, 1 * MB, 0.05 * MB);

describe("a leak called before the shape rules have their 20 samples over 10 s", () => {
  const ROWS: Row[] = [
    // 1 MiB/s, quiet, at 1 Hz: 8 ordered points cannot reach 5e-4 (p = 8.4e-4), 9 can (2.6e-4)
    ["8 samples over 7 s", "insufficient-data", alone({ anon: leak }, 8)],
    ["10 samples over 9 s", "leak", alone({ anon: leak }, 10)],
    ["19 samples over 18 s", "leak", alone({ anon: leak }, 19)],
    // at 4 Hz, 18 samples cover 4.25 s: under the 5 s the test needs; 24 over 5.75 s are enough
    ["18 samples over 4.25 s (4 Hz)", "insufficient-data", { ...alone({ anon: leak }, 4.5), hz: 4 }],
    ["24 samples over 5.75 s (4 Hz)", "leak", { ...alone({ anon: leak }, 6), hz: 4 }],
    // the growth floor: 1.5 MiB over 15 s is under 2 MiB, 3 MiB is over
    ["+1.5 MiB in 15 s, quiet", "insufficient-data", alone({ anon: linear(100 * MB, 0.1 * MB, 0.005 * MB) }, 16)],
    ["+3 MiB in 15 s, quiet", "leak", alone({ anon: linear(100 * MB, 0.2 * MB, 0.005 * MB) }, 16)],
    // a load that finished: 30 MB over 6 s, then flat for 9 s — the last third does not rise
    ["a load over 6 s, flat for 9 s", "insufficient-data", alone({ anon: fill(100 * MB, 30 * MB, 6) }, 16)],
    // a load still going on is a leak as far as 9 s can tell (the caveat says so)
    ["a load still rising at 12 s", "leak", alone({ anon: fill(100 * MB, 60 * MB, 30) }, 12)],
    // flat with noise, and a GC sawtooth with teeth of 4 s: no call
    ["flat, ±2 MiB noise", "insufficient-data", alone({ anon: flat(100 * MB, 2 * MB) }, 19)],
    [
      "sawtooth, 20 MiB teeth of 4 s",
      "insufficient-data",
      alone(
        { anon: { shape: { kind: "sawtooth", period: 4, amplitude: 20 * MB }, baseline: 100 * MB, noise: 0.2 * MB } },
        19,
      ),
    ],
  ];
  it.each(ROWS)("%s → %s", (_name, kind, sc) => expect(kindOf(sc, { warmup: 0 })).toBe(kind));

  it("says it was called early, and is at most 0.75 sure", () => {
    const f = processFinding(judge(alone({ anon: leak }, 12), { warmup: 0 }), 100);
    expect(f.kind).toBe("leak");
    expect(f.evidence.calledEarly).toBe("sequential");
    expect(f.confidence).toBeLessThanOrEqual(0.75);
    expect(f.caveats.join("\n")).toMatch(/called early, on 11 s after warm-up .* a load that has not finished yet/);
  });

  it("once the shape rules have their data, they decide (no early caveat)", () => {
    const f = processFinding(judge(alone({ anon: leak }, 30), { warmup: 0 }), 100);
    expect(f.kind).toBe("leak");
    expect(f.evidence.calledEarly).toBeUndefined();
  });

  it("the tail of a load, then a creep of a few KiB/s, is no early leak: the rate must clear the floor too", () => {
    // one_off_load.py under `run` at 1 s, its anon (MiB) from 6 s (the warm-up) to 24 s: the load's last 4 s, then
    // 409.20 → 409.29. The level rose 64 MiB, monotonically; the rate is 8 KiB/s, 136 KiB over the window.
    const mib = [
      257.02, 301.09, 345.14, 389.18, 409.2, 409.2, 409.23, 409.23, 409.23, 409.23, 409.23, 409.25, 409.26, 409.26,
      409.26, 409.27, 409.29, 409.29,
    ];
    const col = new Column();
    mib.forEach((m, i) => col.push(6 + i, m * MB));
    expect(assess(col, 6).shape).toBe("insufficient");
  });

  it("the last third's slope must be at least half the window's", () => {
    // 12 points at 1 Hz: slope 1 MB/s for the first 8, then `tail` MB/s for the last 4 (the last third)
    const series = (tail: number) => {
      const xs = Array.from({ length: 12 }, (_, i) => i);
      const ys = xs.map((x) => 100 * MB + Math.min(x, 8) * MB + Math.max(0, x - 8) * tail * MB);
      return earlyGrowth(xs, ys, 20, 10);
    };
    const low = series(0.3);
    const high = series(0.8);
    expect(low.tailSlope / low.slope).toBeLessThan(0.5);
    expect(low.called).toBe(false);
    expect(high.tailSlope / high.slope).toBeGreaterThan(0.5);
    expect(high.called).toBe(true);
  });
});

describe("the early test's false-call rate, looked at after every sample", () => {
  it("memory that wanders (AR(1), φ = 0.95, 1 MiB steps) is called growing in at most 1% of 400 series", () => {
    let called = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = mulberry32(seed);
      const gauss = () => Array.from({ length: 12 }, r).reduce((a, b) => a + b, 0) - 6;
      const ys: number[] = [];
      let e = 0;
      for (let i = 0; i < 20; i++) ys.push(100 * MB + (e = 0.95 * e + MB * gauss()));
      let any = false;
      for (let n = 8; n <= 19 && !any; n++) {
        const col = new Column();
        for (let i = 0; i < n; i++) col.push(i, ys[i]!);
        any = assess(col, 0).shape === "growing";
      }
      if (any) called++;
    }
    expect(called / 400).toBeLessThanOrEqual(0.01);
  });

  it("white noise is called growing in at most 1% of 400 series, over all the looks of its early phase", () => {
    let called = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const g = generate({ seconds: 20, hz: 1, baseline: 100 * MB, shape: { kind: "stable" }, noise: 3 * MB, seed });
      let any = false;
      for (let n = 8; n <= 19 && !any; n++) {
        const col = new Column();
        for (let i = 0; i < n; i++) col.push(g.xs[i]!, g.ys[i]!);
        any = assess(col, 0).shape === "growing";
      }
      if (any) called++;
    }
    expect(called / 400).toBeLessThanOrEqual(0.01);
  });
});

describe("copy-on-write is a state: workers seen too briefly for a finding of their own still explain the tree", () => {
  // 10 s: a parent with 110 MiB, two forked workers whose USS climbs 5 → 65 MiB while their resident memory stays
  // flat (they read the parent's objects: every refcount write copies a page). The tree's Σ PSS-anon rises steadily.
  const job = {
    seconds: 10,
    processes: [
      { pid: 100, ppid: 1, anon: flat(110 * MB, 0.05 * MB), uss: flat(110 * MB, 0.05 * MB) },
      ...[101, 102].map((pid) => ({
        pid,
        ppid: 100,
        anon: flat(110 * MB, 0.05 * MB),
        uss: linear(5 * MB, 6 * MB, 0.05 * MB),
      })),
    ],
  };
  it("the tree's growth is cow, not a leak called early", () => {
    const doc = judge(job, { warmup: 0 });
    const tree = doc.findings.find((f) => f.subject.type === "tree")!;
    expect(tree.kind).toBe("cow");
    expect(doc.findings.filter((f) => f.kind === "leak")).toEqual([]);
  });
});
