/**
 * Where the last burst of imports ends (signals/imports.ts lastImportBurst), on module counts read once a second:
 * at least 20 modules within the 10 s before a reading, counted from the last reading before the window at most,
 * the last such reading winning over a few modules imported later. How a burst changes a verdict: imports.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../../src/analysis/column.js";
import { lastImportBurst } from "../../../../src/analysis/signals/imports.js";

/** One reading a second for `seconds`, the module count at each second. */
function counts(seconds: number, modulesAt: (t: number) => number): Column {
  const col = new Column();
  for (let t = 0; t <= seconds; t++) col.push(t, modulesAt(t));
  return col;
}
/** 100 modules, `n` more loaded evenly from 5 s to 10 s, `late` more at 25 s. */
const burst = (n: number, late = 0) => counts(30, (t) => 100 + (n * Math.min(5, Math.max(0, t - 5))) / 5 + (t >= 25 ? late : 0));

describe("lastImportBurst", () => {
  it("20 modules in 5 s are a burst, ending at the last of them", () => expect(lastImportBurst(burst(20), 0)).toEqual({ at: 10, loaded: 20, modules: 120 }));
  it("19 are not", () => expect(lastImportBurst(burst(19), 0)).toBeUndefined());

  it("3 modules imported 15 s later do not move it", () => expect(lastImportBurst(burst(60, 3), 0)).toEqual({ at: 10, loaded: 60, modules: 160 }));
  it("a second burst does", () => expect(lastImportBurst(burst(60, 25), 0)).toEqual({ at: 25, loaded: 25, modules: 185 }));

  // Counted from the reading before the 10 s: 11 s of readings, 19 modules at one every 0.6 s, 24 at one every 0.45 s
  it("a module every 0.6 s is never a burst", () => expect(lastImportBurst(counts(120, (t) => 100 + Math.floor(t / 0.6)), 0)).toBeUndefined());
  it("a module every 0.45 s is, ending at the last reading", () => expect(lastImportBurst(counts(120, (t) => 100 + Math.floor(t / 0.45)), 0)).toEqual({ at: 120, loaded: 24, modules: 366 }));

  it("a burst before the window is not the window's", () => expect(lastImportBurst(burst(60), 20)).toBeUndefined());
  it("of a burst the window cuts, only what loaded since the reading before it counts", () => {
    expect(lastImportBurst(burst(60), 8)).toEqual({ at: 10, loaded: 36, modules: 160 });
    expect(lastImportBurst(burst(30), 9)).toBeUndefined();
  });

  it("no count, or a single reading, says nothing", () => {
    expect(lastImportBurst(undefined, 0)).toBeUndefined();
    expect(lastImportBurst(counts(0, () => 500), 0)).toBeUndefined();
  });
});
