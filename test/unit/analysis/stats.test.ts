import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_ALPHA,
  detectPlateau,
  detectStep,
  detectWarmup,
  erfc,
  mad,
  mannKendall,
  median,
  normalCdf,
  normalQuantile,
  quantile,
  theilSen,
  thin,
  trendTest,
  type Direction,
  type PlateauState,
} from "../../../src/analysis/stats/index.js";
import { quantileOfSorted } from "../../../src/analysis/stats/quantiles.js";
import { MIN_TREND_POINTS } from "../../../src/analysis/stats/mann-kendall.js";
import type { NotEnoughData } from "../../../src/analysis/stats/window.js";
import { runningAbsoluteDeviations } from "../../../src/analysis/stats/step.js";
import { generate, MB, SCENARIOS, type GenerateOptions, type Shape } from "../../helpers/synthetic.js";

const SEEDS = [1, 2, 3, 4, 5];

/** 10 minutes at 1 Hz on a 100 MB baseline with 5 MB Gaussian noise, as in SCENARIOS, with another shape. */
function series(shape: Shape): GenerateOptions {
  return { ...SCENARIOS.linearLeak, shape };
}

const leak = (mbPerSecond: number) => series({ kind: "linear", bytesPerSecond: mbPerSecond * MB });
const sawtooth = (period: number, extra: { jitter?: number; bytesPerSecond?: number } = {}) =>
  series({ kind: "sawtooth", period, amplitude: 200 * MB, ...extra });
const stepAt = (at: number) => series({ kind: "step", at, height: 200 * MB });
const afterWarmup = (options: GenerateOptions, tau: number) => ({ ...options, warmup: { level: 200 * MB, tau } });

describe("exact values", () => {
  // Pairwise slopes of (1,1) (2,3) (3,2) (4,5) (5,4), sorted: −1 −1 1/3 1/2 3/4 1 1 4/3 2 3.
  const xs = [1, 2, 3, 4, 5];
  const ys = [1, 3, 2, 5, 4];

  it("Theil–Sen of a hand-computed dataset: slope, intercept and Sen's interval", () => {
    const r = theilSen(xs, ys);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.slope).toBe(0.875); // (3/4 + 1) / 2
    expect(r.intercept).toBe(0.125); // median of 0.125, 1.25, −0.625, 1.5, −0.375
    // C = 1.96·√(50/3) = 8.0: ranks (10 − 8)/2 ≈ 1 and (10 + 8)/2 + 1 ≈ 10, the extreme slopes.
    expect(r.low).toBe(-1);
    expect(r.high).toBe(3);
    expect(r).toMatchObject({ n: 5, pairs: 10, sampled: false });
  });

  it("Mann–Kendall of the same dataset: S = 8 concordant − 2 discordant", () => {
    const r = mannKendall(xs, ys);
    if (!r.ok) throw new Error(r.reason);
    expect(r.s).toBe(6);
    expect(r.varS).toBeCloseTo(50 / 3, 12); // 5·4·15 / 18
    expect(r.z).toBeCloseTo(5 / Math.sqrt(50 / 3), 12);
    expect(r.p).toBeCloseTo(0.220671, 5);
    expect(r.tau).toBeCloseTo(0.6, 12);
  });

  it("Mann–Kendall with tied values: 1, 2, 2, 3, 3, 3", () => {
    const r = mannKendall([1, 2, 3, 4, 5, 6], [1, 2, 2, 3, 3, 3]);
    if (!r.ok) throw new Error(r.reason);
    // The 1 is below all 5 others, each 2 is below the three 3s: S = 5 + 3 + 3; ties add nothing.
    expect(r.s).toBe(11);
    // [6·5·17 − 2·1·9 − 3·2·11] / 18 = 426 / 18
    expect(r.varS).toBeCloseTo(426 / 18, 12);
    expect(r.z).toBeCloseTo(10 / Math.sqrt(426 / 18), 12);
    expect(r.tau).toBeCloseTo(11 / Math.sqrt(15 * 11), 12); // tau-b: 4 tied pairs in y
  });

  it("Mann–Kendall with tied times too (Kendall's variance with ties in both)", () => {
    const r = mannKendall([1, 1, 2, 2, 3], [1, 2, 2, 3, 3]);
    if (!r.ok) throw new Error(r.reason);
    expect(r.s).toBe(6);
    // (300 − 36 − 36)/18 + (4·4)/(2·5·4)
    expect(r.varS).toBeCloseTo(228 / 18 + 0.4, 12);
    expect(r.tau).toBeCloseTo(0.75, 12); // 6 / √(8·8)
  });

  it.each([
    [0, 0.5],
    [1.96, 0.9750021048517795],
    [-1.96, 0.0249978951482205],
    [1, 0.8413447460685429],
    [-3, 0.0013498980316301],
  ])("Φ(%d) = %d to 1e-7", (z, expected) => {
    expect(Math.abs(normalCdf(z) - expected)).toBeLessThan(1e-7);
  });

  it("erfc keeps its relative accuracy in the far tail, and Φ⁻¹ inverts Φ", () => {
    expect(erfc(5) / 1.5374597944280349e-12).toBeCloseTo(1, 6);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 8);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 12);
    expect(normalCdf(normalQuantile(0.001))).toBeCloseTo(0.001, 9);
  });

  it.each([
    ["median, odd", () => median([3, 1, 2]), 2],
    ["median, even", () => median([4, 1, 3, 2]), 2.5],
    ["median ignores NaN and ±Infinity", () => median([NaN, 3, Infinity, 1, -Infinity]), 2],
    ["quantile 0.25 interpolates (type 7)", () => quantile([1, 2, 3, 4], 0.25), 1.75],
    ["quantile clamps p", () => quantile([1, 2, 3], 7), 3],
    ["MAD is 1.4826 × median |x − median|", () => mad([1, 2, 3, 4, 100]), 1.4826],
    ["median of nothing", () => median([]), undefined],
    ["median of only NaN", () => median([NaN]), undefined],
    ["MAD of nothing", () => mad([]), undefined],
    ["quantile with p = NaN", () => quantile([1, 2], NaN), undefined],
  ])("%s", (_name, compute, expected) => {
    expect(compute()).toBe(expected);
  });
});

