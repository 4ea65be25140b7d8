/**
 * Boundaries of the fragmentation (allocator retention) rule, signals/fragmentation.ts: each threshold gets a case
 * just inside and one just outside it, all else comfortably on the deciding side.
 *   held = anon − (malloc in use + Python blocks × 64 B); retention when held ≥ 64 MiB, ≥ 50% of anon, and malloc's
 *   free bytes cover ≥ 50% of held — or the trim probe gives back ≥ 30% of anon (and ≥ 32 MiB).
 *   A process whose malloc in-use bytes grow by ≥ 25% of its anon growth is a leak, not retention.
 */
import { describe, expect, it } from "vitest";
import type { AgentResults } from "../../../../src/analysis/context.js";
import { alone, fill, flat, judge, linear, MB, processFinding, type Row } from "./judge.js";

/** A process flat at `anon` whose agent reports malloc in use, malloc free and small-object blocks. */
function held(anon: number, inUse: number, free: number, blocks = 0) {
  return alone({
    anon: flat(anon),
    agent: () => ({ malloc: { inUse, free, arenas: 4 }, py: { allocatedBlocks: blocks } }),
  });
}

/** A process flat at `anon` with no malloc numbers, only the trim probe's before/after. */
function trimmed(
  anonBefore: number,
  anonAfter: number,
  watched = anonBefore,
): [ReturnType<typeof alone>, { agentResults: AgentResults }] {
  const trims = new Map([[100, { type: "trim" as const, pid: 100, t: 299, anonBefore, anonAfter }]]);
  return [
    alone({ anon: flat(watched), agent: () => ({ py: { allocatedBlocks: 1000 } }) }),
    { agentResults: { traces: new Map(), trims } },
  ];
}

const ROWS: Row[] = [
  // held share of anon: 50%
  [
    "held 45% of anon (400 MiB anon, 220 in use, all of held free) → not retention",
    held(400 * MB, 220 * MB, 200 * MB),
    "stable",
  ],
  ["held 55% of anon (400 MiB anon, 180 in use) → retention", held(400 * MB, 180 * MB, 220 * MB), "fragmentation"],
  // held bytes: 64 MiB
  ["held 60 MiB (60% of a 100 MiB process) → too small to matter", held(100 * MB, 40 * MB, 60 * MB), "stable"],
  ["held 70 MiB (70% of a 100 MiB process) → retention", held(100 * MB, 30 * MB, 70 * MB), "fragmentation"],
  // malloc's free bytes must cover half of held
  [
    "malloc free covers 45% of the 300 MiB held → live memory malloc does not count",
    held(400 * MB, 100 * MB, 135 * MB),
    "stable",
  ],
  ["malloc free covers 55% of the 300 MiB held → retention", held(400 * MB, 100 * MB, 165 * MB), "fragmentation"],
  // small Python objects count as live at 64 bytes a block
  [
    "1.8M Python blocks (~110 MiB at 64 B) + 100 MiB in use of 400 → held 47%",
    held(400 * MB, 100 * MB, 200 * MB, 1_800_000),
    "stable",
  ],
  [
    "1.4M Python blocks (~85 MiB at 64 B) + 100 MiB in use of 400 → held 54%",
    held(400 * MB, 100 * MB, 200 * MB, 1_400_000),
    "fragmentation",
  ],
  // the trim probe: ≥ 30% of anon back, and ≥ 32 MiB
  ["trim gives back 28% (112 of 400 MiB)", ...trimmed(400 * MB, 288 * MB), "stable"],
  ["trim gives back 32% (128 of 400 MiB)", ...trimmed(400 * MB, 272 * MB), "fragmentation"],
  ["trim gives back 38% but only 30 MiB", ...trimmed(80 * MB, 50 * MB), "stable"],
  ["trim gives back 38% and 34 MiB", ...trimmed(90 * MB, 56 * MB), "fragmentation"],
  // … of what the process held during the watch, not of what was left at exit (a program that freed its data first)
  [
    "trim gives back 64 of the 75 MiB left at exit, 27% of the 240 MiB held",
    ...trimmed(75 * MB, 11 * MB, 240 * MB),
    "stable",
  ],
  [
    "trim gives back 64 of the 75 MiB left at exit, 32% of the 200 MiB held",
    ...trimmed(75 * MB, 11 * MB, 200 * MB),
    "fragmentation",
  ],
].map(([name, sc, a, b]) => (typeof a === "string" ? [name, a, sc] : [name, b, sc, a]) as Row);

