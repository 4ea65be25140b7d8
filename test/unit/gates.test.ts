import { describe, expect, it } from "vitest";
import { classify } from "../../src/analysis/classify.js";
import { buildSeries } from "../../src/analysis/series.js";
import { evaluateGates, parseKinds, type GateOptions } from "../../src/gates.js";
import { MB, synthesize } from "../support/synthetic-samples.js";

const leak = synthesize({ seconds: 300, processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 0.5 * MB }, noise: 2 * MB } }] });
const flat = synthesize({ seconds: 300, processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, noise: 2 * MB } }] });

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

  it("per-process gates name the pid", () => {
    const [g] = gates(leak, { metric: "anon", perProcess: true, maxGrowth: { kind: "bytes", bytes: 50 * MB } });
    expect(g!.message).toMatch(/^PID 100 anon grew/);
  });

  it("no readings for the metric is a failed gate, not a silent pass", () => {
    const noCg = synthesize({ seconds: 60, noCgroup: true, processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" } } }] });
    const [g] = gates(noCg, { metric: "cgroup", maxGrowth: { kind: "bytes", bytes: 1 } });
    expect(g).toMatchObject({ passed: false, message: expect.stringMatching(/no cgroup readings/) });
  });

  it("kinds are validated", () => {
    expect(parseKinds("leak,cow")).toEqual({ ok: true, value: ["leak", "cow"] });
    expect(parseKinds("leak,leaky")).toMatchObject({ ok: false, message: expect.stringMatching(/unknown verdict kind "leaky"/) });
    expect(parseKinds("")).toMatchObject({ ok: false });
  });
});