describe("not enough data is an answer, not an exception", () => {
  it.each([
    ["no samples", [], []],
    ["one sample", [1], [5]],
    ["two samples", [1, 2], [5, 6]],
    ["NaN everywhere", [NaN, NaN, NaN], [1, 2, 3]],
    ["all at the same time", [4, 4, 4, 4], [1, 2, 3, 4]],
    ["a y array shorter than xs", [1, 2, 3, 4], [1, 2]],
  ])("%s", (_name, xs: number[], ys: number[]) => {
    for (const f of [theilSen, mannKendall, trendTest, detectPlateau, detectWarmup, detectStep]) {
      const r = f(xs, ys);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).not.toBe("");
    }
  });

  it("the shape detectors need MIN_SHAPE_POINTS samples", () => {
    const { xs, ys } = generate({ ...leak(1), seconds: 19 });
    expect(detectPlateau(xs, ys)).toMatchObject({ ok: false, n: 19 });
    expect(trendTest(xs, ys).ok).toBe(true);
  });
});

/**
 * The decision table. Each row runs on SEEDS. "trend" is trendTest's direction at alpha = 0.01 (undefined: not
 * asserted — a fill or a step that then stays flat is a borderline monotonic trend on 12 block means, and the
 * shape detectors are what decide those); "plateau" is detectPlateau's state; "step" is detectStep's call.
 */
type Row = [name: string, options: GenerateOptions, trend: Direction | undefined, plateau: PlateauState, step: boolean];

