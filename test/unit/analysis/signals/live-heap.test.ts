/**
 * The live heap (signals/live-heap.ts) on agent columns built by hand: what it sums, when it is a leak of its own
 * (growing, its lows rising by half its growth), and when anon's growth is the allocators settling (the live heap
 * flat or falling, its lows still, its swing — or the growth of malloc's free bytes — covering anon's growth). Through the whole engine: several-causes.test.ts
 * and gc-backlog.test.ts.
 */
import { describe, expect, it } from "vitest";
import { assess, type Assessment } from "../../../../src/analysis/assess.js";
import { Column } from "../../../../src/series/column.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import {
  afterFreedBurst,
  allocatorSettling,
  liveHeapColumn,
  liveHeapLeak,
} from "../../../../src/analysis/signals/live-heap.js";

const MB = 2 ** 20;
const column = (seconds: number, y: (t: number) => number) => {
  const c = new Column();
  for (let t = 0; t < seconds; t++) c.push(t, y(t));
  return c;
};
const process = (
  inUse: Column | undefined,
  extra: { blocks?: Column; free?: Column; allocator?: string; firstSeen?: number } = {},
) =>
  ({
    agent: {
      ...(inUse && { "malloc.inUse": inUse }),
      ...(extra.blocks && { "py.allocatedBlocks": extra.blocks }),
      ...(extra.free && { "malloc.free": extra.free }),
    },
    agentText: extra.allocator ? { "malloc.allocator": extra.allocator } : {},
    firstSeen: extra.firstSeen ?? 0,
  }) as unknown as ProcessSeries;

describe("liveHeapColumn", () => {
  it("malloc's in-use bytes plus the blocks at their size, none where a report had no blocks", () => {
    const blocks = new Column();
    blocks.push(0, 10);
    blocks.push(2, 30);
    const col = liveHeapColumn(
      process(
        column(3, (t) => 1000 * (t + 1)),
        { blocks },
      ),
      64,
    )!;
    expect([...col.xs]).toEqual([0, 1, 2]);
    expect([...col.ys]).toEqual([1000 + 640, 2000, 3000 + 1920]);
  });
  it("nothing under another allocator, or without malloc's numbers", () => {
    expect(
      liveHeapColumn(
        process(
          column(3, () => 1000),
          { allocator: "jemalloc" },
        ),
      ),
    ).toBeUndefined();
    expect(
      liveHeapColumn(
        process(
          column(3, () => 1000),
          { allocator: "glibc" },
        ),
      ),
    ).toBeDefined();
    expect(liveHeapColumn(process(new Column()))).toBeUndefined();
    expect(liveHeapColumn(process(undefined))).toBeUndefined();
  });
});

describe("liveHeapLeak", () => {
  it("a steady climb is a leak, judged from the window's start", () => {
    const a = liveHeapLeak(process(column(300, (t) => 20 * MB + (t < 150 ? 0 : (t - 150) * 0.2 * MB))), 150)!;
    expect(a.shape).toBe("growing");
    expect(a.from).toBeGreaterThanOrEqual(150);
  });
  it("medians that climb over lows that rise by under half as much are not", () => {
    // every other reading climbs 40 MiB, the rest 8 MiB: the medians rise ~24 MiB, the lows ~5
    const col = column(300, (t) => 20 * MB + (t % 2 === 0 ? 8 : 40) * MB * (t / 300));
    expect(assess(col, 0).shape).toBe("growing");
    expect(liveHeapLeak(process(col), 0)).toBeUndefined();
  });
  it("none without the live heap", () => expect(liveHeapLeak(process(undefined), 0)).toBeUndefined());

  // frag_and_leak on a busy CI machine: 450 MB of buffers built over 14 s (in 1 s on a quiet one) and freed, then
  // 1 MB/s kept for 26 s. The burst's seconds in the window hid the climb after it from the trend test (fragmentation
  // alone, in one CI run in three): the leak is judged from the low after the burst was freed.
  const burstThenLeak = (burstSeconds: number) =>
    column(42, (t) =>
      t < 1
        ? 5 * MB
        : t < 1 + burstSeconds
          ? (5 + (450 * (t - 1)) / burstSeconds) * MB
          : (15 + (t - 1 - burstSeconds)) * MB,
    );
  it.each([1, 6, 14])("a leak after a %d s burst that was freed is judged from the low after it", (burstSeconds) => {
    const a = liveHeapLeak(process(burstThenLeak(burstSeconds)), 0);
    expect(a?.shape).toBe("growing");
    expect(a!.from).toBeGreaterThanOrEqual(1 + burstSeconds);
    expect(a!.rate.bytesPerSecond).toBeGreaterThan(0.9 * MB);
    expect(a!.rate.bytesPerSecond).toBeLessThan(1.1 * MB);
  });
  it("swings that come back to their peak are churn, not a burst: judged from the window's start", () => {
    // 100 MB temporaries every 5 s over a leak of 0.2 MB/s (swing_leak's shape)
    const swings = column(60, (t) => (5 + 0.2 * t + (t % 5 === 0 ? 100 - t / 2 : 0)) * MB);
    expect(afterFreedBurst(swings, 0)).toBe(0);
  });
  it("a burst freed and nothing kept after it is no leak", () => {
    const flatAfter = column(42, (t) => (t >= 1 && t < 15 ? 450 * MB : 15 * MB));
    expect(liveHeapLeak(process(flatAfter), 0)).toBeUndefined();
  });
});

