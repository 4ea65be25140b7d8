/**
 * The accuracy table's counting (accuracy.ts, accuracy-table.ts) on made-up runs: a wrong verdict counted wrong, a
 * run with no verdict (a timeout) counted wrong and not dropped, the leak gate's false alarms, progress lines, layer and
 * holder, calibration bins and their intervals.
 */
import { describe, expect, it } from "vitest";
import type { CorpusEntry } from "./corpus.js";
import {
  calibration,
  confusion,
  elapsedSeconds,
  layerAndHolder,
  leakGate,
  observe,
  perKind,
  score,
  wilson,
  type Observed,
} from "./accuracy.js";
import { accuracyMarkdown, reliabilitySvg } from "./accuracy-table.js";

const entry = (o: Partial<CorpusEntry> = {}): CorpusEntry => ({
  name: "p",
  file: "p.py",
  args: ["{seconds}"],
  python: ["python3"],
  seconds: 24,
  expect: "leak",
  modes: ["run", "watch"],
  ...o,
});
const seen = (o: Partial<Observed> = {}): Observed => ({ progress: [], ...o });

describe("observe: a verdict document and stderr's progress lines", () => {
  it("reads kind, confidence, subject, layer, holder and the 'so far' of each progress line", () => {
    const doc = {
      verdict: {
        kind: "leak",
        confidence: 0.91,
        subject: { type: "process", isRoot: false },
        evidence: { layer: "Python objects" },
        holder: { found: true, path: "__main__.SEEN" },
      },
    };
    const stderr = [
      "memleak: sampling python3 x.py (PID 7) and its children every 1s",
      "memleak: 10s, 11 samples, 1 process, Σ PSS 48.0 MiB (+47.2 MiB), so far: insufficient-data (PID 7)",
      "memleak: 21s, 22 samples, 1 process, Σ PSS 27.4 MiB, so far: leak 48% (PID 7)",
    ].join("\n");
    expect(observe(doc, stderr)).toEqual({
      kind: "leak",
      confidence: 0.91,
      family: "leak",
      subject: "worker",
      layer: "Python objects",
      holder: "__main__.SEEN",
      progress: [
        { t: 10, kind: "insufficient-data" },
        { t: 21, kind: "leak" },
      ],
    });
  });

  it("the elapsed time of each line, past a minute and an hour, or a late tick's tenths", () => {
    expect(["10s", "10.1s", "1m00s", "2m08s", "1h02m", "500ms"].map(elapsedSeconds)).toEqual([
      10, 10.1, 60, 128, 3720, 0.5,
    ]);
    const lines =
      "memleak: 2m08s, 129 samples, 1 process, so far: leak 71% (PID 7)\nmemleak: 1h02m, 9 samples, so far: stable 95%";
    expect(observe(undefined, lines).progress).toEqual([
      { t: 128, kind: "leak" },
      { t: 3720, kind: "stable" },
    ]);
  });

  it("a holder not found is no holder; no document is no kind", () => {
    const doc = { verdict: { kind: "leak", subject: { type: "cgroup" }, holder: { found: false } } };
    expect(observe(doc, "")).toEqual({ kind: "leak", family: "leak", subject: "cgroup", progress: [] });
    // A calibrated document's raw score and an early call's family are read for `npm run calibrate -- --live`.
    const early = {
      verdict: {
        kind: "leak",
        confidence: 0.8,
        rawConfidence: 0.75,
        subject: { type: "cgroup" },
        evidence: { calledEarly: "sequential" },
      },
    };
    expect(observe(early, "")).toMatchObject({ confidence: 0.8, rawConfidence: 0.75, family: "leak/early" });
    expect(observe(undefined, "")).toEqual({ progress: [] });
  });
});

