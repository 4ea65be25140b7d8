/**
 * assess.ts by its outputs: the numbers each shape reports (where its window starts, its levels, its rate), and the
 * small helpers the rules and the report read (levels, level changes, when growth stopped and by how much). The
 * boundaries between shapes are in rules/growth.test.ts; these pin what is reported once a shape is chosen.
 */
import { describe, expect, it } from "vitest";
import {
  assess,
  endLevel,
  levelChange,
  levelPoints,
  levels,
  rateOf,
  startupEnd,
  stoppedAt,
  stoppedGrowth,
  type Assessment,
} from "../../../src/analysis/assess.js";
import { Column } from "../../../src/series/column.js";
import { generate, MB, type Shape } from "../../helpers/synthetic.js";

function column(xs: readonly number[], ys: readonly number[]): Column {
  const col = new Column();
  xs.forEach((x, i) => col.push(x, ys[i]!));
  return col;
}

/** `seconds` at `hz` of `shape` on 100 MiB with `noise` bytes of Gaussian noise. */
function series(shape: Shape, seconds: number, { hz = 1, noise = 0.05 * MB, seed = 1 } = {}): Column {
  const { xs, ys } = generate({ seconds, hz, baseline: 100 * MB, noise, seed, shape });
  return column(xs, ys);
}

describe("helpers", () => {
  it("start-up ends 3 s after the first point, or 5% of the series when that is longer", () => {
    expect(startupEnd(10, 40)).toBe(13);
    expect(startupEnd(10, 210)).toBe(20);
  });

  it("a level is the median of a tenth of the points, 3 at least", () => {
    expect(levelPoints(29)).toBe(3);
    expect(levelPoints(40)).toBe(4);
    expect(levelPoints(49)).toBe(4);
    // 40 points: the first 4 are 1, 2, 3, 100 (median 2.5), the last 4 are 7, 8, 9, 10 (median 8.5)
    const ys = [1, 2, 3, 100, ...Array<number>(32).fill(5), 7, 8, 9, 10];
    expect(levels(ys)).toEqual({ start: 2.5, end: 8.5 });
  });

  it("the level a column ends at, and none for no column or an empty one", () => {
    expect(endLevel(undefined)).toBeUndefined();
    expect(endLevel(new Column())).toBeUndefined();
    expect(endLevel(column([0, 1, 2, 3, 4], [1, 2, 3, 4, 5]))).toBe(4);
  });

  it("a level change from a time: none with fewer than two points in all or after it", () => {
    expect(levelChange(undefined, 0)).toBeUndefined();
    expect(levelChange(column([0], [5]), 0)).toBeUndefined();
    const col = column([0, 1, 2, 3, 4, 5, 6, 7], [1, 1, 1, 1, 9, 9, 9, 9]);
    expect(levelChange(col, 7)).toBeUndefined();
    // From 4 s: 9, 9, 9, 9, no change; from 0: medians of 1, 1, 1 and 9, 9, 9
    expect(levelChange(col, 4)).toBe(0);
    expect(levelChange(col, 0)).toBe(8);
    // two points are enough, in all and after the time
    expect(levelChange(column([0, 1], [1, 3]), 0)).toBe(0);
    expect(levelChange(col, 6)).toBe(0);
  });

  it("a rate in bytes per second and in percent of the start level per hour (0 for no level)", () => {
    expect(rateOf(MB, 3600 * MB)).toEqual({ bytesPerSecond: MB, percentPerHour: 100 });
    expect(rateOf(MB, 0)).toEqual({ bytesPerSecond: MB, percentPerHour: 0 });
    expect(rateOf(MB, -MB)).toEqual({ bytesPerSecond: MB, percentPerHour: 0 });
  });

  const base: Assessment = {
    shape: "growing",
    samples: 100,
    from: 0,
    to: 99,
    start: 0,
    end: 10,
    peak: 10,
    growth: 10,
    rate: rateOf(0, 0),
    p: 1,
  };
  const plateau = {
    ok: true,
    state: "plateau",
    rise: 4,
    levelFrom: 30,
  } as unknown as NonNullable<Assessment["plateau"]>;
  const step = { ok: true, isStep: true, at: 40, jump: 7 } as unknown as NonNullable<Assessment["step"]>;

  it("when growth stopped: the plateau's level, the step's jump, nothing for other shapes", () => {
    expect(stoppedAt({ ...base, shape: "plateau", plateau, step })).toBe(30);
    expect(stoppedAt({ ...base, shape: "step", plateau, step })).toBe(40);
    expect(stoppedAt({ ...base, shape: "growing", plateau, step })).toBeUndefined();
    expect(stoppedAt({ ...base, shape: "flat", plateau, step })).toBeUndefined();
  });

  it("how much stopped growth grew: the larger of the plateau's rise and the growth, or the step's jump", () => {
    expect(stoppedGrowth({ ...base, shape: "plateau", plateau, step })).toBe(10);
    expect(stoppedGrowth({ ...base, shape: "plateau", plateau: { ...plateau, rise: 12 }, step })).toBe(12);
    expect(stoppedGrowth({ ...base, shape: "step", plateau, step })).toBe(7);
    expect(stoppedGrowth({ ...base, shape: "step", plateau })).toBe(10);
    expect(stoppedGrowth({ ...base, shape: "growing", plateau, step })).toBe(10);
    expect(stoppedGrowth({ ...base, shape: "plateau", step })).toBe(10);
  });
});

