/**
 * signals/cow.ts on columns built by hand: `copying` (the shape of copy-on-write, no size floor) and `copyOnWrite`
 * (the floor), pinned by exact values. Six points per column, so each level is the median of three (assess.ts
 * `levels`) and every number below can be checked by eye. Through the whole engine: rules/cow.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../../src/series/column.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import { copying, copyOnWrite, type Copying } from "../../../../src/analysis/signals/cow.js";

const MB = 2 ** 20;
const col = (ys: number[]) => {
  const c = new Column();
  ys.forEach((y, i) => c.push(i, y));
  return c;
};
/** Three points at `a` MiB, then three at `b` MiB: a level change of b − a. */
const step = (a: number, b: number, n = 6) => col(Array.from({ length: n }, (_, i) => (i < n / 2 ? a : b) * MB));

interface Cols {
  uss?: Column;
  anon?: Column;
  rss?: Column;
  shared?: Column;
  parentAnonAtStart?: number;
}
const proc = (c: Cols) =>
  ({
    metrics: { ...(c.uss && { uss: c.uss }), ...(c.anon && { anon: c.anon }), ...(c.rss && { rss: c.rss }) },
    shared: c.shared ?? new Column(),
    parentAnonAtStart: c.parentAnonAtStart,
  }) as unknown as ProcessSeries;

describe("copying: USS grew while resident memory did not, with a relative alive", () => {
  const worker = (extra: Cols = {}) =>
    proc({ uss: step(100, 140), anon: step(200, 200), rss: step(230, 230), shared: step(50, 10), ...extra });

  it("reports the levels, the growths, the drop in shared pages, and the parent's anon as the bound", () => {
    expect(copying(worker({ parentAnonAtStart: 300 * MB }), true)).toEqual({
      ussStart: 100 * MB,
      ussEnd: 140 * MB,
      ussGrowth: 40 * MB,
      residentGrowth: 0,
      sharedDrop: 40 * MB,
      bound: 300 * MB,
      residentStart: 200 * MB,
      residentEnd: 200 * MB,
    });
  });

  it("bounds the root's copying by its own largest resident reading, without a parent", () => {
    const anon = col([200, 200, 200, 205, 200, 200].map((v) => v * MB));
    expect(copying(worker({ anon }), true)?.bound).toBe(205 * MB);
  });

  it("nothing once every relative has exited: their pages became its own", () => {
    expect(copying(worker(), false)).toBeUndefined();
  });

  it("needs 3 USS readings (read with PSS, every few ticks) and a resident column of 6; RSS stands in for anon", () => {
    expect(copying(proc({ anon: step(200, 200) }), true)).toBeUndefined();
    expect(copying(proc({ uss: step(100, 140) }), true)).toBeUndefined();
    expect(copying(worker({ uss: step(100, 140, 2) }), true)).toBeUndefined();
    // 3 readings: the first and the last are its levels; 5: the medians of its first two and of its last two.
    expect(copying(worker({ uss: col([100, 120, 140].map((m) => m * MB)) }), true)).toMatchObject({
      ussStart: 100 * MB,
      ussEnd: 140 * MB,
    });
    expect(copying(worker({ uss: col([100, 102, 120, 138, 140].map((m) => m * MB)) }), true)).toMatchObject({
      ussStart: 101 * MB,
      ussEnd: 139 * MB,
    });
    expect(copying(proc({ uss: step(100, 140), anon: step(200, 200, 5) }), true)).toBeUndefined();
    // no anon column: RSS is the resident memory (230 MiB, flat)
    expect(copying(proc({ uss: step(100, 140), rss: step(230, 230) }), true)).toMatchObject({
      residentStart: 230 * MB,
      residentGrowth: 0,
      sharedDrop: undefined,
    });
  });

  it("no growth of USS is no copying", () => {
    expect(copying(worker({ uss: step(100, 100) }), true)).toBeUndefined();
    expect(copying(worker({ uss: step(100, 90) }), true)).toBeUndefined();
  });

  it("resident growth up to 20% of the USS growth is still copying; RSS is held to the same share", () => {
    // anon +8 of USS +40 (exactly 20%), RSS +8 with it
    expect(copying(worker({ anon: step(200, 208), rss: step(230, 238) }), true)).toMatchObject({
      ussGrowth: 40 * MB,
      residentGrowth: 8 * MB,
    });
    // anon flat, RSS +8 (20%, file pages): copying; RSS +9: libraries loaded, not copying
    expect(copying(worker({ rss: step(230, 238) }), true)?.ussGrowth).toBe(40 * MB);
    expect(copying(worker({ rss: step(230, 239) }), true)).toBeUndefined();
    // an RSS column under 6 points is not read
    expect(copying(worker({ rss: step(230, 260, 5) }), true)?.ussGrowth).toBe(40 * MB);
  });

  it("beside growth of its own: the copied part, when the shared pages fell by 80% of it", () => {
    // USS +40, anon +10 (25%): copied 30; shared fell by 24 (80% of 30) → counted
    const beside = copying(worker({ anon: step(200, 210), rss: step(230, 240), shared: step(50, 26) }), true);
    expect(beside).toEqual({
      ussStart: 100 * MB,
      ussEnd: 140 * MB,
      ussGrowth: 30 * MB,
      residentGrowth: 10 * MB,
      sharedDrop: 24 * MB,
      bound: 210 * MB,
      residentStart: 200 * MB,
      residentEnd: 210 * MB,
      besideGrowth: true,
    });
    // shared fell by 23: less than 80% of what was copied → a leak's growth, not copying
    expect(copying(worker({ anon: step(200, 210), shared: step(50, 27) }), true)).toBeUndefined();
    // no shared readings: no proof
    expect(copying(worker({ anon: step(200, 210), shared: col([50 * MB]) }), true)).toBeUndefined();
    // two shared readings are enough: the first less the last
    expect(copying(worker({ anon: step(200, 210), shared: col([50 * MB, 20 * MB]) }), true)).toMatchObject({
      sharedDrop: 30 * MB,
      ussGrowth: 30 * MB,
      besideGrowth: true,
    });
    // resident grew as much as USS: nothing copied
    expect(copying(worker({ anon: step(200, 240), shared: step(90, 0) }), true)).toBeUndefined();
    expect(copying(worker({ anon: step(200, 250), shared: step(90, 0) }), true)).toBeUndefined();
  });
});