describe("score: one run against its label", () => {
  it("right needs the kind and the labelled subject", () => {
    expect(score(entry({ subject: "root" }), "run", seen({ kind: "leak", subject: "root" })).right).toBe(true);
    const other = score(entry({ subject: "root" }), "run", seen({ kind: "leak", subject: "cgroup" }));
    expect(other).toMatchObject({ right: false, kindRight: true });
  });

  it("a wrong verdict is wrong, and a run with no verdict (timed out) is wrong, kept as 'none'", () => {
    expect(score(entry(), "run", seen({ kind: "fragmentation", confidence: 0.8 }))).toMatchObject({
      right: false,
      got: "fragmentation",
      confidence: 0.8,
    });
    expect(score(entry(), "watch", seen({ timedOut: true }))).toMatchObject({
      right: false,
      got: "none",
      timedOut: true,
    });
  });

  it("layer and holder are judged on leaks found, where labelled", () => {
    const e = entry({ layer: "Python objects", holder: "__main__.x" });
    expect(score(e, "run", seen({ kind: "leak", layer: "Python objects", holder: "__main__.y" }))).toMatchObject({
      layerRight: true,
      holderRight: false,
    });
    const missed = score(e, "run", seen({ kind: "stable" }));
    expect(missed.layerRight).toBeUndefined();
    expect(missed.holderRight).toBeUndefined();
  });

  it("progress: the first line with the right kind, and lines saying leak on a program that does not leak", () => {
    const progress = [
      { t: 10, kind: "insufficient-data" },
      { t: 20, kind: "leak" },
      { t: 30, kind: "stable" },
      { t: 40, kind: "leak" },
    ];
    expect(score(entry({ expect: "stable" }), "run", seen({ kind: "stable", progress }))).toMatchObject({
      firstRightAt: 30,
      progressLines: 4,
      falseLeakLines: 2,
    });
    expect(score(entry(), "run", seen({ kind: "leak", progress }))).toMatchObject({
      firstRightAt: 20,
      falseLeakLines: 0,
    });
  });
});

describe("the table's figures", () => {
  const runs = [
    score(entry({ name: "a" }), "run", seen({ kind: "leak", confidence: 0.95 })),
    score(entry({ name: "b" }), "run", seen({ kind: "fragmentation", confidence: 0.8 })),
    score(entry({ name: "c", expect: "stable" }), "run", seen({ kind: "leak", confidence: 0.75 })),
    score(entry({ name: "d", expect: "stable" }), "run", seen({ kind: "stable", confidence: 0.95 })),
    score(entry({ name: "e", expect: "stable" }), "watch", seen({ timedOut: true })),
  ];

  it("precision and recall per kind, and the confusion matrix with 'none'", () => {
    const leak = perKind(runs).find((k) => k.kind === "leak")!;
    expect(leak).toEqual({ kind: "leak", labelled: 2, called: 2, right: 1, precision: 0.5, recall: 0.5 });
    const stable = perKind(runs).find((k) => k.kind === "stable")!;
    expect(stable).toEqual({ kind: "stable", labelled: 3, called: 1, right: 1, precision: 1, recall: 1 / 3 });
    const m = confusion(runs);
    expect(Object.fromEntries(m.get("stable")!)).toEqual({ leak: 1, stable: 1, none: 1 });
  });

  it("the leak gate: a false alarm, a miss", () => {
    expect(leakGate(runs)).toMatchObject({ leaks: 2, missed: 1, others: 3, falseAlarms: 1 });
  });

  it("calibration: bins of claims (no verdict and insufficient-data left out), each with its interval", () => {
    const bins = calibration(runs);
    expect(bins.map((b) => b.n)).toEqual([0, 0, 0, 1, 1, 2]);
    const top = bins.at(-1)!;
    expect(top).toMatchObject({ from: 0.9, to: 1, right: 2, share: 1, meanConfidence: 0.95 });
    expect(top.low).toBeCloseTo(0.342, 2);
    expect(top.calibrated).toBe(true);
    expect(bins[4]).toMatchObject({ n: 1, right: 0, calibrated: false });
  });

  it("wilson: the interval narrows as the bin grows, and an empty bin claims nothing", () => {
    expect(wilson(9, 10).high - wilson(9, 10).low).toBeGreaterThan(wilson(90, 100).high - wilson(90, 100).low);
    expect(wilson(0, 0)).toMatchObject({ low: 0, high: 1 });
    expect(Number.isNaN(wilson(0, 0).share)).toBe(true);
  });

  it("layer and holder accuracy count only labelled leaks found", () => {
    const e = entry({ layer: "L", holder: "H" });
    const lh = layerAndHolder([
      score(e, "run", seen({ kind: "leak", layer: "L", holder: "H" })),
      score(e, "run", seen({ kind: "leak", layer: "M" })),
      score(e, "run", seen({ kind: "stable" })),
    ]);
    expect(lh).toEqual({ layerLabelled: 2, layerRight: 1, holderLabelled: 2, holderRight: 1 });
  });

  it("the Markdown names every wrong run, and the SVG draws a point per non-empty bin", () => {
    const md = accuracyMarkdown(runs, "t");
    expect(md).toContain("2/5 (40%) of runs right; leak gate: 1 false alarm in 3 runs of programs that do not leak");
    expect(md).toMatch(/\| b \| run \| leak \| fragmentation \| 80% \|/);
    expect(md).toMatch(/\| e \| watch \| stable \| none \| – \| timed out \|/);
    const svg = reliabilitySvg([{ label: "t", bins: calibration(runs), colour: "#123" }]);
    expect(svg.match(/<circle [^>]*fill-opacity/g)).toHaveLength(3);
  });
});