describe("too little data", () => {
  it("says which of the two minimums was missed, with the counts", () => {
    const fewSamples = assess(series({ kind: "stable" }, 15), 0);
    expect(fewSamples).toMatchObject({ shape: "insufficient", samples: 15, from: 0, to: 14, p: 1 });
    expect(fewSamples.reason).toBe("15 samples after warm-up (needs 20)");
    // 36 samples over 8.75 s at 4 Hz
    const fewSeconds = assess(series({ kind: "stable" }, 9, { hz: 4 }), 0);
    expect(fewSeconds.shape).toBe("insufficient");
    expect(fewSeconds.reason).toBe("9 s after warm-up (needs 10 s)");
    // 40 samples over 9.75 s: whole seconds would say "10 s … (needs 10 s)"
    const justShort = assess(series({ kind: "stable" }, 10, { hz: 4 }), 0);
    expect(justShort.shape).toBe("insufficient");
    expect(justShort.reason).toBe("9.8 s after warm-up (needs 10 s)");
  });

  it("growth the early test calls is growing, with its rate; not when the level change is under the floor", () => {
    const fast = assess(series({ kind: "linear", bytesPerSecond: 2 * MB }, 15), 0);
    expect(fast.shape).toBe("growing");
    expect(fast.early?.called).toBe(true);
    expect(fast.reason).toBeUndefined();
    expect(fast.p).toBe(fast.early!.p);
    expect(fast.rate.bytesPerSecond).toBe(fast.early!.slope);
    expect(fast.rate.bytesPerSecond / MB).toBeCloseTo(2, 1);
    // 0.1 MiB/s for 14 s: 1.4 MiB, significant on a quiet series and under the 2 MiB floor
    const slow = assess(series({ kind: "linear", bytesPerSecond: 0.1 * MB }, 15, { noise: 0.001 * MB }), 0);
    expect(slow.shape).toBe("insufficient");
    expect(slow.reason).toBe("15 samples after warm-up (needs 20)");
  });
});

