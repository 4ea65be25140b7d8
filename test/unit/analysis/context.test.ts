/**
 * The warm-up every rule fits after (context.ts warmupFor): the user's, else what detectWarmup finds on at least 20
 * samples, counting only offsets of at least half the growth floor at the column's own level (2% of 1 GiB, not the
 * 2 MiB of a small process). The floor's boundary at 100 MiB is in rules/growth.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../src/series/column.js";
import { warmupFor } from "../../../src/analysis/context.js";
import { generate } from "../../helpers/synthetic.js";

const MB = 2 ** 20;

/** `seconds` at 1 Hz of a quiet process at `level` whose first quarter sits `offset` below it. */
function startingLow(level: number, offset: number, seconds = 400): Column {
  const col = new Column();
  const { ys } = generate({ seconds, hz: 1, baseline: level, noise: 0.02 * MB, seed: 3, shape: { kind: "stable" } });
  ys.forEach((y, t) => col.push(t, t < seconds * 0.15 ? y - offset : y));
  return col;
}

describe("warmupFor", () => {
  it("no column, no warm-up", () => expect(warmupFor(undefined, {})).toBe(0));

  it("at 1 GiB, 5 MiB off at the start is under half the floor (10 MiB): not warm-up", () => {
    expect(warmupFor(startingLow(1024 * MB, 5 * MB), {})).toBe(0);
  });
  it("at 1 GiB, 15 MiB off is", () => expect(warmupFor(startingLow(1024 * MB, 15 * MB), {})).toBeGreaterThan(50));

  it("20 samples are enough to find one", () =>
    expect(warmupFor(startingLow(100 * MB, 20 * MB, 20), {})).toBeGreaterThan(0));
  it("19 are not", () => expect(warmupFor(startingLow(100 * MB, 20 * MB, 19), {})).toBe(0));
  it("the user's 0 is kept, not detected over", () =>
    expect(warmupFor(startingLow(1024 * MB, 15 * MB), { warmup: 0 })).toBe(0));
});
