/**
 * What the CI gates ask of the analysis (gate-measures.ts), pinned by exact values on small hand-made columns: the
 * level change of a window after the warm-up, and its rate by the trend test, or the early test when the window is too
 * short for it. The gates' own tests (test/unit/gates/) go through whole synthetic runs and check pass/fail only.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../src/series/column.js";
import { GROWTH_MIN_READINGS, levelChangeAfter, rateAfter } from "../../../src/analysis/gate-measures.js";

function column(points: [number, number][]): Column {
  const c = new Column();
  for (const [x, y] of points) c.push(x, y);
  return c;
}

/** n readings dt seconds apart on the line a + b·t, alternately `wobble` under and over it. */
function line(n: number, dt: number, a: number, b: number, wobble: number): Column {
  return column(
    Array.from({ length: n }, (_, i): [number, number] => [i * dt, a + b * i * dt + (i % 2 ? wobble : -wobble)]),
  );
}

describe("levelChangeAfter", () => {
  // Ten readings a second apart, in no order, so that each level is the median of its own three readings.
  const c = column([5, 1, 9, 3, 7, 2, 8, 4, 6, 10].map((y, i): [number, number] => [i, y]));

  it("compares the medians of the first and last three readings after `from`", () => {
    expect(levelChangeAfter(c, 0)).toEqual({ measured: true, start: 5, end: 6 });
    // From 4 s: the readings 7 2 8 4 6 10, six, the fewest that give two levels of three apart.
    expect(GROWTH_MIN_READINGS).toBe(6);
    expect(levelChangeAfter(c, 4)).toEqual({ measured: true, start: 7, end: 6 });
  });

  it("with fewer than six readings after `from` measures nothing, and says how many there were", () => {
    expect(levelChangeAfter(c, 5)).toEqual({ measured: false, readings: 5 });
    // The window starts at the first reading at or after `from`.
    expect(levelChangeAfter(c, 4.5)).toEqual({ measured: false, readings: 5 });
    expect(levelChangeAfter(c, 100)).toEqual({ measured: false, readings: 0 });
  });
});

describe("rateAfter", () => {
  const needs = { readings: 20, seconds: 10 };

  it("20 readings over 19 s: the trend test's slope and p on its block means", () => {
    expect(rateAfter(line(20, 1, 100, 10, 3), 0)).toEqual({
      kind: "trend",
      slope: 10,
      increasing: true,
      p: 0.000008303107727299476,
    });
  });

  it("a falling or a flat column has a trend that is not increasing", () => {
    // From 5 s: 25 readings over 24 s.
    expect(rateAfter(line(30, 1, 1000, -10, 3), 5)).toEqual({
      kind: "trend",
      slope: -10,
      increasing: false,
      p: 0.000008303107727299476,
    });
    expect(rateAfter(line(30, 1, 1000, 0, 3), 0)).toEqual({
      kind: "trend",
      slope: 0,
      increasing: false,
      p: 0.4522639346512406,
    });
  });

  it("19 readings are too few for the trend test; the early test already sees the rise", () => {
    expect(rateAfter(line(19, 1, 100, 10, 3), 0)).toEqual({
      kind: "too-short",
      readings: 19,
      seconds: 18,
      needs,
      early: { slope: 10, p: 0.000008303107727299476 },
    });
  });

  it("30 readings over 9.86 s are too short too: both floors must be reached", () => {
    expect(rateAfter(line(30, 0.34, 100, 10, 1), 0)).toEqual({
      kind: "too-short",
      readings: 30,
      seconds: 29 * 0.34,
      needs,
      early: { slope: 10, p: 0.000008303107727299476 },
    });
  });

  it("a flat short window has no early rate; an empty or one-reading window lasts 0 s", () => {
    expect(rateAfter(line(15, 1, 100, 0, 3), 0)).toEqual({ kind: "too-short", readings: 15, seconds: 14, needs });
    // From 3 s: the window's span is from its own first reading, 3 s, to its last, 14 s.
    expect(rateAfter(line(15, 1, 100, 0, 3), 3)).toEqual({ kind: "too-short", readings: 12, seconds: 11, needs });
    expect(rateAfter(line(15, 1, 100, 0, 3), 14)).toEqual({ kind: "too-short", readings: 1, seconds: 0, needs });
    expect(rateAfter(line(15, 1, 100, 0, 3), 100)).toEqual({ kind: "too-short", readings: 0, seconds: 0, needs });
  });

  it("long enough but with no rate to compute: the trend test's reason", () => {
    // 19 readings at 0 s and one at 10 s: 20 readings over 10 s, but two block means, too few for the test.
    const clumped = column([...Array.from({ length: 19 }, (): [number, number] => [0, 1]), [10, 2]]);
    expect(rateAfter(clumped, 0)).toEqual({ kind: "none", reason: "too few distinct times" });
  });
});
