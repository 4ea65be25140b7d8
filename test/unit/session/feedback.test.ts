/**
 * The next-step lines run and watch print after the verdict (src/session/feedback.ts), on a real recording's verdict:
 * what fits the options the user gave — no hint for what they already asked for.
 */
import { describe, expect, it } from "vitest";
import { nextSteps } from "../../../src/session/feedback.js";
import type { GateOptions } from "../../../src/gates/spec.js";
import { docOf } from "../../helpers/analyze.js";

const noGate: GateOptions = { metric: "pss", perProcess: false };

describe("nextSteps", () => {
  it("a leak with no gate, no recording and no HTML: how to fail CI, keep the samples and get charts", async () => {
    const doc = await docOf("leak_main.jsonl");
    expect(nextSteps(doc, { gates: noGate })).toEqual([
      "memleak: next: the exit code is 0 on a leak unless a gate asks: add --fail-on leak to fail a CI step on it (exit code 1)\n",
      "memleak: next: add --record run.jsonl to keep the samples, then `memleak analyze run.jsonl` analyzes them again (--html for charts)\n",
    ]);
  });

  it("none after fewer than two samples: one reading is no series to keep or analyze again", async () => {
    const doc = await docOf("leak_main.jsonl");
    for (const samples of [0, 1]) {
      expect(nextSteps({ ...doc, window: { ...doc.window, samples } }, { gates: noGate })).toEqual([]);
    }
    expect(nextSteps({ ...doc, window: { ...doc.window, samples: 2 } }, { gates: noGate })).toHaveLength(2);
  });

  it("--html given: where the report went, and no offer of charts", async () => {
    const doc = await docOf("leak_main.jsonl");
    const gates: GateOptions = { ...noGate, failOn: ["leak"] };
    expect(nextSteps(doc, { gates, html: "out/report.html" })).toEqual([
      "memleak: the HTML report is in out/report.html: charts of every series, for a browser\n",
      "memleak: next: add --record run.jsonl to keep the samples, then `memleak analyze run.jsonl` analyzes them again\n",
    ]);
    expect(nextSteps(doc, { gates, html: "r.html", record: "run.jsonl" })).toEqual([
      "memleak: the HTML report is in r.html: charts of every series, for a browser\n",
      "memleak: the samples are kept in run.jsonl: `memleak analyze run.jsonl` analyzes them again\n",
    ]);
    expect(nextSteps(doc, { gates, record: "run.jsonl" })).toEqual([
      "memleak: the samples are kept in run.jsonl: `memleak analyze run.jsonl` analyzes them again (add --html report.html for charts)\n",
    ]);
  });
});
