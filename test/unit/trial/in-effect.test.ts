import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { environHas, mapsHasLibrary, trimsSeen } from "../../../src/trial/in-effect.js";
import { Column } from "../../../src/series/column.js";
import type { ProcessSeries, SeriesSet } from "../../../src/series/series.js";

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/trials/${name}`, import.meta.url), "latin1");
const JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

describe("mapsHasLibrary: a preloaded allocator in /proc/PID/maps", () => {
  it("finds jemalloc in a preloaded Python's maps, and not in a plain one's", () => {
    expect(mapsHasLibrary(fixture("maps.jemalloc.txt"), JEMALLOC)).toBe(true);
    expect(mapsHasLibrary(fixture("maps.glibc.txt"), JEMALLOC)).toBe(false);
  });

  it("matches by file name where the path differs (a link, another directory), never a part of a name", () => {
    const line = "7f00-7f10 r-xp 00000000 08:01 1234 /lib/x86_64-linux-gnu/libjemalloc.so.2\n";
    expect(mapsHasLibrary(line, JEMALLOC)).toBe(true);
    expect(mapsHasLibrary("7f00-7f10 r-xp 00000000 08:01 1234 /opt/libjemalloc.so.2.bak\n", JEMALLOC)).toBe(false);
    expect(mapsHasLibrary("7f00-7f10 rw-p 00000000 00:00 0 [heap]\n", JEMALLOC)).toBe(false);
  });
});

describe("environHas: a variable in /proc/PID/environ", () => {
  it("finds NAME=value exactly, not a longer value or another name", () => {
    const environ = fixture("environ.arena-max.bin");
    expect(environHas(environ, "MALLOC_ARENA_MAX", "2")).toBe(true);
    expect(environHas(environ, "MALLOC_ARENA_MAX", "20")).toBe(false);
    expect(environHas(environ, "MALLOC_ARENA", "MAX=2")).toBe(false);
    expect(environHas(environ, "LD_PRELOAD", JEMALLOC)).toBe(true);
  });
});

describe("trimsSeen: the agent's malloc_trim calls", () => {
  const set = (trims: Record<number, number[]>) =>
    ({
      processes: new Map(
        Object.entries(trims).map(([pid, ys]) => {
          const c = new Column();
          ys.forEach((y, i) => c.push(i, y));
          return [pid, { pid: Number(pid), agent: { "malloc.trims": c } } as unknown as ProcessSeries];
        }),
      ),
    }) as unknown as SeriesSet;

  it("says the most calls of any process, and why there were none", () => {
    expect(trimsSeen(set({ 10: [0, 1, 2], 11: [0, 4] }))).toEqual({ seen: true, how: "4 malloc_trim calls in PID 11" });
    expect(trimsSeen(set({ 10: [0, 1] }))).toEqual({ seen: true, how: "1 malloc_trim call in PID 10" });
    const none = trimsSeen(set({ 10: [0, 0] }));
    expect(none.seen).toBe(false);
    expect(none).toMatchObject({ why: expect.stringContaining("no agent reported a malloc_trim call") });
  });
});
