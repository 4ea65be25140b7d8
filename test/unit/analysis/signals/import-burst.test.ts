/**
 * Where the last burst of imports ends (signals/imports.ts lastImportBurst), on module counts read once a second:
 * at least 20 modules within the 10 s before a reading, counted from the last reading before the window at most,
 * the last such reading winning over a few modules imported later. How a burst changes a verdict: imports.test.ts.
 */
import { describe, expect, it } from "vitest";
import { assess, type Assessment } from "../../../../src/analysis/assess.js";
import { Column } from "../../../../src/series/column.js";
import { lastImportBurst, lastLibraryLoad, withoutImports } from "../../../../src/analysis/signals/imports.js";
import type { ProcessSeries } from "../../../../src/series/series.js";

const MB = 2 ** 20;

/** One reading a second for `seconds`, the module count at each second. */
function counts(seconds: number, modulesAt: (t: number) => number): Column {
  const col = new Column();
  for (let t = 0; t <= seconds; t++) col.push(t, modulesAt(t));
  return col;
}
/** 100 modules, `n` more loaded evenly from 5 s to 10 s, `late` more at 25 s. */
const burst = (n: number, late = 0) =>
  counts(30, (t) => 100 + (n * Math.min(5, Math.max(0, t - 5))) / 5 + (t >= 25 ? late : 0));

describe("lastImportBurst", () => {
  it("20 modules in 5 s are a burst, ending at the last of them", () =>
    expect(lastImportBurst(burst(20), 0)).toEqual({ at: 10, loaded: 20, modules: 120 }));
  it("19 are not", () => expect(lastImportBurst(burst(19), 0)).toBeUndefined());

  it("3 modules imported 15 s later do not move it", () =>
    expect(lastImportBurst(burst(60, 3), 0)).toEqual({ at: 10, loaded: 60, modules: 160 }));
  it("a second burst does", () =>
    expect(lastImportBurst(burst(60, 25), 0)).toEqual({ at: 25, loaded: 25, modules: 185 }));

  // Counted from the reading before the 10 s: 11 s of readings, 19 modules at one every 0.6 s, 24 at one every 0.45 s
  it("a module every 0.6 s is never a burst", () =>
    expect(
      lastImportBurst(
        counts(120, (t) => 100 + Math.floor(t / 0.6)),
        0,
      ),
    ).toBeUndefined());
  it("a module every 0.45 s is, ending at the last reading", () =>
    expect(
      lastImportBurst(
        counts(120, (t) => 100 + Math.floor(t / 0.45)),
        0,
      ),
    ).toEqual({ at: 120, loaded: 24, modules: 366 }));

  it("a burst before the window is not the window's", () => expect(lastImportBurst(burst(60), 20)).toBeUndefined());
  it("of a burst the window cuts, only what loaded since the reading before it counts", () => {
    expect(lastImportBurst(burst(60), 8)).toEqual({ at: 10, loaded: 36, modules: 160 });
    expect(lastImportBurst(burst(30), 9)).toBeUndefined();
  });

  it("two readings are enough", () =>
    expect(
      lastImportBurst(
        counts(1, (t) => 100 + 30 * t),
        0,
      ),
    ).toEqual({ at: 1, loaded: 30, modules: 130 }));
  it("the window's first reading counts", () =>
    expect(
      lastImportBurst(
        counts(30, (t) => (t < 10 ? 100 : 200)),
        10,
      ),
    ).toEqual({ at: 10, loaded: 100, modules: 200 }));

  it("no count, or a single reading, says nothing", () => {
    expect(lastImportBurst(undefined, 0)).toBeUndefined();
    expect(
      lastImportBurst(
        counts(0, () => 500),
        0,
      ),
    ).toBeUndefined();
  });
});

/**
 * withoutImports on a process whose anon rose 1 MiB/s from 37.5 MiB while importing (5 modules a second until 60 s)
 * and stayed at 97.5 MiB for a minute after. The trend it is given is made up (from 35 MiB), so that the growth that
 * came while importing is exact: 60 MiB (the last tenth of 0–60 s has median 95 MiB; without the reading at 60 s,
 * 94). A burst's count is of the 11 s from the reading before the 10 s: 55 modules.
 */
