/**
 * The time to the memory limit as a decision table: which findings get a countdown, towards which limit, counted on
 * what — and the projection's arithmetic and sentence.
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../../src/report/verdict.js";
import { buildSeries } from "../../../src/series/series.js";
import { projectToLimit } from "../../../src/analysis/time-to-limit.js";
import { rangeText, spanText, timeToLimitText } from "../../../src/report/wording/time-to-limit.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import type { Sample } from "../../../src/system/sample.js";
import { MB, synthesize, type SynthScenario } from "../../helpers/synthetic-samples.js";
import { generate } from "../../helpers/synthetic.js";

const GiB = 1024 * MB;

interface Limits {
  version?: 1 | 2;
  limit?: number | null;
  high?: number | null;
  memAvailable?: number;
}

function verdictOf(sc: SynthScenario, l: Limits): VerdictDocument {
  const samples: Sample[] = synthesize(sc).map((s) => ({
    ...s,
    ...(s.cgroup && { cgroup: { ...s.cgroup, limit: l.limit ?? null, ...(l.high !== undefined && { high: l.high }) } }),
    ...(l.memAvailable !== undefined && { machine: { memTotal: 24 * GiB, memAvailable: l.memAvailable } }),
  }));
  const set = buildSeries(samples);
  return classify({
    set,
    options: {},
    cgroup: sc.noCgroup ? undefined : { path: "/test", version: l.version ?? 1 },
    target: { pid: 100 },
  });
}

const one = (anon: SynthScenario["processes"][0]["anon"], extra: Partial<SynthScenario> = {}): SynthScenario => ({
  seconds: 300,
  processes: [{ pid: 100, ppid: 1, anon }],
  ...extra,
});

const leak = one({ shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 3 * MB });
const withCountdown = (d: VerdictDocument) => d.findings.filter((f) => f.timeToLimit);

describe("which findings count down, towards which limit", () => {
  // scenario, limits → the verdict's kind, the limit it counts down to (or none on any finding), what is counted
  const TABLE: [string, SynthScenario, Limits, string, string | undefined, string | undefined][] = [
    [
      "leak 1 MB/s under a 1 GiB limit (v1)",
      leak,
      { limit: 1 * GiB, memAvailable: 20 * GiB },
      "leak",
      "memory.limit_in_bytes",
      "anon + shmem + kernel",
    ],
    [
      "leak 1 MB/s under memory.max 1 GiB (v2)",
      leak,
      { version: 2, limit: 1 * GiB },
      "leak",
      "memory.max",
      "anon + shmem + kernel",
    ],
    [
      "memory.high 600 MiB below memory.max 1 GiB",
      leak,
      { version: 2, limit: 1 * GiB, high: 600 * MB },
      "leak",
      "memory.high",
      "anon + shmem + kernel",
    ],
    [
      "memory.high unset (max)",
      leak,
      { version: 2, limit: 1 * GiB, high: null },
      "leak",
      "memory.max",
      "anon + shmem + kernel",
    ],
    // The cgroup has no limit: the process's own anon is what it counts (the machine limits the process, not the cgroup).
    ["no limit: the machine's available memory", leak, { memAvailable: 2 * GiB }, "leak", "MemAvailable", "anon"],
    [
      "a machine nearer than the container limit",
      leak,
      { limit: 16 * GiB, memAvailable: 1 * GiB },
      "leak",
      "MemAvailable",
      "anon + shmem + kernel",
    ],
    [
      "no cgroup, no limit: the process's anon towards the machine",
      one(leak.processes[0]!.anon, { noCgroup: true }),
      { memAvailable: 2 * GiB },
      "leak",
      "MemAvailable",
      "anon",
    ],
    ["no limit and no machine reading (an old recording)", leak, {}, "leak", undefined, undefined],
    [
      "page cache grows under a limit, the process does not",
      one(
        { shape: { kind: "stable" }, noise: 1 * MB },
        { cache: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 0.5 * MB } },
      ),
      { limit: 1 * GiB, memAvailable: 20 * GiB },
      "cgroup-artefact",
      undefined,
      undefined,
    ],
    [
      "plateau under a limit",
      one({ shape: { kind: "plateau", level: 300 * MB, tau: 40 }, noise: 3 * MB }),
      { limit: 1 * GiB, memAvailable: 20 * GiB },
      "plateau",
      undefined,
      undefined,
    ],
    [
      "bounded fill under a limit",
      one({ shape: { kind: "fill", bytesPerSecond: 1 * MB, until: 100 }, noise: 3 * MB }),
      { limit: 1 * GiB, memAvailable: 20 * GiB },
      "plateau",
      undefined,
      undefined,
    ],
    [
      "stable under a limit",
      one({ shape: { kind: "stable" }, noise: 3 * MB }),
      { limit: 1 * GiB, memAvailable: 20 * GiB },
      "stable",
      undefined,
      undefined,
    ],
    [
      "shmem grows under a limit (tmpfs is not reclaimable)",
      one(
        { shape: { kind: "stable" }, noise: 1 * MB },
        { shmem: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 0.5 * MB } },
      ),
      { limit: 1 * GiB, memAvailable: 20 * GiB },
      "leak",
      "memory.limit_in_bytes",
      "anon + shmem + kernel",
    ],
  ];
  it.each(TABLE)("%s", (_name, sc, limits, kind, source, counted) => {
    const d = verdictOf(sc, limits);
    expect(d.verdict.kind).toBe(kind);
    if (source === undefined) {
      expect(withCountdown(d)).toEqual([]);
      return;
    }
    const t = d.verdict.timeToLimit!;
    expect(t.limit.source).toBe(source);
    expect(t.counted).toBe(counted);
    // Only leaks count down.
    for (const f of withCountdown(d)) expect(f.kind).toBe("leak");
  });

  it("a leak under a limit: the time is the headroom at the trend, and the range holds the truth", () => {
    const d = verdictOf(leak, { limit: 1 * GiB, memAvailable: 20 * GiB });
    const t = d.verdict.timeToLimit!;
    // 100 MB baseline + 10 MB kernel + 1 MB/s: at t = 299 s the counted memory is 409 MiB, 615 MiB from the limit.
    const truth = (1 * GiB - (110 * MB + 299 * MB)) / MB;
    expect(t.level / MB).toBeCloseTo(409, -1);
    expect(t.seconds).toBeCloseTo(truth, -1);
    expect(t.secondsMin).toBeLessThanOrEqual(truth);
    expect(t.secondsMax).toBeGreaterThanOrEqual(truth);
    expect(t.at).toBe(299);
    expect(t.atUnix).toBe(1_700_000_000 + 299);
    expect(t.summary).toMatch(
      /^container limit 1\.00 GiB, anon \+ shmem \+ kernel 40\d MiB, growing 1\.00 MiB\/s: ~10 min \(\d+(\.\d)?–\d+(\.\d)? min\)$/,
    );
  });

  it("memory.high nearer than memory.max says both", () => {
    const t = verdictOf(leak, { version: 2, limit: 1 * GiB, high: 600 * MB }).verdict.timeToLimit!;
    expect(t.otherLimits.map((l) => l.source)).toEqual(["memory.max"]);
    expect(t.summary).toMatch(
      /^container memory\.high 600 MiB \(reclaim and throttling from there; memory\.max 1\.00 GiB\), /,
    );
  });

  it("the process's leak carries the cgroup's countdown when the cgroup has a limit (the limit bounds the cgroup)", () => {
    const d = verdictOf(leak, { limit: 1 * GiB });
    expect(d.verdict.subject.type).toBe("process");
    expect(d.verdict.timeToLimit?.metric).toBe("cgroup-unreclaimable");
  });
});

describe("projectToLimit", () => {
  const line = (bytesPerSecond: number, noise: number, seconds = 300) =>
    generate({ seconds, hz: 1, baseline: 1 * GiB, noise, seed: 3, shape: { kind: "linear", bytesPerSecond } });

  it("no limit at all: no projection", () => {
    const s = line(2 * MB, 5 * MB);
    expect(
      projectToLimit({ xs: s.xs, ys: s.ys, from: 0, metric: "anon", counted: "anon", limits: [] }),
    ).toBeUndefined();
  });

  it("a falling or flat series: no projection, however near the limit", () => {
    for (const rate of [0, -1 * MB]) {
      const s = line(rate, 5 * MB);
      expect(
        projectToLimit({
          xs: s.xs,
          ys: s.ys,
          from: 0,
          metric: "anon",
          counted: "anon",
          limits: [{ kind: "container", source: "memory.max", bytes: 1.1 * GiB }],
        }),
      ).toBeUndefined();
    }
  });

  it("the nearest limit wins; the others are listed nearest first", () => {
    const s = line(2 * MB, 5 * MB);
    const t = projectToLimit({
      xs: s.xs,
      ys: s.ys,
      from: 0,
      metric: "anon",
      counted: "anon",
      limits: [
        { kind: "container", source: "memory.max", bytes: 4 * GiB },
        { kind: "container", source: "memory.high", bytes: 3 * GiB },
      ],
      machineAvailable: 10 * GiB,
    })!;
    expect(t.limit.source).toBe("memory.high");
    expect(t.otherLimits.map((l) => l.source)).toEqual(["memory.max", "MemAvailable"]);
    // 1 GiB + 2 MiB/s × 299 s = 1.58 GiB; 3 GiB is 1,450 MiB further: ~725 s.
    expect(t.seconds).toBeGreaterThan(700);
    expect(t.seconds).toBeLessThan(750);
    expect(t.secondsMin).toBeLessThanOrEqual(t.seconds);
    expect(t.secondsMax!).toBeGreaterThanOrEqual(t.seconds);
  });

  it("noisier growth gives a wider range around the same time", () => {
    const limits = [{ kind: "container" as const, source: "memory.max" as const, bytes: 3 * GiB }];
    const quiet = line(2 * MB, 2 * MB);
    const noisy = line(2 * MB, 60 * MB);
    const a = projectToLimit({ xs: quiet.xs, ys: quiet.ys, from: 0, metric: "anon", counted: "anon", limits })!;
    const b = projectToLimit({ xs: noisy.xs, ys: noisy.ys, from: 0, metric: "anon", counted: "anon", limits })!;
    expect(b.secondsMax! - b.secondsMin).toBeGreaterThan(3 * (a.secondsMax! - a.secondsMin));
  });

  it("temporaries riding above the trend: the OOM comes at a peak, and the range holds it", () => {
    // 2 MiB/s kept, and a sawtooth of temporaries 0–18 MiB above it every 10 s (a batch's working memory).
    const xs = Array.from({ length: 300 }, (_, i) => i);
    const ys = xs.map((x) => 1 * GiB + 2 * MB * x + (x % 10) * 2 * MB);
    const limit = 2 * GiB;
    const t = projectToLimit({
      xs,
      ys,
      from: 0,
      metric: "anon",
      counted: "anon",
      limits: [{ kind: "container", source: "memory.max", bytes: limit }],
    })!;
    // From the last reading (t = 299 s), when the line and when the peaks reach 2 GiB.
    const lineAt = (limit - 1 * GiB - 9 * MB) / (2 * MB) - 299;
    const peaksAt = (limit - 1 * GiB - 18 * MB) / (2 * MB) - 299;
    expect(t.swing / MB).toBeGreaterThan(7);
    expect(t.seconds).toBeLessThan(lineAt - 2);
    expect(t.secondsMin).toBeLessThanOrEqual(peaksAt);
    expect(t.secondsMax!).toBeGreaterThanOrEqual(peaksAt);
    expect(timeToLimitText(t)).toMatch(
      /^container limit 2\.00 GiB, anon 1\.\d+ GiB \(peaks \+\d+(\.\d+)? MiB\), growing 2\.00 MiB\/s: /,
    );
  });

  it("past the limit already (memory.high is soft): zero headroom, at the limit now", () => {
    const s = line(2 * MB, 5 * MB);
    const t = projectToLimit({
      xs: s.xs,
      ys: s.ys,
      from: 0,
      metric: "anon",
      counted: "anon",
      limits: [{ kind: "container", source: "memory.high", bytes: 1 * GiB }],
    })!;
    expect(t.headroom).toBe(0);
    expect(t.seconds).toBe(0);
    expect(timeToLimitText(t)).toMatch(/: at the limit now$/);
  });
});

describe("the sentence", () => {
  it("says which limit, which memory, how fast, when, and the range — the issue's example", () => {
    const text = timeToLimitText({
      limit: { kind: "container", source: "memory.max", bytes: 2 * GiB },
      otherLimits: [],
      metric: "cgroup-unreclaimable",
      counted: "anon + shmem",
      level: 1.41 * GiB,
      headroom: 0.59 * GiB,
      swing: 0,
      bytesPerSecond: 1.9 * MB,
      slopeLow: 1.5 * MB,
      slopeHigh: 2.5 * MB,
      confidence: 0.95,
      seconds: 318,
      secondsMin: 242,
      secondsMax: 403,
      at: 600,
    });
    expect(text).toBe("container limit 2.00 GiB, anon + shmem 1.41 GiB, growing 1.90 MiB/s: ~5.3 min (4–6.7 min)");
  });

  it("spans in the operator's units, ranges sharing a unit or not, and an unbounded far end", () => {
    expect(spanText(45)).toBe("45 s");
    expect(spanText(300)).toBe("5 min");
    expect(spanText(7200)).toBe("2 h");
    expect(spanText(3 * 86400)).toBe("3 days");
    expect(rangeText(240, 420)).toBe("4–7 min");
    expect(rangeText(50, 120)).toBe("50 s – 2 min");
    expect(rangeText(240, null)).toBe("at least 4 min");
    expect(rangeText(590, 612)).toBe("9.8–10 min");
    expect(rangeText(605, 625)).toBe("605–625 s");
    expect(rangeText(3 * 3600, 3.04 * 3600)).toBe("180–182 min");
  });

  it("machine memory when nothing nearer limits it", () => {
    const text = timeToLimitText({
      limit: { kind: "machine", source: "MemAvailable", bytes: 3 * GiB },
      otherLimits: [],
      metric: "anon",
      counted: "anon",
      level: 1 * GiB,
      headroom: 2 * GiB,
      swing: 512 * 1024,
      bytesPerSecond: 10 * 1024,
      slopeLow: 8 * 1024,
      slopeHigh: 12 * 1024,
      confidence: 0.95,
      seconds: (2 * GiB) / (10 * 1024),
      secondsMin: (2 * GiB) / (12 * 1024),
      secondsMax: (2 * GiB) / (8 * 1024),
      at: 600,
    });
    expect(text).toBe(
      "no nearer limit than the machine's memory: 2.00 GiB available, anon 1.00 GiB, growing 600 KiB/min: ~2.4 days (2–3 days)",
    );
  });
});
