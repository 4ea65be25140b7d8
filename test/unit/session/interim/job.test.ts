/**
 * Interim verdicts cross to a worker thread as plain data (packed-set.ts): the verdict worked out on the packed and
 * unpacked set must be the one worked out on the set itself, structured clone and all.
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../../../src/report/verdict.js";
import { runInterim } from "../../../../src/session/interim/job.js";
import { packSet } from "../../../../src/series/packed-set.js";
import { interimView, SeriesBuilder } from "../../../../src/series/series.js";
import { InterimAnalyst } from "../../../../src/session/interim/analyst.js";
import { MB, synthesize } from "../../../helpers/synthetic-samples.js";

function watched() {
  const b = new SeriesBuilder(undefined, 120);
  const samples = synthesize({
    seconds: 900,
    processes: [
      {
        pid: 100,
        ppid: 1,
        anon: { shape: { kind: "linear", bytesPerSecond: 0.1 * MB }, baseline: 300 * MB, noise: 3 * MB },
        agent: (t) => ({ py: { allocatedBlocks: 1000 + t }, malloc: { inUse: 200 * MB + t * 0.1 * MB } }),
      },
      { pid: 101, ppid: 100, anon: { shape: { kind: "stable" }, baseline: 80 * MB, noise: 1 * MB } },
    ],
  });
  for (const s of samples) b.add(s);
  return b.set;
}

const input = (set: ReturnType<typeof watched>) => ({
  set,
  options: {},
  target: { pid: 100 },
  cgroup: { path: "/x", version: 1 as const },
  commands: new Map([[100, ["python3", "serve.py"]]]),
});

describe("interim verdicts as a job for a worker thread", () => {
  it("packed, cloned as postMessage would, and unpacked: the same verdict document and gates", () => {
    const view = interimView(watched());
    const { packed } = packSet(view);
    const cloned = structuredClone(packed);
    const r = runInterim({
      input: { ...input(view), set: cloned },
      gates: { metric: "pss", perProcess: false, failOn: ["leak"] },
    });
    // The same document as in line, carrying its gates as the final verdict does (gates/gate-verdict.ts).
    expect(r.doc).toEqual({ ...classify(input(view)), gates: r.gates });
    expect(r.doc.verdict.kind).toBe("leak");
    expect(r.gates.map((g) => [g.name, g.result])).toEqual([["fail-on", "fail"]]);
    expect(r.costMs).toBeGreaterThan(0);
  });

  it("without a compiled worker file (run from sources), the analyst works the verdict out in line, at once", () => {
    const got: number[] = [];
    const analyst = new InterimAnalyst((r, at) => got.push(at) && expect(r.doc.verdict.kind).toBe("leak"));
    const view = interimView(watched());
    const { packed, transfer } = packSet(view);
    expect(
      analyst.request(
        { input: { ...input(view), set: packed }, gates: { metric: "pss", perProcess: false } },
        transfer,
        900,
      ),
    ).toBe(true);
    expect(got).toEqual([900]);
    expect(analyst.busy).toBe(false);
  });

  it("a verdict that throws is said once, and the session goes on", () => {
    const errors: string[] = [];
    const analyst = new InterimAnalyst(
      () => expect.unreachable(),
      (m) => errors.push(m),
    );
    const broken = {
      input: { set: null, options: {}, target: { pid: 1 } },
      gates: { metric: "pss", perProcess: false },
    } as never;
    expect(analyst.request(broken, [], 1)).toBe(true);
    expect(analyst.request(broken, [], 2)).toBe(true);
    expect(errors).toHaveLength(1);
    expect(analyst.busy).toBe(false);
  });
});
