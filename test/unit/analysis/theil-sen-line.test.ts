/**
 * theilSenLine (the line without Sen's interval, what warm-up detection draws) gives theilSen's slope and intercept
 * exactly: exact pairs, sampled pairs (over MAX_EXACT_PAIRS), and tied times alike.
 */
import { describe, expect, it } from "vitest";
import { theilSen, theilSenLine } from "../../../src/analysis/stats/theil-sen.js";
import { mulberry32 } from "../../../src/analysis/stats/random.js";

function noisyLine(n: number, seed: number, tiedEvery = 0): { xs: number[]; ys: number[] } {
  const rnd = mulberry32(seed);
  const xs = Array.from({ length: n }, (_, i) => (tiedEvery > 0 ? Math.floor(i / tiedEvery) : i) * 15);
  return { xs, ys: xs.map((x) => 5e8 + 2000 * x + (rnd() - 0.5) * 4e6) };
}

describe("theilSenLine", () => {
  it.each([
    ["exact pairs", 300, 0],
    ["sampled pairs", 721, 0],
    ["tied times", 900, 3],
  ])("%s: theilSen's slope and intercept", (_what, n, tiedEvery) => {
    const { xs, ys } = noisyLine(n, n, tiedEvery);
    const full = theilSen(xs, ys);
    const line = theilSenLine(xs, ys);
    expect(full.ok && line.ok).toBe(true);
    if (!full.ok || !line.ok) return;
    expect(line.slope).toBe(full.slope);
    expect(line.intercept).toBe(full.intercept);
    expect(line.slope).toBeGreaterThan(1900);
    expect(line.slope).toBeLessThan(2100);
  });

  it("too few points: not enough data, as theilSen says", () => {
    expect(theilSenLine([1, 2], [3, 4])).toEqual(theilSen([1, 2], [3, 4]));
  });
});