describe("what each shape reports", () => {
  it("growing: the window's levels, the Theil–Sen rate and Mann–Kendall's p", () => {
    const a = assess(series({ kind: "linear", bytesPerSecond: 0.5 * MB }, 200), 0);
    expect(a.shape).toBe("growing");
    expect(a.trend).toBeDefined();
    expect(a.p).toBe(a.trend!.mannKendall.p);
    expect(a.rate.bytesPerSecond).toBe(a.trend!.theilSen.slope);
    expect(a.rate.percentPerHour).toBeCloseTo((a.rate.bytesPerSecond * 3600 * 100) / a.start, 6);
    expect(a.growth).toBe(a.end - a.start);
    expect(a.growth / MB).toBeGreaterThan(80);
    expect(a.envelope).toBeUndefined();
  });

  it("falling and flat", () => {
    expect(assess(series({ kind: "linear", bytesPerSecond: -0.2 * MB }, 200), 0).shape).toBe("falling");
    const flat = assess(series({ kind: "stable" }, 200), 0);
    expect(flat.shape).toBe("flat");
    expect(flat.rate.bytesPerSecond).toBe(flat.trend!.theilSen.slope);
  });

  it("a plateau is described over the whole series, warm-up included, at the plateau detector's rate", () => {
    // 60 MiB filled at 1 MiB/s from 0 to 60 s, then flat to 300 s; the analysed window starts at 100 s
    const col = series({ kind: "fill", bytesPerSecond: 1 * MB, until: 60 }, 300);
    const a = assess(col, 100, 0);
    expect(a.shape).toBe("plateau");
    expect(a.from).toBe(0);
    expect(a.samples).toBe(300);
    // The whole series' levels: the first tenth is still filling, the window's (from 100 s) would start at ~160 MiB
    expect(a.start).toBe(levels(col.ys).start);
    expect(a.start / MB).toBeLessThan(120);
    expect(a.end / MB).toBeCloseTo(160, 0);
    expect(a.growth).toBe(a.end - a.start);
    expect(a.rate.bytesPerSecond).toBe(a.plateau!.growthRate);
    expect(stoppedAt(a)).toBe(a.plateau!.levelFrom);
  });

  it("a step is described over the whole series, at its average rate", () => {
    // +50 MiB at 250 s of 300 s: late for a plateau (too little after it to call it levelled off), clear as a step
    const col = series({ kind: "step", at: 250, height: 50 * MB }, 300);
    const a = assess(col, 0);
    expect(a.shape).toBe("step");
    expect(a.from).toBe(0);
    expect(a.samples).toBe(300);
    expect(a.step!.at).toBeGreaterThan(245);
    expect(a.step!.at).toBeLessThan(255);
    expect(a.start).toBe(levels(col.ys).start);
    expect(a.rate.bytesPerSecond).toBeCloseTo((a.end - a.start) / 299, 3);
    expect(a.rate.percentPerHour).toBeCloseTo((a.rate.bytesPerSecond * 3600 * 100) / a.start, 6);
    expect(stoppedGrowth(a) / MB).toBeCloseTo(50, 0);
  });

  it("growth in the lows only: the envelope's levels, rise, rate and p", () => {
    // A 30 MiB program holding 100 MiB of temporaries for 0.4 of every 2.5 s, over a 1.5 MiB/s leak, at 1 Hz for
    // 43 s: at some phases the block means miss the leak and only the lows see it (rules/swings.test.ts).
    const withEnvelope = [0, 0.6, 1.2, 1.9]
      .map((phase) => {
        const col = new Column();
        for (let t = 0; t < 43; t++) {
          const held = ((t + phase) % 2.5) / 2.5 < 0.4;
          col.push(t, 30 * MB + 1.5 * MB * t + (held ? 100 * MB : 0) + ((t * 7919) % 13) * 0.02 * MB);
        }
        return assess(col, 0);
      })
      .filter((a) => a.envelope !== undefined);
    expect(withEnvelope.length).toBeGreaterThan(0);
    for (const a of withEnvelope) {
      expect(a.shape).toBe("growing");
      expect(a.envelope!.increasing).toBe(true);
      expect(a.p).toBe(a.envelope!.mannKendall.p);
      expect(a.start).toBe(a.envelope!.start);
      expect(a.end).toBe(a.envelope!.end);
      expect(a.growth).toBe(a.envelope!.rise);
      expect(a.rate.bytesPerSecond).toBe(a.envelope!.theilSen.slope);
      expect(a.rate.percentPerHour).toBeCloseTo((a.rate.bytesPerSecond * 3600 * 100) / a.envelope!.start, 6);
    }
  });
});

