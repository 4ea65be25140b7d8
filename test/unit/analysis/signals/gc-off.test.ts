/**
 * signals/gc-off.ts: a program that turned the collector off (the agent's gc.isenabled(), py.gcEnabled) is said so on
 * its finding, and on a leak with what to do first; the agent's own walks, which turn it off for milliseconds, are not
 * taken for the program's doing.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../../src/series/column.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import type { JudgedFinding } from "../../../../src/analysis/judgement.js";
import { collectorOff, GC_OFF_READINGS, noteCollectorOff } from "../../../../src/analysis/signals/gc-off.js";

const col = (ys: number[]) => {
  const c = new Column();
  ys.forEach((y, i) => c.push(i, y));
  return c;
};
const proc = (enabled: number[] | undefined, count0?: number) =>
  ({
    pid: 7,
    agent: {
      ...(enabled && { "py.gcEnabled": col(enabled) }),
      ...(count0 !== undefined && { "py.gcCount0": col([count0]) }),
    },
  }) as unknown as ProcessSeries;
const finding = (kind: JudgedFinding["kind"]) =>
  ({ kind, evidence: {}, caveats: [], advice: [{ say: "advice.leak", facts: {} }] }) as unknown as JudgedFinding;

describe("the collector turned off", () => {
  it(`off at the last ${GC_OFF_READINGS} reports: said, with the allocations since its last collection`, () => {
    expect(collectorOff(proc([1, 0, 0, 0], 2_782_342))).toEqual({ count0: 2_782_342 });
    const f = finding("leak");
    noteCollectorOff(f, proc([0, 0, 0], 2_782_342));
    expect(f.evidence.gcDisabled).toBe(true);
    expect(f.caveats).toEqual([{ say: "gc.off", facts: { pid: 7, count0: 2_782_342 } }]);
    // On a leak, its advice comes first: it is the cause the rest would have the user look for.
    expect(f.advice.map((a) => a.say)).toEqual(["advice.gc-off", "advice.leak"]);
  });

  it("on another kind, the note alone", () => {
    const f = finding("stable");
    noteCollectorOff(f, proc([0, 0, 0]));
    expect(f.caveats).toEqual([{ say: "gc.off", facts: { pid: 7 } }]);
    expect(f.advice.map((a) => a.say)).toEqual(["advice.leak"]);
  });

  it("not when it was on at one of the last reports (an agent's walk read once), too few reports, or none", () => {
    expect(collectorOff(proc([0, 0, 1, 0]))).toBeUndefined();
    expect(collectorOff(proc([0, 0]))).toBeUndefined();
    expect(collectorOff(proc([1, 1, 1]))).toBeUndefined();
    expect(collectorOff(proc(undefined))).toBeUndefined();
    const f = finding("leak");
    noteCollectorOff(f, proc([1, 1, 1]));
    expect(f).toEqual(finding("leak"));
  });
});