const TABLE: Row[] = [
  ["leak 0.1 MB/s", leak(0.1), "increasing", "growing", false],
  ["leak 1 MB/s", leak(1), "increasing", "growing", false],
  ["leak 10 MB/s", leak(10), "increasing", "growing", false],
  ["slow leak under heavy noise (0.1 MB/s, σ = 20 MB)", SCENARIOS.slowLeakHeavyNoise, "increasing", "growing", false],
  [
    "leak 0.5 MB/s under a 200 MB GC sawtooth",
    sawtooth(60, { bytesPerSecond: 0.5 * MB }),
    "increasing",
    "growing",
    false,
  ],
  ["stable", series({ kind: "stable" }), "none", "flat", false],
  ["stable with ±100 MB jumps that come back", SCENARIOS.stableWithJumps, "none", "flat", false],
  ["GC sawtooth, 60 s teeth of 200 MB", SCENARIOS.sawtooth, "none", "flat", false],
  ["GC sawtooth, 45 s teeth ±30%", sawtooth(45, { jitter: 0.3 }), "none", "flat", false],
  ["GC sawtooth over a window that ends mid-tooth", { ...SCENARIOS.sawtooth, seconds: 630 }, "none", "flat", false],
  ["plateau after warm-up (τ = 60 s)", SCENARIOS.plateauAfterWarmup, "increasing", "plateau", false],
  ["bounded cache: 1 MB/s for 200 s, then full", SCENARIOS.boundedCache, undefined, "plateau", false],
  ["step of 200 MB at 200 s, then flat", SCENARIOS.stepThenFlat, undefined, "plateau", true],
  // Early in the window a step is warm-up (detectWarmup cuts it): the first third is mostly after it, so no rise.
  ["step of 200 MB at 60 s, then flat", stepAt(60), undefined, "flat", true],
];

const ROWS = TABLE.flatMap(([name, options, ...expected]) =>
  SEEDS.map((seed) => [name, seed, { ...options, seed }, ...expected] as const),
);

describe("decision table", () => {
  it.each(ROWS)("%s (seed %i)", (_name, _seed, options, trend, plateau, step) => {
    const { xs, ys } = generate(options);
    const t = trendTest(xs, ys);
    const p = detectPlateau(xs, ys);
    const s = detectStep(xs, ys);
    if (!t.ok || !p.ok || !s.ok) throw new Error("enough data was given");
    if (trend !== undefined) expect(t.direction).toBe(trend);
    expect(p.state).toBe(plateau);
    expect(p.plateaued).toBe(plateau === "plateau");
    expect(s.isStep).toBe(step);
  });

  it.each([0.1, 1, 10])("a %d MB/s leak: Theil–Sen within a tenth of the truth, Mann–Kendall p < 0.01", (rate) => {
    for (const seed of SEEDS) {
      const { xs, ys } = generate({ ...leak(rate), seed });
      const ts = theilSen(xs, ys);
      const mk = mannKendall(xs, ys);
      if (!ts.ok || !mk.ok) throw new Error("enough data was given");
      expect(Math.abs(ts.slope / (rate * MB) - 1)).toBeLessThan(0.1);
      expect(ts.low).toBeLessThanOrEqual(rate * MB * 1.1);
      expect(ts.high).toBeGreaterThanOrEqual(rate * MB * 0.9);
      expect(mk.p).toBeLessThan(DEFAULT_ALPHA);
    }
  });

  it("a sawtooth fools the raw Mann–Kendall test, which is why trendTest works on block means", () => {
    // Documents the reason for the design: a flat sawtooth whose window starts at a trough looks like a leak
    // sample by sample, and does not once whole teeth are averaged.
    const { xs, ys } = generate(SCENARIOS.sawtooth);
    const raw = mannKendall(xs, ys);
    const decided = trendTest(xs, ys);
    if (!raw.ok || !decided.ok) throw new Error("enough data was given");
    expect(raw.p).toBeLessThan(DEFAULT_ALPHA);
    expect(decided.direction).toBe("none");
  });

  it("minSlope turns a significant but negligible drift into no trend", () => {
    const { xs, ys } = generate(leak(0.1));
    expect(trendTest(xs, ys)).toMatchObject({ direction: "increasing" });
    expect(trendTest(xs, ys, { minSlope: 1 * MB })).toMatchObject({ direction: "none" });
  });

  it("a leak that frees memory is decreasing", () => {
    const { xs, ys } = generate(leak(-0.1));
    expect(trendTest(xs, ys)).toMatchObject({ direction: "decreasing" });
  });
});

