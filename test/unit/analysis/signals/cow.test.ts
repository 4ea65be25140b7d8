/**
 * Boundaries of the copy-on-write rule, signals/cow.ts: a forked worker's USS grows by ≥ max(8 MiB, 5% of its RSS,
 * the growth floor) while its anon and its RSS grow by ≤ 20% of that, and a relative it shares pages with is alive.
 * Below it the worker is stable (or a plateau, when its own anon grew).
 */
import { describe, expect, it } from "vitest";
import type { SynthProcess } from "../../../helpers/synthetic-samples.js";
import { fill, flat, judge, MB, processFinding, type Row, type Series } from "./judge.js";

interface Worker {
  anon: number;
  /** USS growth over the worker's life, bytes. */
  copied: number;
  anonGrowth?: number;
  /** File pages: change over the worker's life (its RSS moves with them). */
  fileChange?: number;
  parentLives?: [number, number];
}

/** A parent flat at 260 MiB and one forked worker (pid 101) whose USS rises as it copies the parent's pages. */
function forked(w: Worker) {
  const parent: SynthProcess = {
    pid: 100,
    ppid: 1,
    anon: flat(260 * MB),
    ...(w.parentLives && { lives: w.parentLives }),
  };
  const anon: Series = w.anonGrowth ? fill(w.anon, w.anonGrowth, 200) : flat(w.anon, 0.1 * MB);
  const worker: SynthProcess = {
    pid: 101,
    ppid: 100,
    anon,
    uss: fill(5 * MB, w.copied, 200),
    ...(w.fileChange !== undefined && { file: fill(30 * MB, w.fileChange, 200, 0.05 * MB) }),
  };
  return { seconds: 300, processes: [parent, worker] };
}

const ROWS: Row[] = [
  // 8 MiB: on a 60 MiB worker (RSS 90 MiB: 5% is 4.5 MiB, the growth floor 2 MiB) the byte floor decides
  ["a 60 MiB worker copies 7 MiB", "stable", forked({ anon: 60 * MB, copied: 7 * MB })],
  ["a 60 MiB worker copies 9.5 MiB", "cow", forked({ anon: 60 * MB, copied: 9.5 * MB })],
  // 5% of RSS: on a 400 MiB worker (RSS 430 MiB: 21.5 MiB) the share decides
  ["a 400 MiB worker copies 19 MiB (4.4% of its RSS)", "stable", forked({ anon: 400 * MB, copied: 19 * MB })],
  ["a 400 MiB worker copies 24 MiB (5.6% of its RSS)", "cow", forked({ anon: 400 * MB, copied: 24 * MB })],
  // resident (anon) growth ≤ 20% of the USS growth; the file pages shrink by as much, so RSS alone stays flat
  [
    "USS +40 MiB, anon +6 MiB (15%), RSS flat",
    "cow",
    forked({ anon: 260 * MB, copied: 40 * MB, anonGrowth: 6 * MB, fileChange: -6 * MB }),
  ],
  // over 20%, the copied part is USS growth − anon growth, when the shared pages fell by as much (they do here):
  // 30 MiB copied beside 10 MiB of its own (issue 27: a state beside a trend)
  [
    "USS +40 MiB, anon +10 MiB (25%), RSS flat, shared −40 MiB",
    "cow",
    forked({ anon: 260 * MB, copied: 40 * MB, anonGrowth: 10 * MB, fileChange: -10 * MB }),
  ],
  // RSS growth ≤ 20% too: libraries loaded raise USS (private file pages) and RSS, not anon
  [
    "USS +40 MiB, anon flat, RSS +6 MiB of file pages (15%)",
    "cow",
    forked({ anon: 260 * MB, copied: 40 * MB, fileChange: 6 * MB }),
  ],
  [
    "USS +40 MiB, anon flat, RSS +10 MiB of file pages (25%)",
    "stable",
    forked({ anon: 260 * MB, copied: 40 * MB, fileChange: 10 * MB }),
  ],
  // a relative alive at the worker's last sample: within 1.5 sample intervals of it
  [
    "the parent's last sample is one interval before the worker's",
    "cow",
    forked({ anon: 260 * MB, copied: 40 * MB, parentLives: [0, 299] }),
  ],
  [
    "the parent's last sample is two intervals before the worker's (its pages became the worker's own)",
    "stable",
    forked({ anon: 260 * MB, copied: 40 * MB, parentLives: [0, 298] }),
  ],
];

describe("copy-on-write boundaries", () => {
  it.each(ROWS)("%s → %s", (_name, kind, sc, options) => {
    expect(processFinding(judge(sc, options), 101).kind).toBe(kind);
  });

  it("the root copies too: a parent whose USS rises while its forked children live", () => {
    const sc = {
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: flat(260 * MB, 0.1 * MB), uss: fill(100 * MB, 40 * MB, 200) },
        { pid: 101, ppid: 100, anon: flat(260 * MB) },
      ],
    };
    const f = processFinding(judge(sc), 100);
    expect(f.kind).toBe("cow");
    expect(f.summary).toMatch(/copy-on-write of pages shared with its forked children/);
  });

  it("reports the copying, what stayed resident, and the parent's anon as its bound", () => {
    const f = processFinding(judge(forked({ anon: 260 * MB, copied: 40 * MB })), 101);
    // levels are medians of the first and last tenths: the first tenth is 30 s into the 200 s ramp
    expect(Number(f.evidence.growth)).toBeGreaterThan(36 * MB);
    expect(Number(f.evidence.growth)).toBeLessThan(40 * MB);
    expect(Math.abs(Number(f.evidence.residentGrowth))).toBeLessThan(1 * MB);
    expect(f.summary).toMatch(
      /private memory \(USS\) 7.\d+ MiB → 45.0 MiB while RSS stays flat: copy-on-write of pages shared with its parent, bounded by 26\d MiB/,
    );
    expect(f.metric).toBe("uss");
  });
});
