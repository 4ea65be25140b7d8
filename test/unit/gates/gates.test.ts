import { describe, expect, it } from "vitest";
import { classify } from "../../../src/report/verdict.js";
import { buildSeries } from "../../../src/series/series.js";
import { evaluateGates } from "../../../src/gates/gates.js";
import { everyFinding } from "../../../src/analysis/every-finding.js";
import { parseKinds, type GateOptions } from "../../../src/gates/spec.js";
import { MB, synthesize } from "../../helpers/synthetic-samples.js";

const leak = synthesize({
  seconds: 300,
  processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 0.5 * MB }, noise: 2 * MB } }],
});
const flat = synthesize({
  seconds: 300,
  processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, noise: 2 * MB } }],
});

function gates(samples: typeof leak, o: Partial<GateOptions>) {
  const set = buildSeries(samples);
  const doc = classify({ set, options: {}, cgroup: { path: "/t", version: 1 }, target: { pid: 100 } });
  return evaluateGates(doc, set, { metric: "pss", perProcess: false, ...o });
}

describe("CI gates", () => {
  // gate options                                        leak   flat
  it.each([
    [{ maxGrowth: { kind: "bytes" as const, bytes: 50 * MB } }, false, true],
    [{ maxGrowth: { kind: "bytes" as const, bytes: 500 * MB } }, true, true],
    [{ maxGrowth: { kind: "percent" as const, percent: 10 } }, false, true],
    [{ maxRate: { bytesPerSecond: 0.1 * MB, text: "6MiB/min" } }, false, true],
    [{ maxRate: { bytesPerSecond: 1 * MB, text: "60MiB/min" } }, true, true],
    [{ failOn: parseKinds("leak,fragmentation").ok ? (["leak", "fragmentation"] as const).slice() : [] }, false, true],
    [{ metric: "cgroup" as const, maxGrowth: { kind: "bytes" as const, bytes: 50 * MB } }, false, true],
    [{ metric: "anon" as const, perProcess: true, maxGrowth: { kind: "bytes" as const, bytes: 50 * MB } }, false, true],
  ])("%j passes on leak: %s, on flat: %s", (o, leakPasses, flatPasses) => {
    const onLeak = gates(leak, o);
    const onFlat = gates(flat, o);
    expect(onLeak.length).toBeGreaterThan(0);
    expect(onLeak.every((g) => g.passed)).toBe(leakPasses);
    expect(onFlat.every((g) => g.passed)).toBe(flatPasses);
  });

  it("a failed gate names the gate, the subject, the measured value and the limit", () => {
    const [g] = gates(leak, { maxGrowth: { kind: "bytes", bytes: 50 * MB } });
    expect(g!.name).toBe("max-growth");
    expect(g!.message).toMatch(/^tree Σ pss grew \d+(\.\d+)? MiB \(.* → .*\).*; limit 50\.0 MiB$/);
  });

  it("a failed --fail-on names the first finding; the tree's and cgroup's growth its leak explains is said as such", () => {
    const set = buildSeries(leak);
    const doc = classify({ set, options: {}, cgroup: { path: "/t", version: 1 }, target: { pid: 100 } });
    const leaks = everyFinding(doc.findings).filter((f) => f.kind === "leak" && !f.outsideWatchedTree);
    // The process's leak, and the cgroup's that it explains: one leak, not "(and 1 more finding)".
    expect(leaks.map((f) => [f.subject.type, f.evidence.explainedByPids])).toEqual([
      ["process", undefined],
      ["cgroup", "100"],
    ]);
    const [g] = evaluateGates(doc, set, { metric: "pss", perProcess: false, failOn: ["leak"] });
    expect(g!.message).toBe(`leak found: ${leaks[0]!.summary} (the cgroup grows with it)`);
    // A second leak of its own is counted as one.
    const first = leaks[0]!;
    const another = {
      ...first,
      pid: 101,
      subject: { ...(first.subject as Extract<typeof first.subject, { type: "process" }>), pid: 101 },
    };
    const two = { ...doc, findings: [...doc.findings, another] };
    expect(evaluateGates(two, set, { metric: "pss", perProcess: false, failOn: ["leak"] })[0]!.message).toBe(
      `leak found: ${leaks[0]!.summary} (and 1 more finding; the cgroup grows with it)`,
    );
    const one = { ...doc, findings: doc.findings.slice(0, 1).map((f) => ({ ...f, alsoFound: undefined })) };
    expect(evaluateGates(one, set, { metric: "pss", perProcess: false, failOn: ["leak"] })[0]!.message).not.toMatch(
      /more finding/,
    );
  });

  it("per-process gates name the pid", () => {
    const [g] = gates(leak, { metric: "anon", perProcess: true, maxGrowth: { kind: "bytes", bytes: 50 * MB } });
    expect(g!.message).toMatch(/^PID 100 anon grew/);
  });

  it("no readings for the metric is an inconclusive gate, not a silent pass; --strict fails it", () => {
    const noCg = synthesize({
      seconds: 60,
      noCgroup: true,
      processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" } } }],
    });
    const [g] = gates(noCg, { metric: "cgroup", maxGrowth: { kind: "bytes", bytes: 1 } });
    expect(g).toMatchObject({
      result: "inconclusive",
      passed: true,
      message: expect.stringMatching(/no cgroup readings/),
    });
    const [strict] = gates(noCg, { metric: "cgroup", maxGrowth: { kind: "bytes", bytes: 1 }, strict: true });
    expect(strict).toMatchObject({ result: "inconclusive", passed: false });
  });

  describe("a gate the data cannot decide is inconclusive, never a silent pass", () => {
    const short = (seconds: number, bytesPerSecond = 0) =>
      synthesize({
        seconds,
        processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond }, noise: 0.05 * MB } }],
      });
    it("--fail-on leak on a 5 s steady script: inconclusive (nothing could be judged), passing unless --strict", () => {
      const [g] = gates(short(5), { failOn: ["leak"] });
      expect(g).toMatchObject({
        name: "fail-on",
        result: "inconclusive",
        passed: true,
        message: expect.stringMatching(/^no leak found, but nothing could be judged: .*not enough data/),
      });
      expect(gates(short(5), { failOn: ["leak"], strict: true })[0]).toMatchObject({
        result: "inconclusive",
        passed: false,
      });
    });
    it("--fail-on leak on 15 s of a 3 MiB/s leak: failed (the early test called it)", () => {
      expect(gates(short(15, 3 * MB), { failOn: ["leak"] })[0]).toMatchObject({ result: "fail", passed: false });
    });
    it("--fail-on insufficient-data asks for it: a fail, not inconclusive", () => {
      expect(gates(short(5), { failOn: ["insufficient-data"] })[0]).toMatchObject({ result: "fail" });
    });
    it("--max-rate on 8 s: inconclusive when flat; failed when the early test sees growth faster than the limit", () => {
      expect(gates(short(8), { maxRate: { bytesPerSecond: 0.1 * MB, text: "6MiB/min" } })[0]).toMatchObject({
        result: "inconclusive",
        message: expect.stringMatching(/too few for a rate/),
      });
      expect(gates(short(15, 3 * MB), { maxRate: { bytesPerSecond: 1 * MB, text: "60MiB/min" } })[0]).toMatchObject({
        result: "fail",
        message: expect.stringMatching(/early test/),
      });
      expect(gates(short(15, 3 * MB), { maxRate: { bytesPerSecond: 5 * MB, text: "300MiB/min" } })[0]).toMatchObject({
        result: "inconclusive",
      });
    });
    it("--max-growth on fewer than 6 readings: inconclusive (its start and end levels would overlap), 6 decide", () => {
      const at = (seconds: number) => gates(short(seconds, 3 * MB), { maxGrowth: { kind: "bytes", bytes: 1 * MB } })[0];
      expect(at(5)).toMatchObject({
        result: "inconclusive",
        message: expect.stringMatching(/5 readings, too few to compare a start with an end \(needs 6\)/),
      });
      expect(at(6)).toMatchObject({ result: "fail", subject: "tree Σ pss" });
    });

    it("--max-growth with a warm-up that covers the run: inconclusive", () => {
      expect(gates(short(10), { maxGrowth: { kind: "bytes", bytes: 50 * MB }, warmup: 60 })[0]).toMatchObject({
        result: "inconclusive",
        message: expect.stringMatching(/too few to compare/),
      });
    });
  });

  it("kinds are validated", () => {
    expect(parseKinds("leak,cow")).toEqual({ ok: true, value: ["leak", "cow"] });
    expect(parseKinds("leak,leaky")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/unknown verdict kind "leaky"/),
    });
    expect(parseKinds("")).toMatchObject({ ok: false });
  });
});
