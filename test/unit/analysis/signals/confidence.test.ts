/**
 * How sure a finding says it is (evidence.ts), at the points its wording depends on: a trend at the significance
 * level is a coin-flip-and-a-bit (0.66), one at p = 1e-6 or beyond is as sure as it gets (0.99); "stable" grows
 * surer with the length of the watch, to 0.95 at 10 minutes.
 */
import { describe, expect, it } from "vitest";
import { confidenceFromP, stableConfidence } from "../../../../src/analysis/evidence.js";
import { formatRate } from "../../../../src/report/wording/numbers.js";

describe("confidence", () => {
  it.each([
    [1, 0.5],
    [0.01, 0.66],
    [1e-3, 0.74],
    [1e-6, 0.99],
    [1e-12, 0.99],
    [0, 0.99],
  ])("a trend with p = %d is %d sure", (p, c) => expect(confidenceFromP(p)).toBe(c));

  it.each([
    [0, 0.5],
    [60, 0.55],
    [300, 0.72],
    [600, 0.95],
    [6000, 0.95],
  ])("stable over %d s is %d sure", (s, c) => expect(stableConfidence(s)).toBe(c));
});

describe("rates", () => {
  it.each([
    [1.5 * 2 ** 20, 100, "1.50 MiB/s (>+1000%/h)"],
    [0.2 * 2 ** 20, 100 * 2 ** 20, "205 KiB/s (+720%/h)"],
    [0.05 * 2 ** 20, 1000 * 2 ** 20, "3.00 MiB/min (+18%/h)"],
    [0.001 * 2 ** 20, 1000 * 2 ** 20, "3.60 MiB/h (+0.4%/h)"],
    [-0.2 * 2 ** 20, 100 * 2 ** 20, "-205 KiB/s (-720%/h)"],
  ])("%d B/s on %d B reads %s", (bps, level, text) => {
    expect(formatRate({ bytesPerSecond: bps, percentPerHour: (bps * 3600 * 100) / level })).toBe(text);
  });
});