describe("where the window starts", () => {
  it("a process seen from its birth is judged from 3 s after its first point", () => {
    // Nothing for 3 s then flat: with the first seconds cut, flat and starting at 3 s
    const xs = Array.from({ length: 60 }, (_, i) => i);
    const a = assess(
      column(
        xs,
        xs.map((t) => (t < 3 ? 0.3 * MB * (t + 1) : 50 * MB + (t % 2) * 0.01 * MB)),
      ),
      0,
    );
    expect(a.from).toBe(3);
    expect(a.samples).toBe(57);
    expect(a.shape).toBe("flat");
  });

  it("not when what is left after the cut is too short for the shape rules: then every sample counts", () => {
    const xs = Array.from({ length: 22 }, (_, i) => i);
    const a = assess(
      column(
        xs,
        xs.map(() => 50 * MB),
      ),
      0,
    );
    expect(a.from).toBe(0);
    expect(a.samples).toBe(22);
  });

  it("a later start than 3 s is kept", () => {
    const a = assess(series({ kind: "stable" }, 100), 10);
    expect(a.from).toBe(10);
    expect(a.samples).toBe(90);
  });
});

describe("a series that does not start at 0 s", () => {
  // 300 s from 100 s: every time is offset, so a length computed as a sum of times instead of a difference shows
  const offset = (shape: Shape, seconds = 300, hz = 1, noise = 0.05 * MB) => {
    const { xs, ys } = generate({ seconds, hz, baseline: 100 * MB, noise, seed: 1, shape });
    return column(
      xs.map((x) => x + 100),
      ys,
    );
  };

  it("too little data: the seconds it had, not its end time", () => {
    // 25 samples over 6 s, then 20 samples over 4.75 s
    expect(assess(offset({ kind: "stable" }, 6.25, 4), 100).reason).toBe("6 s after warm-up (needs 10 s)");
    expect(assess(offset({ kind: "stable" }, 5, 4), 100).reason).toBe("5 s after warm-up (needs 10 s)");
  });

  it("a step: the whole series' start and its average rate over its own length", () => {
    const col = offset({ kind: "step", at: 250, height: 50 * MB });
    const a = assess(col, 100);
    expect(a.shape).toBe("step");
    // the window starts 3 s in (start-up), the description at the series' first point
    expect(a.from).toBe(100);
    expect(a.rate.bytesPerSecond).toBeCloseTo((a.end - a.start) / 299, 3);
  });
});

describe("the early test's growth, over the floor by the level change and by the rate", () => {
  // 15 s: +4 MiB over the first 2 s (a load), then 0.01 MiB/s: the levels change by ~2.1 MiB (over the 2 MiB floor),
  // the rate over the window by 0.14 MiB (under it)
  const loadThenCreep = (at: number) =>
    column(
      Array.from({ length: 15 }, (_, i) => at + i),
      Array.from({ length: 15 }, (_, t) => 100 * MB + (t < 2 ? t * 2 * MB : 4 * MB + 0.01 * MB * t)),
    );

  it("the end of a load and a slow creep after it are not growth, wherever the series starts", () => {
    for (const at of [0, 100]) {
      const a = assess(loadThenCreep(at), at);
      expect(a.growth / MB).toBeGreaterThan(2);
      expect(a.shape).toBe("insufficient");
      expect(a.early).toBeUndefined();
    }
  });
});

describe("the peak", () => {
  it("over the whole column when the window starts at its first point: the exact one kept beside the averages", () => {
    // 2,000 s in a 200-point column: the stored points average 16 s each, the first at 7.5 s
    const col = new Column(200);
    for (let t = 0; t < 2000; t++) col.push(t, 100 * MB + (t === 700 ? 100 * MB : 0));
    expect(assess(col, col.xs[0]!).peak).toBe(200 * MB);
    expect(assess(col, col.xs[0]! + 1).peak).toBeLessThan(110 * MB);
  });

  it("of nothing is −∞", () => expect(assess(new Column(), 0).peak).toBe(-Infinity));
});
