/**
 * The calibration fit (issue 46; calibration-fit.ts) on made-up verdicts whose truth is known: monotone curves, small
 * blocks pooled, too little data not fitted, a family adopted only where it says programs it did not see better than
 * the raw score, and intervals that count programs, not cuts.
 */
import { describe, expect, it } from "vitest";
import {
  MIN_BLOCK,
  brier,
  clusteredBins,
  fitCurve,
  fitTable,
  outOfSample,
  type LabelledScore,
} from "./calibration-fit.js";

/** `n` verdicts of `program` at `raw`, the first `right` of them right. */
function verdicts(program: string, family: string, raw: number, n: number, right: number): LabelledScore[] {
  return Array.from({ length: n }, (_, i) => ({ program, family, raw, right: i < right }));
}

describe("fitCurve", () => {
  it("is monotone: a lower score more often right is pooled with the one above it", () => {
    const scores = [
      ...verdicts("a", "leak", 0.6, 20, 18), // 90% right
      ...verdicts("b", "leak", 0.8, 20, 12), // 60%: violates the order, pooled with 0.6
      ...verdicts("c", "leak", 0.9, 20, 19),
      ...verdicts("d", "leak", 0.95, 20, 20),
    ];
    const curve = fitCurve(scores, 0.8)!;
    const values = curve.points.map((p) => p.value);
    expect(values).toEqual([...values].sort((x, y) => x - y));
    // 0.6 and 0.8 pooled into one block of 40 at their mean score.
    expect(curve.points[0]).toMatchObject({ raw: 0.7, n: 40 });
    expect(curve.n).toBe(80);
    expect(curve.right).toBe(69);
  });

  it("pools a block of fewer than MIN_BLOCK verdicts with a neighbour: 3 right are no 99%", () => {
    const scores = [
      ...["a", "b", "c"].flatMap((p) => verdicts(p, "leak", 0.7, 10, 7)),
      ...verdicts("d", "leak", 0.99, MIN_BLOCK - 7, MIN_BLOCK - 7),
      ...verdicts("e", "leak", 0.5, 1, 0),
    ];
    const curve = fitCurve(scores, 0.7)!;
    expect(curve.points.every((p) => p.n >= MIN_BLOCK)).toBe(true);
    expect(curve.points.at(-1)!.value).toBeLessThan(0.9);
  });

  it("pulls each block toward the prior by ten verdicts' worth, and never says 0 or 1", () => {
    const four = ["a", "b", "c", "d"];
    const curve = fitCurve(
      four.flatMap((p) => verdicts(p, "x", 0.8, 10, 10)),
      0.5,
    )!;
    expect(curve.points).toEqual([{ raw: 0.8, value: Number(((40 + 10 * 0.5) / 50).toFixed(4)), n: 40 }]);
    const wrong = fitCurve(
      four.flatMap((p) => verdicts(p, "x", 0.8, 500, 0)),
      0,
    )!;
    expect(wrong.points[0]!.value).toBe(0.01);
  });

  it("fits nothing on fewer than 20 verdicts or 4 programs, and leaves insufficient-data (score 0) out", () => {
    expect(fitCurve(verdicts("a", "x", 0.8, 19, 10), 0.5)).toBeUndefined();
    const threePrograms = ["a", "b", "c"].flatMap((p) => verdicts(p, "x", 0.8, 10, 8));
    expect(fitCurve(threePrograms, 0.5)).toBeUndefined();
    const fourPrograms = ["a", "b", "c", "d"].flatMap((p) => verdicts(p, "x", 0.8, 10, 8));
    expect(fitCurve([...fourPrograms, ...verdicts("e", "x", 0, 50, 0)], 0.5)!.n).toBe(40);
  });
});

describe("fitTable: a family is calibrated only where it says programs it did not see better", () => {
  // Early calls at 0.75 right 95% of the time in every program: the raw score under-says them everywhere.
  const underSaid = ["a", "b", "c", "d", "e", "f"].flatMap((p) => verdicts(p, "leak/early", 0.75, 20, 19));
  // Stables right in five programs, wrong in one long one: whether the curve says 0.62 or 0.95 hinges on that one.
  const hinged = [
    ...["g", "h", "i", "j", "k"].flatMap((p) => verdicts(p, "stable", 0.52, 10, 10)),
    ...verdicts("l", "stable", 0.52, 30, 0),
  ];

  it("adopts the curve that every program bears out", () => {
    const t = fitTable(underSaid, "made up");
    expect(Object.keys(t.families)).toEqual(["leak/early"]);
    const curve = t.families["leak/early"]!;
    expect(curve.points[0]!.value).toBeGreaterThan(0.85);
    expect(curve.checked!.calibratedBrier).toBeLessThan(curve.checked!.rawBrier);
    expect(t.check!.calibratedBrier).toBeLessThan(t.check!.rawBrier);
  });

  it("leaves raw a family that hinges on one program, and adopts nothing when the whole method fails unseen programs", () => {
    const t = fitTable([...underSaid, ...hinged], "made up");
    expect(t.saidRaw!.stable).toMatch(/^out of sample its curve said it no better than the raw score/);
    // Fitted without l, the stable curve passes its own check, and l's 30 wrong stables are said at it: the method
    // as a whole is worse than raw on what it did not see, so even the early calls' good curve is not shipped.
    expect(t.check!.calibratedBrier).toBeGreaterThanOrEqual(t.check!.rawBrier);
    expect(t.families).toEqual({});
    expect(t.saidRaw!["leak/early"]).toMatch(/passed its own check, but the method as a whole/);
  });

  it("outOfSample says each program through a fit that never saw it", () => {
    const checked = outOfSample(hinged);
    // Fitted without l, the five right programs make the curve sure; l's wrong verdicts are said at it.
    const l = checked.filter((s) => s.program === "l");
    expect(l.every((s) => s.said > 0.52)).toBe(true);
    expect(brier(checked)).toBeGreaterThan(brier(hinged.map((s) => ({ said: s.raw, right: s.right }))));
  });
});

describe("clusteredBins", () => {
  it("gives the same intervals every run, and a bin of one program no width to hide in", () => {
    const items = [
      ...verdicts("a", "x", 0.95, 30, 30),
      ...verdicts("b", "x", 0.95, 30, 0),
      ...verdicts("c", "x", 0.55, 5, 5),
    ].map((s) => ({ program: s.program, said: s.raw, right: s.right }));
    const bins = clusteredBins(items);
    expect(bins).toEqual(clusteredBins(items));
    const high = bins.find((b) => b.from === 0.9)!;
    // 60 verdicts but two programs, one right and one wrong: anything from 0 to 1 is possible.
    expect(high).toMatchObject({ n: 60, programs: 2, share: 0.5, low: 0, high: 1, calibrated: true });
    expect(bins.find((b) => b.from === 0.5)).toMatchObject({ n: 5, programs: 1, low: 1, high: 1, calibrated: false });
  });
});
