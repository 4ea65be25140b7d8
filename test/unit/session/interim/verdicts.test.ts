import { describe, expect, it } from "vitest";
import { SeriesBuilder, type SeriesSet } from "../../../../src/series/series.js";
import type { ClassifyInput } from "../../../../src/analysis/classify.js";
import type { VerdictDocument } from "../../../../src/analysis/types.js";
import type { GateResult } from "../../../../src/gates/gates.js";
import type { GateOptions } from "../../../../src/gates/spec.js";
import { InterimVerdicts, settledAt, verdictKey, type MakeAnalyst } from "../../../../src/session/interim/verdicts.js";
import type { InterimResult } from "../../../../src/session/interim/job.js";
import type { JudgedFinding } from "../../../../src/analysis/judgement.js";
import { Wakeup } from "../../../../src/session/wakeup.js";
import { MB, synthesize } from "../../../helpers/synthetic-samples.js";

function seriesOf(seconds: number): SeriesSet {
  const b = new SeriesBuilder();
  for (const s of synthesize({
    seconds,
    processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: MB } } }],
  }))
    b.add(s);
  return b.set;
}
const SET = seriesOf(10);
const input = () => ({ set: SET }) as unknown as ClassifyInput;
const doc = (kind: string, pid?: number) =>
  ({ verdict: { kind, pid, subject: { type: "tree" } } }) as unknown as VerdictDocument;
/** What the analyst answers: the document, and its verdict as the live view reads it. */
const result = (d: VerdictDocument, gates: GateResult[] = []): InterimResult => ({
  doc: d,
  verdict: d.verdict as unknown as JudgedFinding,
  gates,
  costMs: 1,
});
const failing: GateResult[] = [{ name: "fail-on", result: "fail", passed: false, message: "leak found" }];
const GATES: GateOptions = { metric: "pss", perProcess: false };

/** An analyst that answers each request at once with the next of `answers` (worked out in line, as without a worker). */
function answering(answers: InterimResult[]): { make: MakeAnalyst; requests: number[]; error: (m: string) => void } {
  const requests: number[] = [];
  const out = { make: undefined as unknown as MakeAnalyst, requests, error: (_: string) => {} };
  out.make = (onResult, onError) => {
    out.error = onError;
    return {
      busy: false,
      request: (_job, _transfer, at) => {
        requests.push(at);
        const r = answers.shift();
        if (r) onResult(r, at);
        return true;
      },
      close: async () => {},
    };
  };
  return out;
}

describe("InterimVerdicts", () => {
  it("works a verdict out when one is due (every second in the early phase), and keeps the latest", () => {
    const a = answering([result(doc("stable")), result(doc("leak", 100))]);
    const v = new InterimVerdicts(GATES, new Wakeup(), () => {}, 1, a.make);
    for (const t of [0.5, 1, 1.5, 2]) v.consider(t, SET, input);
    expect(a.requests).toHaveLength(2);
    expect(v.soFar?.kind).toBe("leak");
  });

  it("says when the verdict settled on the final one", () => {
    const a = answering([result(doc("leak", 100)), result(doc("stable")), result(doc("leak", 100))]);
    const v = new InterimVerdicts(GATES, new Wakeup(), () => {}, 1, a.make);
    for (const t of [1, 2, 3]) v.consider(t, SET, input);
    expect(v.settledAt(doc("leak", 100))).toBe(SET.duration);
    expect(v.settledAt(doc("stable"))).toBeUndefined();
  });

  it("under --fail-fast stops the session once a gate has failed for sure, and keeps that gate failed", () => {
    const said: string[] = [];
    const wakeup = new Wakeup();
    const answers = Array.from({ length: 20 }, () => result(doc("leak", 100), failing));
    const v = new InterimVerdicts(
      { ...GATES, failFast: true },
      wakeup,
      (l) => said.push(l),
      1,
      answering(answers).make,
    );
    // The series' time goes on as the session samples: each verdict is told the duration its data ran to.
    for (let s = 2; s <= 20 && !wakeup.stopped; s++) v.consider(s, seriesOf(s), input);
    expect(wakeup.stopped).toBe("gate-failed");
    expect(said).toEqual([
      expect.stringMatching(/^memleak: --fail-fast: gate fail-on has failed since \d+ s \(leak found\); stopping\n$/),
    ]);
    expect(v.finalGates([{ name: "fail-on", result: "pass", passed: true, message: "none" }])[0]).toMatchObject({
      name: "fail-on",
      result: "fail",
    });
  });

  it("ignores a verdict that comes in once sampling has stopped", () => {
    const wakeup = new Wakeup();
    wakeup.stop("interrupted");
    const v = new InterimVerdicts(
      { ...GATES, failFast: true },
      wakeup,
      () => {},
      1,
      answering([result(doc("leak", 1), failing)]).make,
    );
    v.consider(1, SET, input);
    expect(v.soFar).toBeUndefined();
    expect(wakeup.stopped).toBe("interrupted");
  });

  it("without --fail-fast leaves the final gates as they are", () => {
    const v = new InterimVerdicts(GATES, new Wakeup(), () => {}, 1, answering([]).make);
    const gates: GateResult[] = [{ name: "fail-on", result: "pass", passed: true, message: "none" }];
    expect(v.finalGates(gates)).toBe(gates);
  });

  it("says the first line of a failure, once the analyst reports one", () => {
    const said: string[] = [];
    const a = answering([]);
    new InterimVerdicts(GATES, new Wakeup(), (l) => said.push(l), 1, a.make);
    a.error("TypeError: x\n    at y");
    expect(said).toEqual([
      "memleak: warning: the verdict so far could not be worked out (a bug in memleak; the final verdict is worked out apart): TypeError: x\n",
    ]);
  });

  it("works it out on the real analyst too (in line, from the TypeScript sources)", async () => {
    const v = new InterimVerdicts(GATES, new Wakeup(), () => {}, 1);
    const b = new SeriesBuilder();
    for (const s of synthesize({
      seconds: 20,
      processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: MB } } }],
    }))
      b.add(s);
    v.consider(
      1,
      b.set,
      () => ({ set: b.set, options: {}, commands: new Map(), target: { pid: 100 } }) as unknown as ClassifyInput,
    );
    await v.close();
    // 20 s of a steady 1 MB/s climb: a leak of that process, not merely some verdict (stable would be wrong).
    expect(v.soFar).toMatchObject({ kind: "leak", pid: 100 });
  });
});

describe("settledAt and verdictKey", () => {
  it("settledAt is the start of the last run of verdicts equal to the final one", () => {
    const h = (...keys: string[]) => keys.map((key, i) => ({ t: i * 5, key }));
    expect(settledAt(h("a", "b", "b"), "b")).toBe(5);
    expect(settledAt(h("b", "a", "b"), "b")).toBe(10);
    expect(settledAt(h("b", "b", "a"), "b")).toBeUndefined();
    expect(settledAt([], "b")).toBeUndefined();
  });

  it("verdictKey is the kind and the process, or the kind and the subject", () => {
    expect(verdictKey(doc("leak", 42))).toBe("leak:42");
    expect(verdictKey(doc("stable"))).toBe("stable:tree");
  });
});
