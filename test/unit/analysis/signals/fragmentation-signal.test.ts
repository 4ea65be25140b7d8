/**
 * signals/fragmentation.ts `retention` on agent columns built by hand, pinned by exact values: what it counts as live
 * and held, each threshold at exactly its value (inside) and one byte past it, and where the trim probe is read from.
 * Six points per column, so each level is the median of three (assess.ts `levels`). Through the whole engine:
 * rules/fragmentation.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../../src/series/column.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import { retention } from "../../../../src/analysis/signals/fragmentation.js";

const MB = 2 ** 20;
const col = (ys: number[]) => {
  const c = new Column();
  ys.forEach((y, i) => c.push(i, y));
  return c;
};
const flat = (v: number, n = 6) => col(Array.from({ length: n }, () => v));
/** Three points at `a`, three at `b`. */
const step = (a: number, b: number) => col([a, a, a, b, b, b]);

interface Agent {
  anon?: Column;
  rss?: Column;
  inUse?: Column;
  free?: Column;
  blocks?: Column;
  arenas?: Column;
  trimBefore?: Column;
  trimAfter?: Column;
  allocator?: string;
}
const proc = (a: Agent) =>
  ({
    metrics: { ...(a.anon && { anon: a.anon }), ...(a.rss && { rss: a.rss }) },
    agent: {
      ...(a.inUse && { "malloc.inUse": a.inUse }),
      ...(a.free && { "malloc.free": a.free }),
      ...(a.blocks && { "py.allocatedBlocks": a.blocks }),
      ...(a.arenas && { "malloc.arenas": a.arenas }),
      ...(a.trimBefore && { "trim.anonBefore": a.trimBefore }),
      ...(a.trimAfter && { "trim.anonAfter": a.trimAfter }),
    },
    agentText: a.allocator ? { "malloc.allocator": a.allocator } : {},
  }) as unknown as ProcessSeries;
const trim = (anonBefore: number, anonAfter: number) => ({
  type: "trim" as const,
  pid: 1,
  t: 5,
  anonBefore,
  anonAfter,
});

describe("retention: what it measures", () => {
  it("live is malloc's in-use bytes plus the Python blocks at 64 B; held is the rest of anon", () => {
    const r = retention(
      proc({
        anon: flat(400 * MB),
        inUse: step(80 * MB, 100 * MB),
        free: flat(280 * MB),
        blocks: flat(10_000),
        arenas: col([2, 2, 2, 3, 3, 4]),
      }),
    );
    const live = 100 * MB + 640_000;
    expect(r).toEqual({
      anon: 400 * MB,
      live,
      mallocInUse: 100 * MB,
      mallocFree: 280 * MB,
      held: 400 * MB - live,
      heldShare: (400 * MB - live) / (400 * MB),
      liveGrowth: 20 * MB,
      arenas: 4,
      trimmed: undefined,
      decided: true,
      readings: 6,
    });
  });

  it("RSS stands in for anon; without free bytes or blocks they count 0", () => {
    const r = retention(proc({ rss: flat(400 * MB), inUse: flat(100 * MB) }))!;
    expect(r).toMatchObject({ anon: 400 * MB, live: 100 * MB, mallocFree: 0, held: 300 * MB, arenas: undefined });
    // nothing free: the 300 MiB not counted by malloc is live memory it does not see, not retention
    expect(r.decided).toBe(false);
  });

  it("a process with no anon has a held share of 0", () => {
    expect(retention(proc({ anon: flat(0), inUse: flat(10 * MB) }))?.heldShare).toBe(0);
  });

  it("nothing to judge without anon, or without malloc's numbers and a trim", () => {
    expect(retention(proc({ inUse: flat(100 * MB) }))).toBeUndefined();
    expect(retention(proc({ anon: new Column(), inUse: flat(100 * MB) }))).toBeUndefined();
    expect(retention(proc({ anon: flat(400 * MB) }))).toBeUndefined();
    expect(retention(proc({ anon: flat(400 * MB), inUse: new Column() }))).toBeUndefined();
    expect(retention(proc({ anon: flat(400 * MB), inUse: new Column() }), trim(400 * MB, 100 * MB))).toBeDefined();
  });

  it("under another allocator malloc's in-use bytes are glibc's from before an exec: not read", () => {
    const jemalloc = { anon: flat(400 * MB), inUse: flat(100 * MB), free: flat(280 * MB), allocator: "jemalloc" };
    expect(retention(proc(jemalloc))).toBeUndefined();
    const r = retention(proc(jemalloc), trim(400 * MB, 100 * MB))!;
    expect(r.mallocInUse).toBeNaN();
    expect(r.liveGrowth).toBeNaN();
    expect(retention(proc({ ...jemalloc, allocator: "glibc" }))?.decided).toBe(true);
  });
});

