/**
 * The statistics at scale: a day of 1 Hz samples, pair sampling against the exact median, and how soon a leak is
 * detected. Kept apart from stats.test.ts because they are slow under StrykerJS's instrumentation
 * (vitest.mutation.config.ts leaves this file out); they run with every `npm test`.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_ALPHA,
  detectPlateau,
  detectStep,
  detectWarmup,
  mannKendall,
  median,
  theilSen,
  trendTest,
} from "../../../src/analysis/stats/index.js";
import { generate, MB, SCENARIOS } from "../../helpers/synthetic.js";

const leak = (mbPerSecond: number) => ({
  ...SCENARIOS.linearLeak,
  shape: { kind: "linear" as const, bytesPerSecond: mbPerSecond * MB },
});

describe("large inputs", () => {
  it("260,000 samples: Mann–Kendall exact in O(n log n), Theil–Sen on sampled pairs", () => {
    const { xs, ys } = generate({ ...leak(0.01), seconds: 260_000 });
    const mk = mannKendall(xs, ys);
    const ts = theilSen(xs, ys);
    const trend = trendTest(xs, ys);
    if (!mk.ok || !ts.ok || !trend.ok) throw new Error("enough data was given");
    expect(mk.n).toBe(260_000);
    expect(mk.s).toBeGreaterThan(0);
    expect(ts.sampled).toBe(true);
    expect(Math.abs(ts.slope / (0.01 * MB) - 1)).toBeLessThan(0.01);
    expect(trend.direction).toBe("increasing");
    for (const f of [detectPlateau, detectWarmup, detectStep]) expect(f(xs, ys).ok).toBe(true);
  });

  it("sampled Theil–Sen agrees with the exact median of all 1,999,000 pairs", () => {
    const { xs, ys } = generate({ ...leak(0.01), seconds: 2000, seed: 3 });
    const sampled = theilSen(xs, ys);
    if (!sampled.ok) throw new Error(sampled.reason);
    expect(sampled.sampled).toBe(true);
    const exact = naiveTheilSenSlope(xs, ys);
    expect(Math.abs(sampled.slope - exact)).toBeLessThan(0.05 * (sampled.high - sampled.low));
  });
});

/**
 * Time to leak: 1 MB/s on a 10 MB baseline, 5 MB Gaussian noise, 1 Hz. The time is the first t from which
 * "Mann–Kendall p < 0.01 and Theil–Sen slope > 0" holds on the samples [0, t'] for every later t' up to 2 minutes.
 * Measured (seeds 1–10): median 14 s, max 18 s on the raw statistics; median 17 s, max 23 s with trendTest.
 */
describe("time to leak", () => {
  const HORIZON = 120;
  const rawRule = (xs: number[], ys: number[]) => {
    const mk = mannKendall(xs, ys);
    const ts = theilSen(xs, ys);
    return mk.ok && ts.ok && mk.p < DEFAULT_ALPHA && ts.slope > 0;
  };
  const decisionRule = (xs: number[], ys: number[]) => {
    const t = trendTest(xs, ys);
    return t.ok && t.direction === "increasing";
  };

  it.each([
    ["Mann–Kendall + Theil–Sen on the samples", 20, 25, rawRule],
    ["trendTest (12 block means)", 25, 30, decisionRule],
  ])("%s: detected for good (median ≤ %i s, max ≤ %i s over 10 seeds)", (_name, medianLimit, maxLimit, rule) => {
    const times = Array.from({ length: 10 }, (_, k) => {
      const { xs, ys } = generate({
        seconds: HORIZON + 1,
        hz: 1,
        baseline: 10 * MB,
        shape: { kind: "linear", bytesPerSecond: 1 * MB },
        noise: 5 * MB,
        seed: k + 1,
      });
      return secondsToSustainedDetection(xs, ys, rule);
    });
    expect(median(times)).toBeLessThanOrEqual(medianLimit);
    expect(Math.max(...times)).toBeLessThanOrEqual(maxLimit);
  });
});

type Rule = (xs: number[], ys: number[]) => boolean;

/** First x (relative to the start) from which rule(prefix) holds for every longer prefix; Infinity if never. */
function secondsToSustainedDetection(xs: number[], ys: number[], rule: Rule): number {
  let since: number | undefined;
  for (let m = 3; m <= xs.length; m++) {
    const holds = rule(xs.slice(0, m), ys.slice(0, m));
    if (!holds) since = undefined;
    else since ??= m;
  }
  return since === undefined ? Infinity : xs[since - 1]! - xs[0]!;
}

function naiveTheilSenSlope(xs: number[], ys: number[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < xs.length; i++)
    for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) slopes.push((ys[j]! - ys[i]!) / (xs[j]! - xs[i]!));
  return median(slopes)!;
}
