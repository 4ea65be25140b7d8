/**
 * signals/own-footprint.ts on processes, assessments and columns built by hand, pinned by exact values: when the agent
 * counts as injected and from when, which plateau or step is its arrival, what it added (read either side of the
 * arrival), and the cgroup's usage with it taken out. Through the whole engine: rules/own-footprint.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Assessment } from "../../../../src/analysis/assess.js";
import { Column } from "../../../../src/series/column.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import {
  injectedAt,
  ownArrival,
  ownStep,
  withoutOwnArrivals,
  withoutOwnStep,
  type Injection,
} from "../../../../src/analysis/signals/own-footprint.js";

const MB = 2 ** 20;
/** 64 KiB: values in whole units of it stay exact through medians and differences. */
const K = 2 ** 16;

const proc = (o: Partial<ProcessSeries>) =>
  ({ firstSeen: 0, lastSeen: 30, metrics: {}, ...o }) as unknown as ProcessSeries;

describe("injectedAt", () => {
  it("the agent's first report more than 1 s after the process was first seen", () => {
    expect(injectedAt(proc({ firstSeen: 4 }))).toBeUndefined();
    expect(injectedAt(proc({ firstSeen: 4, firstReport: 5 }))).toBeUndefined();
    expect(injectedAt(proc({ firstSeen: 4, firstReport: 5.5 }))).toEqual({ from: 3.5, reported: 5.5 });
  });

  it("within the first second too when memleak recorded that it began the injection (before the report)", () => {
    // watch: every process there at the start is first seen at 0 s, and lldb can have an agent in within 0.75 s.
    expect(injectedAt(proc({ firstReport: 0.75, injectionStarted: 0.01 }))).toEqual({ from: 0.01, reported: 0.75 });
    expect(injectedAt(proc({ firstReport: 1, injectionStarted: 0.5 }))).toEqual({ from: 0.5, reported: 1 });
    // begun after the report (the agent connected by itself first): the first second decides, as without a record
    expect(injectedAt(proc({ firstReport: 0.75, injectionStarted: 0.9 }))).toBeUndefined();
    expect(injectedAt(proc({ firstReport: 0.75, injectionStarted: 0.01 }), true)).toBeUndefined();
  });

  it("never when memleak launched the command: each agent came with its interpreter, however late it reported", () => {
    // A pyenv shim's bash ran 4 s before python: the first report came 5 s after the process's birth.
    expect(injectedAt(proc({ firstSeen: 0, firstReport: 5 }))).toEqual({ from: 3, reported: 5 });
    expect(injectedAt(proc({ firstSeen: 0, firstReport: 5 }), true)).toBeUndefined();
  });

  it("dated from when memleak began it, when that is known, before the report and at most 20 s before it", () => {
    const at = (injectionStarted: number) => injectedAt(proc({ firstReport: 30, injectionStarted }));
    expect(at(25)).toEqual({ from: 25, reported: 30 });
    expect(at(30)).toEqual({ from: 30, reported: 30 });
    expect(at(10)).toEqual({ from: 10, reported: 30 });
    // pending for longer (the blocked-thread path), or a start after the report: 2 s before the report
    expect(at(9.5)).toEqual({ from: 28, reported: 30 });
    expect(at(31)).toEqual({ from: 28, reported: 30 });
  });
});

/** A plateau that levelled at `at` s after rising `rise` bytes (the tenths' growth is smaller). */
const plateau = (at: number, rise: number) =>
  ({ shape: "plateau", growth: 0.5 * MB, plateau: { levelFrom: at, rise } }) as unknown as Assessment;
const injection = (from: number, reported: number): Injection => ({ from, reported });

describe("ownStep", () => {
  it("a plateau that levelled between the injection's start and 25 s after its first report", () => {
    const near = [injection(20, 22)];
    expect(ownStep(plateau(20, 3 * MB), near)).toBe(3 * MB);
    expect(ownStep(plateau(47, 3 * MB), near)).toBe(3 * MB);
    expect(ownStep(plateau(19.9, 3 * MB), near)).toBeUndefined();
    expect(ownStep(plateau(47.1, 3 * MB), near)).toBeUndefined();
  });

  it("of at most 8 MiB for each injection near it", () => {
    expect(ownStep(plateau(25, 8 * MB), [injection(20, 22)])).toBe(8 * MB);
    expect(ownStep(plateau(25, 8 * MB + 1), [injection(20, 22)])).toBeUndefined();
    expect(ownStep(plateau(25, 16 * MB), [injection(20, 22), injection(21, 23)])).toBe(16 * MB);
    // an injection long before does not stretch the allowance
    expect(ownStep(plateau(45, 16 * MB), [injection(40, 42), injection(1, 3)])).toBeUndefined();
  });

  it("a step: its jump and where it jumped; no other shape, no shape without a level, no injection", () => {
    const step = { shape: "step", growth: 1 * MB, step: { at: 21, jump: 4 * MB } } as unknown as Assessment;
    expect(ownStep(step, [injection(20, 22)])).toBe(4 * MB);
    expect(ownStep(step, [])).toBeUndefined();
    expect(ownStep({ ...step, shape: "growing" }, [injection(20, 22)])).toBeUndefined();
    expect(ownStep({ shape: "plateau", growth: MB } as Assessment, [injection(20, 22)])).toBeUndefined();
  });

  it("withoutOwnStep: judged flat, with what memleak added and when each agent reported", () => {
    const a = plateau(25, 3 * MB);
    expect(withoutOwnStep(a, [injection(20, 22), injection(21, 23.5)])).toEqual({
      a: { ...a, shape: "flat", own: 3 * MB },
      caveat: { say: "own.step", facts: { at: [22, 23.5], added: 3 * MB } },
    });
    const late = plateau(45, 3 * MB);
    const far = withoutOwnStep(late, [injection(1, 3)]);
    expect(far).toEqual({ a: late });
    expect(far.a).toBe(late);
  });
});