describe("retention: the held thresholds, each exactly at its value", () => {
  // anon 400 MiB; live and free set so that one threshold sits exactly on its line, the others well inside
  const judge = (inUse: number, free: number, anon = 400 * MB) =>
    retention(proc({ anon: flat(anon), inUse: flat(inUse), free: flat(free) }))!.decided;

  it("held ≥ 50% of anon", () => {
    expect(judge(200 * MB, 200 * MB)).toBe(true);
    expect(judge(200 * MB + 1, 200 * MB)).toBe(false);
  });
  it("held ≥ 64 MiB", () => {
    expect(judge(36 * MB, 64 * MB, 100 * MB)).toBe(true);
    expect(judge(36 * MB + 1, 64 * MB, 100 * MB)).toBe(false);
  });
  it("malloc's free bytes ≥ half of held", () => {
    expect(judge(100 * MB, 150 * MB)).toBe(true);
    expect(judge(100 * MB, 150 * MB - 1)).toBe(false);
  });
  it("counts malloc's reports as readings", () => {
    expect(retention(proc({ anon: flat(400 * MB), inUse: flat(100 * MB, 4), free: flat(300 * MB, 4) }))).toMatchObject({
      decided: true,
      readings: 4,
    });
  });
});

describe("retention: the trim probe", () => {
  const byTrim = (before: number, after: number, anon = before) =>
    retention(proc({ anon: flat(anon), blocks: flat(10) }), trim(before, after));

  it("≥ 30% of what was held during the watch, exactly 30% included; a proof that counts as enough readings", () => {
    expect(byTrim(400 * MB, 280 * MB)).toMatchObject({ trimmed: 120 * MB, decided: true, readings: Infinity });
    expect(byTrim(400 * MB, 280 * MB + 1)).toMatchObject({ decided: false, readings: 0 });
  });
  it("≥ 32 MiB, exactly 32 included", () => {
    expect(byTrim(100 * MB, 68 * MB)?.decided).toBe(true);
    expect(byTrim(100 * MB, 68 * MB + 1)?.decided).toBe(false);
  });
  it("against the larger of anon before the trim and the watch's level", () => {
    // 120 MiB back: 30% of 400 (anon before the trim), 24% of a 500 MiB watch
    expect(byTrim(400 * MB, 280 * MB, 500 * MB)?.decided).toBe(false);
    // 60 MiB back of 100 MiB before the trim, on a 200 MiB watch: exactly 30%
    expect(byTrim(100 * MB, 40 * MB, 200 * MB)?.decided).toBe(true);
    expect(byTrim(100 * MB, 40 * MB + 1, 200 * MB)?.decided).toBe(false);
    // anon before the trim above the watch's level: 100 of 400 MiB is 25%, though it is all of the 100 MiB level
    expect(byTrim(400 * MB, 300 * MB, 100 * MB)?.decided).toBe(false);
  });
  it("read from the agent's last trim readings when the results have none; the results' own win", () => {
    const p = proc({
      anon: flat(400 * MB),
      blocks: flat(10),
      trimBefore: col([1, 400 * MB]),
      trimAfter: col([1, 200 * MB]),
    });
    expect(retention(p)).toMatchObject({ trimmed: 200 * MB, decided: true });
    expect(retention(p, trim(400 * MB, 390 * MB))).toMatchObject({ trimmed: 10 * MB, decided: false });
    // only one half of the probe, either half: no trim
    expect(retention(proc({ anon: flat(400 * MB), inUse: flat(10), trimAfter: flat(100 * MB) }))?.trimmed).toBe(
      undefined,
    );
    expect(retention(proc({ anon: flat(400 * MB), inUse: flat(10), trimBefore: flat(400 * MB) }))?.trimmed).toBe(
      undefined,
    );
  });
});