describe("withoutImports", () => {
  const anon = new Column();
  const modules = new Column();
  for (let t = 0; t <= 120; t++) {
    anon.push(t, (37.5 + Math.min(t, 60)) * MB);
    modules.push(t, 100 + 5 * Math.min(t, 60));
  }
  const ps = { agent: { "py.modules": modules }, firstSeen: 0 } as unknown as ProcessSeries;
  const growing = (growth: number): Assessment => ({
    ...assess(anon, 0),
    shape: "growing",
    from: 0,
    start: 35 * MB,
    growth,
  });
  const after = assess(anon, 60, 0);

  it("judges from the imports' end when three quarters of the growth came while importing", () => {
    // The rise stopped with the imports at 60 s and the level held for a minute: growth that stopped, dated there.
    expect(after.shape).toBe("plateau");
    expect(after.plateau?.levelFrom).toBeGreaterThanOrEqual(55);
    expect(after.plateau?.levelFrom).toBeLessThanOrEqual(62);
    expect(withoutImports(growing(80 * MB), ps, anon)).toEqual(after);
  });
  it("keeps the trend when less did", () => {
    const a = growing(81 * MB);
    expect(withoutImports(a, ps, anon)).toBe(a);
  });
  it("keeps a trend that still grows after the imports", () => {
    const leak = new Column();
    for (let t = 0; t <= 120; t++) leak.push(t, (37.5 + t) * MB);
    // …even when the growth it was given came all while importing
    const a: Assessment = { ...assess(leak, 0), shape: "growing", growth: 1 * MB };
    expect(assess(leak, 60, 0).shape).toBe("growing");
    expect(withoutImports(a, ps, leak)).toBe(a);
  });
  it("leaves what is not growth alone", () => {
    const a: Assessment = { ...growing(80 * MB), shape: "plateau" };
    expect(withoutImports(a, ps, anon)).toBe(a);
  });
  it("with too little after the imports, says so with the shape rules' reason", () => {
    const short = new Column();
    for (let t = 0; t <= 70; t++) short.push(t, (37.5 + Math.min(t, 60)) * MB);
    const early = assess(short, 60, 0);
    expect(early.shape).toBe("insufficient");
    const r = withoutImports(growing(80 * MB), ps, short);
    expect(r.shape).toBe("insufficient");
    expect(r.reason).toBe(
      `still importing: 55 modules loaded in the window (400 now), the last at 60 s; memory grown while importing is start-up — ${early.reason}`,
    );
  });
});

/**
 * Without the agent's module count, the import read off /proc (lastLibraryLoad): the file pages of a process that
 * grew 20 MiB of them from 5 to 10 s and held them, the files it maps shared objects or a data file.
 */
describe("lastLibraryLoad and withoutImports without a module count", () => {
  const file = counts(30, (t) => (10 + 4 * Math.min(5, Math.max(0, t - 5))) * MB);
  const mapped = (paths: [string, number][]) => new Map(paths.map(([path, rss]) => [path, { path, rss }]));
  const child = (files: Map<string, { path: string; rss: number }>, fileCol = file) =>
    ({ agent: {}, firstSeen: 0, files, metrics: { file: fileCol } }) as unknown as ProcessSeries;
  const libraries = mapped([
    ["/usr/lib/libtorch_cpu.so.1.13", 24 * MB],
    ["/usr/lib/libgomp.so.1", 1 * MB],
    ["/data/model.bin", 2 * MB],
  ]);

  it("16 MiB of file pages within 10 s, mostly shared objects, is an import ending where the rise ends", () => {
    expect(lastLibraryLoad(child(libraries), 0)).toEqual({ at: 10, rose: 20 * MB });
    const slow = counts(30, (t) => (10 + 1.4 * t) * MB); // 15.4 MiB in any 11 s (from the reading before the 10 s)
    expect(lastLibraryLoad(child(libraries, slow), 0)).toBeUndefined();
  });

  it("a data file read page by page is no import, whatever its pages did", () => {
    const data = mapped([
      ["/data/model.bin", 30 * MB],
      ["/usr/lib/libtorch_cpu.so.1.13", 24 * MB],
    ]);
    expect(lastLibraryLoad(child(data), 0)).toBeUndefined();
  });

  it("the child's anon rose with its libraries, then it stopped: still loading, said with its files", () => {
    const anon = counts(12, (t) => (7 + 9 * Math.min(t, 10)) * MB);
    const a: Assessment = { ...assess(anon, 0), shape: "growing" };
    // File pages up 9 MiB a second with anon: what the libraries paged in accounts for the growth.
    const files = counts(12, (t) => (10 + 9 * Math.min(t, 10)) * MB);
    const r = withoutImports(a, child(libraries, files), anon);
    expect(r.shape).toBe("insufficient");
    expect(r.reason).toMatch(
      /^still loading its libraries: resident file pages up 90\.0 MiB in the 10 s before 10 s \(\/usr\/lib\/libtorch_cpu\.so\.1\.13 \(24\.0 MiB resident\)\); memory grown while importing is start-up — /,
    );
    // The same rise of anon with 20 MiB of libraries paged in: they do not account for it, the trend stays.
    const few = counts(12, (t) => (10 + 4 * Math.min(5, Math.max(0, t - 5))) * MB);
    expect(withoutImports(a, child(libraries, few), anon)).toBe(a);
  });
});

describe("a late burst does not undo a leak that grew before it", () => {
  it("a leak of 1 MiB/s for 60 s, then 20 MiB of libraries paged in over its last 5 s: still growth", () => {
    const anon = counts(60, (t) => (50 + t) * MB);
    const file = counts(60, (t) => (10 + 4 * Math.min(5, Math.max(0, t - 55))) * MB);
    const files = new Map([["/usr/lib/libtorch_cpu.so.1.13", { path: "/usr/lib/libtorch_cpu.so.1.13", rss: 30 * MB }]]);
    const ps = { agent: {}, firstSeen: 0, files, metrics: { file } } as unknown as ProcessSeries;
    expect(lastLibraryLoad(ps, 0)).toEqual({ at: 60, rose: 20 * MB });
    const a: Assessment = { ...assess(anon, 0), shape: "growing" };
    expect(withoutImports(a, ps, anon)).toBe(a);
  });
});