describe("where things change", () => {
  // [shape, expected levelFrom range in seconds, series]
  it.each([
    ["bounded cache full at 200 s", 170, 215, SCENARIOS.boundedCache],
    ["step at 200 s", 190, 210, SCENARIOS.stepThenFlat],
    // Within 15 MB (3σ) of the level from 60·ln(300/15) = 180 s; the exponential has no sharp knee.
    ["exponential warm-up, τ = 60 s", 120, 300, SCENARIOS.plateauAfterWarmup],
  ])("plateau: %s levels off in [%i, %i] s", (_name, low, high, options) => {
    for (const seed of SEEDS) {
      const { xs, ys } = generate({ ...options, seed });
      const p = detectPlateau(xs, ys);
      if (!p.ok) throw new Error(p.reason);
      expect(p.levelFrom).toBeGreaterThanOrEqual(low);
      expect(p.levelFrom).toBeLessThanOrEqual(high);
    }
  });

  // [name, options, seconds to skip at least, at most, capped]
  it.each([
    ["no warm-up in a plain leak", SCENARIOS.linearLeak, 0, 0, false],
    ["no warm-up in a sawtooth", SCENARIOS.sawtooth, 0, 0, false],
    ["jumps that come back are not warm-up", SCENARIOS.stableWithJumps, 0, 12, false],
    // 200·e^(−t/10) falls under 3σ = 15 MB at t = 26 s.
    ["a leak after a 200 MB warm-up (τ = 10 s)", afterWarmup(SCENARIOS.linearLeak, 10), 15, 40, false],
    ["stable after a 200 MB warm-up (τ = 20 s)", afterWarmup(series({ kind: "stable" }), 20), 35, 70, false],
    ["a step at 60 s", stepAt(60), 54, 66, false],
    ["a plateau still filling at a quarter of the window is capped", SCENARIOS.boundedCache, 149, 150, true],
  ])("warm-up: %s", (_name, options, low, high, capped) => {
    for (const seed of SEEDS) {
      const { xs, ys } = generate({ ...options, seed });
      const w = detectWarmup(xs, ys);
      if (!w.ok) throw new Error(w.reason);
      expect(w.seconds).toBeGreaterThanOrEqual(low);
      expect(w.seconds).toBeLessThanOrEqual(high);
      expect(w.capped).toBe(capped);
      expect(w.until).toBe(xs[0]! + w.seconds);
    }
  });

  it("step: the split lands on the jump and measures it; a ramp's sides drift as much as it jumps", () => {
    const step = detectStep(...xy(SCENARIOS.stepThenFlat));
    const ramp = detectStep(...xy(SCENARIOS.linearLeak));
    if (!step.ok || !ramp.ok) throw new Error("enough data was given");
    expect(Math.abs(step.at - 200)).toBeLessThanOrEqual(3);
    expect(step.jump / (200 * MB)).toBeCloseTo(1, 1);
    expect(step.drift).toBeLessThan(0.05 * step.jump);
    expect(ramp.drift / ramp.jump).toBeGreaterThan(0.5);
  });
});

function xy(options: GenerateOptions): [number[], number[]] {
  const { xs, ys } = generate(options);
  return [xs, ys];
}

describe("large inputs", () => {
  it("unsorted input is sorted by time first", () => {
    const { xs, ys } = generate(SCENARIOS.linearLeak);
    const order = xs.map((_, i) => i).reverse();
    expect(
      mannKendall(
        order.map((i) => xs[i]!),
        order.map((i) => ys[i]!),
      ),
    ).toEqual(mannKendall(xs, ys));
  });
});

function naiveTheilSenSlope(xs: number[], ys: number[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < xs.length; i++)
    for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) slopes.push((ys[j]! - ys[i]!) / (xs[j]! - xs[i]!));
  return median(slopes)!;
}

