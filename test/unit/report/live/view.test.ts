/**
 * The live view at the widths users have (80 columns in tmux, 120 in a wide terminal), coloured or not: no line may
 * be wider than the terminal, or it wraps and the redraw in place leaves garbage above it.
 */
import { describe, expect, it } from "vitest";
import { SeriesBuilder } from "../../../../src/series/series.js";
import { renderLive, renderProgress, soFarText, type LiveState } from "../../../../src/report/live/view.js";
import { memorySpan, sparkline } from "../../../../src/report/sparkline.js";
import { displayWidth } from "../../../../src/report/text-width.js";
import { say } from "../../../../src/report/wording/index.js";
import { phrase, type Phrase } from "../../../../src/analysis/phrases.js";
import type { JudgedFinding } from "../../../../src/analysis/judgement.js";
import { MB, synthesize } from "../../../helpers/synthetic-samples.js";
import { sitesText, topSites } from "../../../../src/report/live/sites.js";
import type { TraceResult } from "../../../../src/agent/agent-results.js";

function state(
  pssAge?: number,
  rootCommand = "python3 train.py --config configs/a-rather-long-experiment-name.yaml",
): LiveState {
  const samples = synthesize({
    seconds: 30,
    processes: [100, 101, 102].map((pid) => ({
      pid,
      ppid: pid === 100 ? 1 : 100,
      anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, baseline: 60 * MB, noise: 0.1 * MB },
    })),
  });
  const b = new SeriesBuilder();
  for (const s of samples) b.add(s);
  const names = new Map([
    [100, rootCommand],
    [101, "python3 -c from multiprocessing.spawn import spawn_main"],
    [102, "pt_data_worker"],
  ]);
  return {
    mode: "run",
    rootPid: 100,
    command: rootCommand,
    elapsed: 30,
    set: b.set,
    latest: samples[samples.length - 1],
    soFar: undefined,
    commands: names,
    pssAge,
  };
}

