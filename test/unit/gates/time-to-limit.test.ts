/**
 * --min-time-to-limit: fails when a leak reaches its memory limit sooner than the given time even at the far end of
 * its range; passes when the far end is further or no leak grows towards a limit; inconclusive when nothing could
 * be judged. On verdicts of synthetic series (the analysis as it runs), through evaluateGates.
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../../src/report/verdict.js";
import { buildSeries } from "../../../src/series/series.js";
import { evaluateGates } from "../../../src/gates/gates.js";
import { parseCLI } from "../../../src/cli/parse.js";
import type { Sample } from "../../../src/system/sample.js";
import { MB, synthesize, type SynthScenario } from "../../helpers/synthetic-samples.js";

const GiB = 1024 * MB;

function gateOn(sc: SynthScenario, limit: number | null, min: { seconds: number; text: string }, strict = false) {
  const samples: Sample[] = synthesize(sc).map((s) => ({ ...s, cgroup: { ...s.cgroup!, limit } }));
  const set = buildSeries(samples);
  const doc = classify({ set, options: {}, cgroup: { path: "/t", version: 1 }, target: { pid: 100 } });
  const gates = evaluateGates(doc, set, { metric: "pss", perProcess: false, minTimeToLimit: min, strict });
  return { doc, gate: gates.find((g) => g.name === "min-time-to-limit")! };
}

const leak: SynthScenario = {
  seconds: 300,
  processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 3 * MB } }],
};
const steady: SynthScenario = {
  seconds: 300,
  processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, noise: 3 * MB } }],
};

describe("--min-time-to-limit", () => {
  // A 1 MB/s leak at ~409 MiB under a 1 GiB limit: ~10 minutes away.
  it("fails when even the slow end of the range is sooner than the time given", () => {
    const { doc, gate } = gateOn(leak, 1 * GiB, { seconds: 3600, text: "1h" });
    expect(doc.verdict.timeToLimit!.secondsMax!).toBeLessThan(3600);
    expect(gate.result).toBe("fail");
    expect(gate.passed).toBe(false);
    expect(gate.subject).toBe("PID 100");
    expect(gate.message).toMatch(
      /^PID 100: container limit 1\.00 GiB, .*: ~10 min .*; even the slow end \(\d+m\d\ds\) is sooner than --min-time-to-limit 1h$/,
    );
  });

  it("passes when the slow end is further away than the time given", () => {
    const { gate } = gateOn(leak, 1 * GiB, { seconds: 5 * 60, text: "5m" });
    expect(gate.result).toBe("pass");
    expect(gate.message).toMatch(/at the slow end, not sooner than 5m$/);
  });

  it("judges the slow end, not the estimate: a time between the two ends passes", () => {
    const { doc } = gateOn(leak, 1 * GiB, { seconds: 1, text: "1s" });
    const t = doc.verdict.timeToLimit!;
    const between = (t.seconds + t.secondsMax!) / 2;
    expect(gateOn(leak, 1 * GiB, { seconds: between, text: "between" }).gate.result).toBe("pass");
  });

  it("passes when nothing grows towards a limit", () => {
    const { gate } = gateOn(steady, 1 * GiB, { seconds: 3600, text: "1h" });
    expect(gate).toMatchObject({ result: "pass", message: "no leak grows towards a memory limit" });
  });

  it("is inconclusive when nothing could be judged, and fails the step under --strict", () => {
    const short: SynthScenario = { ...leak, seconds: 5 };
    expect(gateOn(short, 1 * GiB, { seconds: 3600, text: "1h" }).gate).toMatchObject({
      result: "inconclusive",
      passed: true,
    });
    expect(gateOn(short, 1 * GiB, { seconds: 3600, text: "1h" }, true).gate).toMatchObject({
      result: "inconclusive",
      passed: false,
    });
  });

  it("is parsed as a duration, quoted as typed; a malformed one is a usage error", () => {
    expect(parseCLI(["run", "--min-time-to-limit", "30m", "--", "python3", "x.py"])).toMatchObject({
      kind: "run",
      gates: { minTimeToLimit: { seconds: 1800, text: "30m" } },
    });
    expect(parseCLI(["watch", "1", "--min-time-to-limit", "2h", "--fail-fast"])).toMatchObject({
      gates: { minTimeToLimit: { seconds: 7200 }, failFast: true },
    });
    expect(parseCLI(["run", "--min-time-to-limit", "soon", "--", "python3", "x.py"])).toMatchObject({
      kind: "error",
      exitCode: 2,
      message: expect.stringMatching(/--min-time-to-limit.*"soon" is not a duration/),
    });
  });
});