describe("copyOnWrite: copying big enough to report", () => {
  const c = (ussGrowth: number, residentStart: number, residentEnd = residentStart): Copying => ({
    ussStart: 0,
    ussEnd: ussGrowth,
    ussGrowth,
    residentGrowth: 0,
    sharedDrop: undefined,
    bound: undefined,
    residentStart,
    residentEnd,
  });
  const withRss = (max?: number) => proc(max === undefined ? {} : { rss: col([max / 2, max]) });

  it("nothing without copying", () => {
    expect(copyOnWrite(withRss(), undefined)).toBeUndefined();
  });

  it("8 MiB at least, exactly 8 included", () => {
    expect(copyOnWrite(withRss(100 * MB), c(8 * MB, 100 * MB))).toEqual(c(8 * MB, 100 * MB));
    expect(copyOnWrite(withRss(100 * MB), c(8 * MB - 1, 100 * MB))).toBeUndefined();
  });

  it("5% of the largest RSS reading, or of the resident level at the end without RSS", () => {
    expect(copyOnWrite(withRss(400 * MB), c(20 * MB, 100 * MB))).toBeDefined();
    expect(copyOnWrite(withRss(400 * MB), c(20 * MB - 1, 100 * MB))).toBeUndefined();
    expect(copyOnWrite(withRss(), c(20 * MB, 100 * MB, 400 * MB))).toBeDefined();
    expect(copyOnWrite(withRss(), c(20 * MB - 1, 100 * MB, 400 * MB))).toBeUndefined();
  });

  it("the growth floor of the resident level at the start (2% of it)", () => {
    // 1,000 MiB at the start: the floor is 20 MiB; RSS's 5% (5 MiB) and 8 MiB are below it
    expect(copyOnWrite(withRss(100 * MB), c(20 * MB, 1000 * MB, 100 * MB))).toBeDefined();
    expect(copyOnWrite(withRss(100 * MB), c(20 * MB - 1, 1000 * MB, 100 * MB))).toBeUndefined();
  });
});