describe("the live view fits the terminal", () => {
  it.each([
    [80, true],
    [80, false],
    [120, true],
    [40, true],
  ])(
    "%i columns, colour %s: every line shorter than that (a line filling the last column wraps on some terminals)",
    (columns, color) => {
      const lines = renderLive(state(1.5), color, columns).split("\n");
      expect(lines.length).toBeGreaterThan(4);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThan(columns);
    },
  );

  it("measures as the terminal does: a CJK command line takes two columns a character", () => {
    const lines = renderLive(
      state(1.5, "python3 训练模型.py --数据 数据集目录/非常长的实验名称配置文件.yaml"),
      true,
      80,
    ).split("\n");
    for (const line of lines) expect(displayWidth(line), line).toBeLessThan(80);
    expect(lines.some((l) => l.includes("训练"))).toBe(true);
  });

  it("at 80 columns the command gives way to the time and the sample count", () => {
    const [header] = renderLive(state(1.5), true, 80).split("\n");
    expect(header!.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(
      /^memleak running PID 100 python3 train\.py .*… — 30s, 30 samples$/,
    );
  });

  it("says how old PSS is beside Σ PSS, and in the progress line", () => {
    expect(renderLive(state(1.5), false, 120)).toMatch(/Σ PSS [\d.]+ MiB \(PSS ≤ 1\.5 s old\)/);
    expect(renderLive(state(0), false, 120)).toMatch(/\(PSS read this tick\)/);
    expect(renderProgress(state(12))).toMatch(/PSS ≤ 12 s old/);
  });
});

describe("the verdict so far", () => {
  it("does not repeat the process's PID and command: at 80 columns what the verdict says must show", () => {
    const subject = {
      type: "process" as const,
      pid: 4649,
      starttime: 1,
      command: "python3 fixtures/scenarios/gc_sawtooth.py 600",
      ppid: 1,
      isRoot: true,
    };
    const who = { pid: 4649, command: subject.command };
    const verdict = (kind: string, summary: Phrase) =>
      ({ kind, pid: 4649, subject, summary, confidence: 0.41 }) as unknown as JudgedFinding;
    const insufficient = phrase("process.insufficient", { ...who, reason: "garbage cycles may be waiting" });
    expect(say(insufficient)).toBe(
      "PID 4649 (python3 fixtures/scenarios/gc_sawtooth.py 600): not enough data (garbage cycles may be waiting)",
    );
    expect(soFarText(verdict("insufficient-data", insufficient))).toBe(
      "insufficient-data (PID 4649): not enough data (garbage cycles may be waiting)",
    );
    const stable = phrase("process.stable", { ...who, metric: "anon", start: 12 * 2 ** 20, end: 13 * 2 ** 20 });
    expect(say(stable)).toBe(
      "PID 4649 (python3 fixtures/scenarios/gc_sawtooth.py 600) is stable: anon 12.0 MiB → 13.0 MiB",
    );
    expect(soFarText(verdict("stable", stable))).toBe("stable 41% (PID 4649): is stable: anon 12.0 MiB → 13.0 MiB");
    // What follows a process's sentence stays (mapped files after a stable one).
    const mapped = phrase("mapped.in-summary", { of: stable, growth: 20 * 2 ** 20, files: undefined });
    expect(soFarText(verdict("stable", mapped))).toBe(
      "stable 41% (PID 4649): is stable: anon 12.0 MiB → 13.0 MiB; resident file pages grew 20.0 MiB: page cache the kernel can drop, not counted as growth here",
    );
    expect(
      soFarText(verdict("stable", phrase("cgroup.stable", { start: 2 ** 20, end: 2 ** 20, agentsTakenOut: false }))),
    ).toBe("stable 41% (PID 4649): the cgroup is stable: usage 1.00 MiB → 1.00 MiB");
  });
});

describe("the progress line's verdict so far", () => {
  const cgroupLeak = {
    kind: "leak",
    confidence: 0.62,
    subject: { type: "cgroup", path: "/job", version: 1 },
    summary: phrase("cgroup.stable", { start: 2 ** 20, end: 2 ** 20, agentsTakenOut: false }),
  } as unknown as JudgedFinding;
  // With its confidence: a noisy steady service said "so far: leak" at 20 s (a user's trial, 2026-12-06), nothing
  // telling a first guess from a firm call.
  it("names the group a verdict without a PID is about, and how sure it is: at 10 s the cgroup's early call read as the process's", () => {
    expect(renderProgress({ ...state(1), soFar: cgroupLeak })).toMatch(/so far: leak 62% \(the cgroup\)$/);
    const tree = { ...cgroupLeak, subject: { type: "tree", processes: 3 } } as unknown as JudgedFinding;
    expect(renderProgress({ ...state(1), soFar: tree })).toMatch(/so far: leak 62% \(the process tree\)$/);
    const proc = { ...cgroupLeak, pid: 812, subject: { type: "process", pid: 812 } } as unknown as JudgedFinding;
    expect(renderProgress({ ...state(1), soFar: proc })).toMatch(/so far: leak 62% \(PID 812\)$/);
  });
});

describe("the live view's sparklines do not alarm on noise", () => {
  const KiB = 1024;
  // A small process judged stable: 76 KiB of wobble around 5 MiB, the case a user saw drawn as a full-height hill.
  const noisy = Array.from({ length: 120 }, (_, i) => 5 * MB + ((i * 7919) % 77) * KiB);

  it("flat with noise under the growth floor draws flat", () => {
    expect(sparkline(noisy, 20, false, memorySpan(noisy))).toBe("▁".repeat(20));
  });

  it("growth past the floor still fills the height", () => {
    const growing = Array.from({ length: 120 }, (_, i) => 5 * MB + i * 40 * KiB);
    const drawn = sparkline(growing, 20, false, memorySpan(growing));
    expect(drawn[0]).toBe("▁");
    expect(drawn.at(-1)).toBe("█");
  });

  it("in the live view's rows", () => {
    const samples = synthesize({
      seconds: 60,
      processes: [
        {
          pid: 100,
          ppid: 1,
          anon: { shape: { kind: "linear", bytesPerSecond: 0 }, baseline: 5 * MB, noise: 60 * KiB },
        },
      ],
    });
    const b = new SeriesBuilder();
    for (const s of samples) b.add(s);
    const view = renderLive(
      {
        mode: "run",
        rootPid: 100,
        command: "python3 idle.py",
        elapsed: 60,
        set: b.set,
        latest: samples.at(-1),
        soFar: undefined,
        commands: new Map([[100, "python3 idle.py"]]),
      },
      false,
      120,
    );
    const row = view.split("\n").find((l) => l.startsWith("100 "))!;
    expect(row).toMatch(/ ▁+$/);
  });
});

describe("run --trace-python's sites in the live view, as the agent sends them", () => {
  const trace = (pid: number, sites: [file: string, line: number, sizeDiff: number][]): TraceResult => ({
    type: "trace",
    pid,
    t: 1,
    traced: 0,
    tracedPeak: 0,
    interim: true,
    sites: sites.map(([file, line, sizeDiff]) => ({
      file,
      line,
      sizeDiff,
      countDiff: Math.round(sizeDiff / 100),
      size: sizeDiff,
    })),
  });
  const traces = [
    trace(101, [
      ["/srv/app/views.py", 12, 3 * MB],
      ["/srv/app/util.py", 4, 1000],
    ]),
    trace(102, [["/srv/app/cache.py", 40, 8 * MB]]),
  ];

  it("the sites that grew most over every process, the file's name and line", () => {
    const top = topSites(traces, 2);
    expect(top.map((s) => [s.pid, s.line])).toEqual([
      [102, 40],
      [101, 12],
    ]);
    expect(sitesText(top)).toBe("cache.py:40 +8.00 MiB (+83886) · views.py:12 +3.00 MiB (+31457)");
  });

  it.each([80, 120, 40])(
    "a 'sites:' line above the verdict so far, within %i columns; the progress line has them too",
    (columns) => {
      const s = { ...state(1.5), sites: topSites(traces) };
      const lines = renderLive(s, false, columns).split("\n");
      const at = lines.findIndex((l) => l.startsWith("sites: cache.py:40 +8.00 MiB"));
      expect(at, lines.join("\n")).toBeGreaterThan(0);
      expect(lines[at + 1]).toMatch(/^so far:/);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThan(columns);
      expect(renderProgress(s)).toContain("sites cache.py:40 +8.00 MiB (+83886) · views.py:12 +3.00 MiB (+31457)");
    },
  );

  it("no line without sites", () => {
    expect(renderLive({ ...state(1.5), sites: [] }, false, 100)).not.toContain("sites:");
    expect(renderProgress(state(1.5))).not.toContain("sites");
  });
});