describe("fragmentation boundaries", () => {
  it.each(ROWS)("%s → %s", (_name, kind, sc, options) => {
    expect(processFinding(judge(sc, options), 100).kind).toBe(kind);
  });

  it("growing anon with malloc's in-use bytes growing by 20% of it is retention; by 30%, a leak", () => {
    // anon 200 → 500 MiB over 300 s; malloc keeps most of it free either way (held is decided at the end)
    const grows = (liveShare: number) =>
      alone({
        anon: linear(200 * MB, 1 * MB),
        agent: (t) => ({ malloc: { inUse: 20 * MB + liveShare * t * MB, free: 350 * MB, arenas: 8 } }),
      });
    expect(processFinding(judge(grows(0.2), { warmup: 0 }), 100).kind).toBe("fragmentation");
    expect(processFinding(judge(grows(0.3), { warmup: 0 }), 100).kind).toBe("leak");
  });

  it("reads the trim probe from the agent's last samples too (how a live run gets it, before the results)", () => {
    const viaSamples = (after: number) =>
      alone({
        anon: flat(400 * MB),
        agent: (t) => ({
          py: { allocatedBlocks: 1000 },
          ...(t >= 295 && { trim: { anonBefore: 400 * MB, anonAfter: after } }),
        }),
      });
    expect(processFinding(judge(viaSamples(272 * MB)), 100).kind).toBe("fragmentation");
    expect(processFinding(judge(viaSamples(288 * MB)), 100).kind).toBe("stable");
    expect(processFinding(judge(viaSamples(272 * MB)), 100).evidence.trimReleasedBytes).toBe(128 * MB);
  });

  it("holds the level from before the trim probe, not the samples of its seconds-long give-back at exit", () => {
    // frag_burst beside two busy loops: 624 MiB for 20 s, then malloc_trim(0) at exit gave it back over the last
    // 4.5 s, and the end level (the last tenth's median) was 193 MiB: the probe's doing, not the program's level.
    const burst = alone(
      {
        anon: { shape: { kind: "step", at: 25.5, height: -544 * MB }, baseline: 624 * MB, noise: 0 },
        agent: () => ({ malloc: { inUse: 12 * MB, free: 600 * MB, arenas: 1 }, py: { allocatedBlocks: 1000 } }),
      },
      30,
    );
    const trims = new Map([
      [100, { type: "trim" as const, pid: 100, t: 30, anonBefore: 624 * MB, anonAfter: 66 * MB }],
    ]);
    const f = processFinding(judge(burst, { agentResults: { traces: new Map(), trims } }), 100);
    expect(f.kind).toBe("fragmentation");
    expect(f.evidence.anonBytes).toBe(624 * MB);
  });

  it("without malloc's numbers or a trim, there is nothing to judge retention on", () => {
    expect(
      processFinding(judge(alone({ anon: flat(600 * MB), agent: () => ({ py: { allocatedBlocks: 10 } }) })), 100).kind,
    ).toBe("stable");
  });

  it("is surer with the trim probe's proof (0.95) than from malloc's numbers alone (0.8)", () => {
    const [sc, options] = trimmed(400 * MB, 200 * MB);
    expect(processFinding(judge(sc, options), 100).confidence).toBe(0.95);
    expect(processFinding(judge(held(400 * MB, 50 * MB, 300 * MB)), 100).confidence).toBe(0.8);
  });

  it("says what it measured: anon, live, malloc's in use and free, held and its share, the arenas", () => {
    const f = processFinding(judge(held(400 * MB, 100 * MB, 280 * MB, 10_000)), 100);
    expect(f.evidence).toMatchObject({
      mallocInUseBytes: 100 * MB,
      mallocFreeBytes: 280 * MB,
      mallocArenas: 4,
      heldShare: 0.75,
    });
    expect(Number(f.evidence.liveBytes)).toBe(100 * MB + 10_000 * 64);
    expect(Math.abs(Number(f.evidence.anonBytes) - 400 * MB)).toBeLessThan(1 * MB);
    expect(f.summary).toMatch(
      /holds 400 MiB of anonymous memory, but only 101 MiB is live \(malloc: 100 MiB in use, 280 MiB free but kept\)/,
    );
  });

  it("without the agent's numbers there is no retention call, however much is held", () => {
    expect(processFinding(judge(alone({ anon: flat(600 * MB) })), 100).kind).toBe("stable");
  });

  it("a plateau that malloc holds free is retention, not a plateau", () => {
    const sc = alone({
      anon: fill(100 * MB, 300 * MB, 100),
      agent: () => ({ malloc: { inUse: 30 * MB, free: 350 * MB, arenas: 16 } }),
    });
    expect(processFinding(judge(sc), 100).kind).toBe("fragmentation");
  });
});

describe("retention is a state: judged on a window too short for a trend", () => {
  // 8 s at 1 Hz (the shape rules need 20 samples over 10 s): 600 MiB resident, 12 MiB in use, 580 MiB free but kept.
  const burst = (reports: number) =>
    alone(
      {
        anon: flat(600 * MB),
        agent: (t) => (t >= 8 - reports ? { malloc: { inUse: 12 * MB, free: 580 * MB, arenas: 1 } } : {}),
      },
      8,
    );
  it.each([
    [2, "insufficient-data"],
    [3, "fragmentation"],
  ])("%i agent reports → %s", (reports, kind) => {
    expect(processFinding(judge(burst(reports), { warmup: 0 }), 100).kind).toBe(kind);
  });
});