describe("allocatorSettling", () => {
  /** A GC sawtooth: 10 → 40 MiB every 10 s, over `seconds`, on `base(t)`. */
  const sawtooth = (seconds: number, base: (t: number) => number = () => 0) =>
    column(seconds, (t) => base(t) + (10 + 3 * (t % 10)) * MB);
  const anonGrew = (growth: number, from = 0): Assessment => ({ shape: "growing", from, growth }) as Assessment;

  it("anon up 16 MiB while the live heap swings 27 MiB about a flat course: settling", () => {
    const s = allocatorSettling(process(sawtooth(300)), anonGrew(16 * MB))!;
    expect(s.growth).toBe(16 * MB);
    expect(Math.abs(s.liveGrowth)).toBeLessThan(1 * MB);
    expect(s.swing).toBeGreaterThan(20 * MB);
    expect(s.swing).toBeLessThan(30 * MB);
  });
  it("…and while it falls", () => {
    expect(allocatorSettling(process(sawtooth(300, (t) => 20 * MB - t * 0.05 * MB)), anonGrew(16 * MB))).toBeDefined();
  });
  it("still settling when its lows and highs rise by less than a quarter of anon's growth", () => {
    // 2 MiB over the window under a 16 MiB rise of anon: an eighth, which a churn that settles may drift by.
    const s = allocatorSettling(process(sawtooth(300, (t) => (t / 300) * 2 * MB)), anonGrew(16 * MB))!;
    expect(s).toBeDefined();
    expect(s.liveGrowth).toBeGreaterThan(1 * MB);
    expect(s.liveGrowth).toBeLessThan(4 * MB);
  });
  it("not when anon grew by more than the swing", () =>
    expect(allocatorSettling(process(sawtooth(300)), anonGrew(40 * MB))).toBeUndefined());
  it("not when the live heap's lows rise by a quarter of anon's growth", () => {
    expect(allocatorSettling(process(sawtooth(300, (t) => (t < 150 ? 0 : 6 * MB))), anonGrew(16 * MB))).toBeUndefined();
  });
  it("not when the live heap's highs climb, even if it falls at the end: a leak freed as its thread returns", () => {
    // holder.test's thread leak (fixtures/holder/leak_through.py thread): 30,000 small blocks a second for 32 s, all
    // freed as the thread returns, read by the last two reports before the program exits; anon rose 23 MiB and stays.
    // Counted at 512 bytes the one cliff is a ~180 MiB swing; the lows of the last third fall.
    const blocks = column(34, (t) => (t < 32 ? 40_000 + 30_000 * t : 20_000));
    const p = process(
      column(34, () => 3 * MB),
      { blocks },
    );
    expect(allocatorSettling(p, anonGrew(23 * MB))).toBeUndefined();
  });
  it("not for anon that did not grow", () => {
    expect(allocatorSettling(process(sawtooth(300)), { ...anonGrew(16 * MB), shape: "plateau" })).toBeUndefined();
    expect(allocatorSettling(process(sawtooth(300)), anonGrew(0))).toBeUndefined();
  });
  it("not without the live heap", () =>
    expect(allocatorSettling(process(undefined), anonGrew(16 * MB))).toBeUndefined());

  // A fixed PyTorch loop (fixtures/scenarios/torch_loader_item.py under run beside a busy loop): each step builds and
  // frees its batch between two readings, so the live heap neither grows nor swings, while anon rose 2.86 MiB over 20 s
  // and malloc's free bytes 2.35 MiB. Its in-use bytes wobble by a few KiB.
  const steady = column(26, (t) => 67 * MB + ((t * 7919) % 13) * 4096);
  const freeFrom = (mib: number, perSecond: number) => column(26, (t) => (mib + perSecond * t) * MB);
  it("anon up 3 MiB with the live heap flat and no swing, malloc keeping 2.3 MiB more free: settling, said so", () => {
    const s = allocatorSettling(process(steady, { free: freeFrom(2, 0.12) }), anonGrew(3 * MB, 6))!;
    expect(s.swing).toBeLessThan(0.1 * MB);
    expect(s.freedKept).toBeGreaterThan(2 * MB);
    expect(s.freedKept).toBeLessThan(2.6 * MB);
  });
  it("not when malloc's free bytes grew by under half of anon's growth: the rest is outside malloc's heap", () =>
    expect(allocatorSettling(process(steady, { free: freeFrom(2, 0.05) }), anonGrew(3 * MB, 6))).toBeUndefined());
  it("not when anon rose by over a tenth of the live heap: kept objects pinning freed memory grow it too", () => {
    // 0.45 MiB/s of free bytes over 20 s against a 67 MiB live heap: anon's 9 MiB rise is 13% of it.
    expect(allocatorSettling(process(steady, { free: freeFrom(2, 0.45) }), anonGrew(9 * MB, 6))).toBeUndefined();
    // …and 6 MiB is 9%: still settling.
    expect(allocatorSettling(process(steady, { free: freeFrom(2, 0.3) }), anonGrew(6 * MB, 6))).toBeDefined();
  });
  it("not without malloc's free bytes", () =>
    expect(allocatorSettling(process(steady), anonGrew(3 * MB, 6))).toBeUndefined());
  it("not when the live heap grows beside them", () => {
    const growing = column(26, (t) => 67 * MB + t * 0.1 * MB);
    expect(allocatorSettling(process(growing, { free: freeFrom(2, 0.12) }), anonGrew(3 * MB, 6))).toBeUndefined();
  });
  // The same loop beside a DataLoader test (fixtures/cuts/kept_losses_fixed.run-20s-beside-dataloader.jsonl): the
  // readings caught a step's temporaries alive now and then, more of them late in the run, so the live heap's highs
  // climbed 0.7 MiB — over a quarter of anon's 2.5 MiB, all of which was malloc's free bytes.
  const caught = (every: number, from: number) =>
    column(26, (t) => 67 * MB + (t >= from && t % every === 0 ? 0.75 * MB : 0));
  it("still settling when the highs climb by less than anon did, malloc's free bytes covering its rise", () => {
    const s = allocatorSettling(process(caught(2, 17), { free: freeFrom(2, 0.12) }), anonGrew(2.5 * MB, 6))!;
    expect(s).toBeDefined();
    expect(s.freedKept).toBeGreaterThan(2 * MB);
  });
  it("not when the highs climb by as much as anon grew: the live heap's peak rose by what anon kept", () => {
    const peak = column(26, (t) => 67 * MB + (t >= 17 && t % 2 === 0 ? 3 * MB : 0));
    expect(allocatorSettling(process(peak, { free: freeFrom(2, 0.12) }), anonGrew(2.5 * MB, 6))).toBeUndefined();
  });
  it("a swing, without malloc's free bytes to say where anon went, still needs the highs still", () => {
    expect(allocatorSettling(process(caught(2, 17)), anonGrew(0.5 * MB, 6))).toBeUndefined();
  });
});
