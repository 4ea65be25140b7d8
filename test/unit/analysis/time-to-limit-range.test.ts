/**
 * The projection's range (time-to-limit.ts) on a staircase whose block-to-block slopes are known by hand: 12 blocks
 * of 10 s, each flat, stepping up 1 and 3 MiB in turn. The slopes between block means are then 0.1 and 0.3 MiB/s, so
 * their mean, spread and standard error are known, and with them the slope interval (the wider of Sen's and the
 * blocks'), the wander of the increments still to come, and the soonest and latest ends.
 */
import { describe, expect, it } from "vitest";
import { projectToLimit } from "../../../src/analysis/time-to-limit.js";
import { twoSidedZ } from "../../../src/analysis/stats/normal.js";
import { quantile } from "../../../src/analysis/stats/quantiles.js";
import { trendTest } from "../../../src/analysis/stats/trend.js";

const MB = 2 ** 20;
const xs = Array.from({ length: 120 }, (_, t) => t);
const levelOfBlock = (b: number) =>
  100 * MB + Array.from({ length: b }, (_, i) => ((i + 1) % 2 === 1 ? 1 : 3) * MB).reduce((a, v) => a + v, 0);
const ys = xs.map((t) => levelOfBlock(Math.floor(t / 10)));

// By hand: 11 block-to-block slopes, six of 0.1 MiB/s and five of 0.3
const slopes = [...Array(6).fill(0.1 * MB), ...Array(5).fill(0.3 * MB)] as number[];
const mean = slopes.reduce((a, v) => a + v, 0) / 11;
const sd = Math.sqrt(slopes.reduce((a, v) => a + (v - mean) ** 2, 0) / 10);
const se = sd / Math.sqrt(11);
const perRootSecond = sd * Math.sqrt(10);

describe("the projection's range on a staircase", () => {
  const ts = trendTest(xs, ys, { alpha: 0.01 });
  if (!ts.ok) throw new Error("the staircase must be a trend");
  const line = ts.theilSen;
  const z = twoSidedZ(line.confidence);
  const level = line.intercept + line.slope * 119;
  const t = projectToLimit({
    xs,
    ys,
    from: 0,
    metric: "anon",
    counted: "anon",
    limits: [],
    machineAvailable: 100 * MB,
  })!;
  const residuals = xs.map((x, i) => ys[i]! - (line.intercept + line.slope * x));
  const swing = quantile(residuals, 0.95)!;
  const highest = Math.max(...residuals);
  const ahead = z * perRootSecond * Math.sqrt((100 * MB - swing) / line.slope);

  it("the blocks' interval is the wider here, and is the one used", () => {
    expect(mean - z * se).toBeLessThan(line.low);
    expect(mean + z * se).toBeGreaterThan(line.high);
    expect(t.slopeLow).toBeCloseTo(mean - z * se, 0);
    expect(t.slopeHigh).toBeCloseTo(mean + z * se, 0);
  });
  it("the machine's available memory is a limit above the level now", () => {
    expect(t.limit).toEqual({ kind: "machine", source: "MemAvailable", bytes: level + 100 * MB });
    expect(t.headroom).toBe(100 * MB);
  });
  it("the latest end: the headroom and the wander still to come, at the slow end of the slope", () => {
    expect(swing).toBeGreaterThan(0);
    expect(t.secondsMax).toBeCloseTo((100 * MB + ahead) / (mean - z * se), 1);
  });
  it("the soonest end: the highest reading above the line and the wander, at the fast end", () => {
    expect(highest).toBeGreaterThan(swing);
    expect(t.secondsMin).toBeCloseTo((100 * MB - highest - ahead) / (mean + z * se), 1);
  });
  it("no start time, no date", () => expect(t).not.toHaveProperty("atUnix"));
});
