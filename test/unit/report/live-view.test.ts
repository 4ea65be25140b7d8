/**
 * The live view at the widths users have (80 columns in tmux, 120 in a wide terminal), coloured or not: no line may
 * be wider than the terminal, or it wraps and the redraw in place leaves garbage above it.
 */
import { describe, expect, it } from "vitest";
import { SeriesBuilder } from "../../../src/analysis/series.js";
import { renderLive, renderProgress, soFarText, type LiveState } from "../../../src/report/live.js";
import { say } from "../../../src/report/wording/index.js";
import { phrase, type Phrase } from "../../../src/analysis/phrases.js";
import type { JudgedFinding } from "../../../src/analysis/judgement.js";
import { truncate, truncateVisible } from "../../../src/report/style.js";
import { MB, synthesize } from "../../support/synthetic-samples.js";

// eslint-disable-next-line no-control-regex
const visible = (line: string) => [...line.replace(/\x1b\[[0-9;]*m/g, "")].length;

function state(pssAge?: number): LiveState {
  const samples = synthesize({
    seconds: 30,
    processes: [100, 101, 102].map((pid) => ({ pid, ppid: pid === 100 ? 1 : 100, anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, baseline: 60 * MB, noise: 0.1 * MB } })),
  });
  const b = new SeriesBuilder();
  for (const s of samples) b.add(s);
  const names = new Map([[100, "python3 train.py --config configs/a-rather-long-experiment-name.yaml"], [101, "python3 -c from multiprocessing.spawn import spawn_main"], [102, "pt_data_worker"]]);
  return { mode: "run", rootPid: 100, command: "python3 train.py --config configs/a-rather-long-experiment-name.yaml", elapsed: 30, set: b.set, latest: samples[samples.length - 1], soFar: undefined, commands: names, pssAge };
}

describe("the live view fits the terminal", () => {
  it.each([
    [80, true],
    [80, false],
    [120, true],
    [40, true],
  ])("%i columns, colour %s: every line at most that wide", (columns, color) => {
    const lines = renderLive(state(1.5), color, columns).split("\n");
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(visible(line), line).toBeLessThanOrEqual(columns);
  });

  it("says how old PSS is beside Σ PSS, and in the progress line", () => {
    expect(renderLive(state(1.5), false, 120)).toMatch(/Σ PSS [\d.]+ MiB \(PSS ≤ 1\.5 s old\)/);
    expect(renderLive(state(0), false, 120)).toMatch(/\(PSS read this tick\)/);
    expect(renderProgress(state(12))).toMatch(/PSS ≤ 12 s old/);
  });
});

describe("the verdict so far", () => {
  it("does not repeat the process's PID and command: at 80 columns what the verdict says must show", () => {
    const subject = { type: "process" as const, pid: 4649, starttime: 1, command: "python3 fixtures/scenarios/gc_sawtooth.py 600", ppid: 1, isRoot: true };
    const who = { pid: 4649, command: subject.command };
    const verdict = (kind: string, summary: Phrase) => ({ kind, pid: 4649, subject, summary }) as unknown as JudgedFinding;
    const insufficient = phrase("process.insufficient", { ...who, reason: "garbage cycles may be waiting" });
    expect(say(insufficient)).toBe("PID 4649 (python3 fixtures/scenarios/gc_sawtooth.py 600): not enough data (garbage cycles may be waiting)");
    expect(soFarText(verdict("insufficient-data", insufficient))).toBe("insufficient-data (PID 4649): not enough data (garbage cycles may be waiting)");
    const stable = phrase("process.stable", { ...who, metric: "anon", start: 12 * 2 ** 20, end: 13 * 2 ** 20 });
    expect(say(stable)).toBe("PID 4649 (python3 fixtures/scenarios/gc_sawtooth.py 600) is stable: anon 12.0 MiB → 13.0 MiB");
    expect(soFarText(verdict("stable", stable))).toBe("stable (PID 4649): is stable: anon 12.0 MiB → 13.0 MiB");
    // What follows a process's sentence stays (mapped files after a stable one).
    const mapped = phrase("mapped.in-summary", { of: stable, growth: 20 * 2 ** 20, files: undefined });
    expect(soFarText(verdict("stable", mapped))).toBe("stable (PID 4649): is stable: anon 12.0 MiB → 13.0 MiB; resident file pages grew 20.0 MiB: page cache the kernel can drop, not counted as growth here");
    expect(soFarText(verdict("stable", phrase("cgroup.stable", { start: 2 ** 20, end: 2 ** 20, agentsTakenOut: false })))).toBe("stable (PID 4649): the cgroup is stable: usage 1.00 MiB → 1.00 MiB");
  });
});

describe("cutting coloured text to a width", () => {
  it("counts only what shows, and resets the colours where it cuts", () => {
    const dim = (s: string) => `\x1b[2m${s}\x1b[22m`;
    const line = `${dim("PID     command")} and more text after it`;
    const cut = truncateVisible(line, 20);
    expect(visible(cut)).toBe(20);
    expect(cut.endsWith("…\x1b[0m")).toBe(true);
    expect(truncateVisible(line, 200)).toBe(line);
    // Exactly the width: not cut, even with a colour sequence after the last character.
    expect(truncateVisible(dim("abcde"), 5)).toBe(dim("abcde"));
  });

  it("is truncate() on plain text", () => {
    for (const [text, width] of [["hello world", 5], ["hello", 5], ["", 3], ["ab", 1]] as [string, number][]) {
      expect(truncateVisible(text, width)).toBe(truncate(text, width));
    }
  });
});