/** A column at `hz` from 0 to 30 s: t × hz × K before the agent's report at 10 s, `jump` more from it. */
function climbing(hz = 1, jump = 80 * K) {
  const c = new Column();
  for (let i = 0; i <= 30 * hz; i++) {
    const t = i / hz;
    c.push(t, t * hz * K + (t >= 10 ? jump : 0));
  }
  return c;
}
const injected = (metrics: ProcessSeries["metrics"], o: Partial<ProcessSeries> = {}) =>
  proc({ firstReport: 10, injectionStarted: 8, lastSeen: 29, metrics, ...o });

describe("ownArrival", () => {
  it("the median after the first report less the median before the injection, 3 points either side at 1 Hz", () => {
    // before: t 5–8 (5, 6, 7, 8 K: 6.5 K); after: t 10–13 (90–93 K: 91.5 K)
    expect(ownArrival(injected({ anon: climbing() }))).toEqual({ from: 8, at: 10, until: 29, bytes: 85 * K });
  });

  it("none when memleak launched the command (run, pytest): nothing was injected", () => {
    expect(ownArrival(injected({ anon: climbing() }), true)).toBeUndefined();
  });

  it("at least 2 s either side when the points are closer", () => {
    // 4 Hz, t × 4 K: before t 6–8 (24–32 K: 28 K), after t 10–12 (40–48 K + 80 K: 124 K)
    expect(ownArrival(injected({ anon: climbing(4) }))?.bytes).toBe(96 * K);
  });

  it("each side's median over its readings, both ends included", () => {
    // t² KiB before the report, 200 KiB + t² KiB from it: before 5–8 s (25, 36, 49, 64: 42.5), after 10–13 s
    // (300, 321, 344, 369: 332.5)
    const c = new Column();
    for (let t = 0; t <= 30; t++) c.push(t, (t * t + (t >= 10 ? 200 : 0)) * 1024);
    expect(ownArrival(injected({ anon: c }))?.bytes).toBe(290 * 1024);
  });

  it("the spacing of a column that starts late, and two points are enough", () => {
    // from 10 to 60 s at 1 Hz (spacing 1 s: 3 s either side); reported at 42 s, injection begun at 40 s
    const late = new Column();
    for (let t = 10; t <= 60; t++) late.push(t, t * K + (t >= 42 ? 80 * K : 0));
    const p = injected({ anon: late }, { firstSeen: 10, firstReport: 42, injectionStarted: 40, lastSeen: 60 });
    // before 37–40 s (38.5 K), after 42–45 s (123.5 K)
    expect(ownArrival(p)?.bytes).toBe(85 * K);
    // two readings, 4 s apart: 12 s either side, each side one of them
    const two = new Column();
    two.push(7, 10 * K);
    two.push(11, 30 * K);
    expect(ownArrival(injected({ anon: two }))?.bytes).toBe(20 * K);
  });

  it("read on the metric asked for when the process has it, else anon, else RSS", () => {
    const flat = new Column();
    for (let t = 0; t <= 30; t++) flat.push(t, 50 * MB);
    expect(ownArrival(injected({ anon: flat, uss: climbing() }), false, "uss")?.bytes).toBe(85 * K);
    expect(ownArrival(injected({ anon: climbing(), uss: flat }))?.bytes).toBe(85 * K);
    expect(ownArrival(injected({ anon: climbing() }), false, "uss")?.bytes).toBe(85 * K);
    expect(ownArrival(injected({ rss: climbing() }))?.bytes).toBe(85 * K);
    expect(ownArrival(injected({ anon: flat }))).toBeUndefined();
  });

  it("at most 8 MiB, never negative, nothing without an injection, two points, or points either side", () => {
    expect(ownArrival(injected({ anon: climbing(1, 200 * MB) }))?.bytes).toBe(8 * MB);
    expect(ownArrival(injected({ anon: climbing(1, -200 * K) }))).toBeUndefined();
    expect(ownArrival(injected({ anon: climbing() }, { firstReport: 0.5 }))).toBeUndefined();
    expect(ownArrival(injected({}))).toBeUndefined();
    const one = new Column();
    one.push(10, MB);
    expect(ownArrival(injected({ anon: one }))).toBeUndefined();
    const late = new Column();
    for (let t = 9; t <= 30; t++) late.push(t, t * MB);
    expect(ownArrival(injected({ anon: late }))).toBeUndefined();
    const early = new Column();
    for (let t = 0; t <= 9; t++) early.push(t, t * MB);
    expect(ownArrival(injected({ anon: early }))).toBeUndefined();
  });
});

describe("withoutOwnArrivals", () => {
  it("each footprint subtracted from the injection's start, in a ramp to the first report, until the process ends", () => {
    const usage = new Column();
    for (let t = 0; t <= 7; t++) usage.push(t, 100);
    const out = withoutOwnArrivals(usage, [
      { from: 2, at: 4, until: 5, bytes: 8, pid: 10 },
      { from: 3, at: 3, until: 7, bytes: 1, pid: 11 },
    ]);
    expect(out.xs).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(out.ys).toEqual([100, 100, 100, 95, 91, 91, 99, 99]);
  });
  it("an empty column stays empty", () => {
    expect(withoutOwnArrivals(new Column(), [{ from: 0, at: 1, until: 2, bytes: 1, pid: 10 }]).xs).toEqual([]);
  });
});