function naiveS(xs: number[], ys: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++)
    for (let j = i + 1; j < xs.length; j++) s += Math.sign(xs[j]! - xs[i]!) * Math.sign(ys[j]! - ys[i]!);
  return s;
}

/** Var(S) under the permutation null, by brute force: the mean of S² over every ordering of ys. */
function permutationVariance(xs: number[], ys: number[]): number {
  let sum = 0;
  let count = 0;
  for (const p of permutations(ys)) {
    sum += naiveS(xs, p) ** 2;
    count++;
  }
  return sum / count;
}

function* permutations(values: number[]): Generator<number[]> {
  if (values.length <= 1) {
    yield values;
    return;
  }
  for (let i = 0; i < values.length; i++) {
    const rest = [...values.slice(0, i), ...values.slice(i + 1)];
    for (const p of permutations(rest)) yield [values[i]!, ...p];
  }
}

describe("properties", () => {
  const smallInt = fc.integer({ min: -3, max: 3 });
  const anyFinite = fc.double({ noNaN: true, noDefaultInfinity: true });
  const extreme = fc.constantFrom(0, -0, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 1e15, 1);
  const finite = fc.oneof(anyFinite, smallInt, extreme);
  const anything = fc.oneof(finite, fc.constantFrom(NaN, Infinity, -Infinity));
  const pairs = (value: fc.Arbitrary<number>, maxLength: number) =>
    fc.array(fc.tuple(value, value), { maxLength }).map((ps) => [ps.map((p) => p[0]), ps.map((p) => p[1])] as const);
  /** What mannKendall and theilSen need to answer (finite times): MIN_TREND_POINTS samples over more than one time. */
  const supportsTrend = (xs: readonly number[]) => xs.length >= MIN_TREND_POINTS && new Set(xs).size > 1;
  /** The answer of a statistic that must answer: its reason for not answering fails the test. */
  function answered<T extends { ok: boolean }>(r: T | NotEnoughData): T {
    if (!r.ok) throw new Error(`no answer: ${(r as NotEnoughData).reason}`);
    return r as T;
  }

  /** Every number anywhere in the result is finite. */
  function allFinite(value: unknown): boolean {
    if (typeof value === "number") return Number.isFinite(value);
    if (value && typeof value === "object") return Object.values(value).every(allFinite);
    return true;
  }

  const functions = { theilSen, mannKendall, trendTest, detectPlateau, detectWarmup, detectStep };

  it("the running Σ|y − median| of every prefix is the one summed afresh (the step's split)", () => {
    const fresh = (vs: number[]) => {
      const m = median(vs) ?? 0;
      return vs.reduce((sum, v) => sum + Math.abs(v - m), 0);
    };
    fc.assert(
      fc.property(
        fc.array(fc.oneof(smallInt, fc.double({ min: -1e12, max: 1e12, noNaN: true })), { maxLength: 120 }),
        (vs) => {
          const running = runningAbsoluteDeviations(vs);
          vs.forEach((_, k) => {
            const want = fresh(vs.slice(0, k + 1));
            expect(Math.abs(running[k + 1]! - want)).toBeLessThanOrEqual(1e-9 * Math.max(1, want) + 1e-3);
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("quantiles by selection are the sorted array's (R type 7), duplicates and extremes included", () => {
    // The reference: sort, then interpolate between the neighbouring order statistics.
    const sortedQuantile = (vs: number[], p: number) =>
      quantileOfSorted(Float64Array.from(vs.filter(Number.isFinite)).sort(), p);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(smallInt, anything), { minLength: 1, maxLength: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (vs, p) => {
          fc.pre(vs.some(Number.isFinite)); // with no finite value there is no quantile to compare (tested apart)
          const want = sortedQuantile(vs, p);
          const got = quantile(vs, p)!;
          // == : −0 and +0 are the same order statistic; either may be selected.
          expect(got == want || (Number.isNaN(want) && Number.isNaN(got)), `${got} vs ${want}`).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each(Object.entries(functions))("%s: total on finite arrays, and finite wherever it answers", (_name, f) => {
    fc.assert(
      fc.property(pairs(finite, 60), ([xs, ys]) => {
        const r = f(xs, ys);
        expect(allFinite(r)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it.each(Object.entries(functions))("%s: never throws on NaN, ±Infinity or ragged arrays", (_name, f) => {
    fc.assert(
      fc.property(fc.array(anything, { maxLength: 40 }), fc.array(anything, { maxLength: 40 }), (xs, ys) => {
        expect(allFinite(f(xs, ys))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("all-equal series: no trend, no plateau, no step, no warm-up", () => {
    fc.assert(
      fc.property(finite, fc.integer({ min: 20, max: 80 }), (level, n) => {
        const xs = Array.from({ length: n }, (_, i) => i);
        const ys = xs.map(() => level);
        expect(mannKendall(xs, ys)).toMatchObject({ s: 0, p: 1, tau: 0 });
        expect(theilSen(xs, ys)).toMatchObject({ slope: 0, low: 0, high: 0 });
        expect(trendTest(xs, ys)).toMatchObject({ direction: "none" });
        expect(detectPlateau(xs, ys)).toMatchObject({ state: "flat" });
        expect(detectStep(xs, ys)).toMatchObject({ isStep: false });
        expect(detectWarmup(xs, ys)).toMatchObject({ seconds: 0 });
      }),
      { numRuns: 50 },
    );
  });

  it("mannKendall: p in [0, 1], tau in [−1, 1], and S equals the O(n²) count", () => {
    fc.assert(
      fc.property(pairs(fc.oneof(smallInt, anyFinite), 40), ([xs, ys]) => {
        fc.pre(supportsTrend(xs));
        const r = answered(mannKendall(xs, ys));
        expect(r.s).toBe(naiveS(xs, ys));
        expect(r.p).toBeGreaterThanOrEqual(0);
        expect(r.p).toBeLessThanOrEqual(1);
        expect(Math.abs(r.tau)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });

  it("mannKendall: the tie-corrected variance is the exact permutation variance", () => {
    fc.assert(
      fc.property(pairs(smallInt, 7), ([xs, ys]) => {
        fc.pre(supportsTrend(xs));
        const r = answered(mannKendall(xs, ys));
        expect(r.varS).toBeCloseTo(permutationVariance(xs, ys), 8);
      }),
      { numRuns: 100 },
    );
  });

  it("theilSen: the median of all pairwise slopes, inside its own interval", () => {
    fc.assert(
      fc.property(pairs(fc.integer({ min: -1000, max: 1000 }), 40), ([xs, ys]) => {
        fc.pre(supportsTrend(xs));
        const r = answered(theilSen(xs, ys));
        expect(r.slope).toBeCloseTo(naiveTheilSenSlope(xs, ys), 9);
        expect(r.low).toBeLessThanOrEqual(r.slope);
        expect(r.high).toBeGreaterThanOrEqual(r.slope);
      }),
      { numRuns: 300 },
    );
  });

  it("mannKendall and theilSen answer exactly when there are enough samples over more than one time", () => {
    fc.assert(
      fc.property(pairs(fc.oneof(smallInt, anyFinite), 6), ([xs, ys]) => {
        expect(mannKendall(xs, ys).ok).toBe(supportsTrend(xs));
        expect(theilSen(xs, ys).ok).toBe(supportsTrend(xs));
      }),
      { numRuns: 300 },
    );
  });

  it("thin keeps short series and bounds long ones", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 1, max: 500 }), (n, max) => {
        const xs = Array.from({ length: n }, (_, i) => i);
        const t = thin({ xs, ys: xs }, max);
        expect(t.xs.length).toBe(Math.min(n, max));
        expect(t.ys.length).toBe(t.xs.length);
      }),
      { numRuns: 100 },
    );
  });

  it("generate is deterministic in its seed", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const options = { ...SCENARIOS.stableWithJumps, seconds: 50, seed };
        expect(generate(options)).toEqual(generate(options));
      }),
      { numRuns: 20 },
    );
  });
});
