/**
 * Which limit each leaking subject counts down to (limit-countdowns.ts), on the series directly: the cgroup's limits
 * by version, what the cgroup's counted series holds, and which series a process's, the tree's and the cgroup's leak
 * is counted on with and without a limit. The whole engine's table is in time-to-limit.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { JudgedFinding } from "../../../src/analysis/judgement.js";
import { cgroupCountdown, cgroupLimits, withTimeToLimit } from "../../../src/analysis/limit-countdowns.js";
import { phrase } from "../../../src/analysis/phrases.js";
import { buildSeries, type SeriesSet } from "../../../src/series/series.js";
import type { Subject } from "../../../src/analysis/types.js";
import { MB, synthesize } from "../../helpers/synthetic-samples.js";

const GiB = 1024 * MB;

describe("cgroupLimits", () => {
  it("v1: memory.limit_in_bytes; memory.high is v2's", () => {
    expect(cgroupLimits({ cgroupLimit: 1 * GiB, cgroupHigh: 600 * MB }, 1)).toEqual([
      { kind: "container", source: "memory.limit_in_bytes", bytes: 1 * GiB },
    ]);
  });
  it("v2: memory.max and memory.high", () => {
    expect(cgroupLimits({ cgroupLimit: 1 * GiB, cgroupHigh: 600 * MB }, 2)).toEqual([
      { kind: "container", source: "memory.max", bytes: 1 * GiB },
      { kind: "container", source: "memory.high", bytes: 600 * MB },
    ]);
  });
  it("unset ones are left out", () => {
    expect(cgroupLimits({ cgroupLimit: null, cgroupHigh: 600 * MB }, 2)).toEqual([
      { kind: "container", source: "memory.high", bytes: 600 * MB },
    ]);
    expect(cgroupLimits({ cgroupLimit: undefined, cgroupHigh: null }, 2)).toEqual([]);
  });
});

/** Process 100 leaking 1 MiB/s for 300 s in a cgroup, the machine with 20 GiB available; `limit` on the cgroup. */
function leaking(limit: number | null = null): SeriesSet {
  const samples = synthesize({
    seconds: 300,
    processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 1 * MB } }],
  });
  return buildSeries(
    samples.map((s) => ({
      ...s,
      cgroup: { ...s.cgroup!, limit },
      machine: { memTotal: 24 * GiB, memAvailable: 20 * GiB },
    })),
  );
}

const processSubject: Subject = {
  type: "process",
  pid: 100,
  starttime: 1000,
  ppid: 1,
  command: "python3",
  isRoot: true,
};
const leakOf = (subject: Subject, kind: JudgedFinding["kind"] = "leak") =>
  ({
    kind,
    subject,
    confidence: 0.9,
    metric: "anon",
    summary: phrase("verdict.no-samples", {}),
    evidence: {},
    advice: [],
    caveats: [],
  }) as JudgedFinding;
const countdown = (f: JudgedFinding, set: SeriesSet, version: 1 | 2 | undefined) =>
  withTimeToLimit([f], set, 0, version)[0]!.timeToLimit;

describe("cgroupCountdown", () => {
  it("counts anon, shmem and the kernel's part where they were read", () =>
    expect(cgroupCountdown(leaking(), 1, 0)?.counted).toBe("anon + shmem + kernel"));
  it("and only anon where they were not", () => {
    const set = leaking();
    delete set.cgroup["cgroup-shmem"];
    delete set.cgroup["cgroup-kernel"];
    expect(cgroupCountdown(set, 1, 0)?.counted).toBe("anon");
  });
  it("nothing without the cgroup's unreclaimable series", () => {
    const set = leaking();
    delete set.cgroup["cgroup-unreclaimable"];
    expect(cgroupCountdown(set, 1, 0)).toBeUndefined();
  });
});

describe("withTimeToLimit", () => {
  it("a process with no cgroup limit counts its own anon towards the machine", () => {
    const t = countdown(leakOf(processSubject), leaking(), 1);
    expect(t).toMatchObject({ metric: "anon", counted: "anon", limit: { source: "MemAvailable" } });
  });
  it("…and with no cgroup at all", () =>
    expect(countdown(leakOf(processSubject), leaking(), undefined)).toMatchObject({ metric: "anon", counted: "anon" }));
  it("under a cgroup limit, the cgroup's countdown", () => {
    expect(countdown(leakOf(processSubject), leaking(1 * GiB), 1)).toMatchObject({
      metric: "cgroup-unreclaimable",
      limit: { source: "memory.limit_in_bytes" },
    });
  });
  it("a limit read without knowing the cgroup's version is no cgroup countdown: the process's own", () => {
    expect(countdown(leakOf(processSubject), leaking(1 * GiB), undefined)).toMatchObject({
      metric: "anon",
      counted: "anon",
      limit: { source: "MemAvailable" },
    });
  });
  it("the tree counts its Σ anon", () => {
    expect(countdown(leakOf({ type: "tree", processes: 1 }), leaking(), 1)).toMatchObject({
      metric: "anon",
      counted: "anon",
    });
  });
  it("the cgroup counts its own series, limit or not", () => {
    expect(countdown(leakOf({ type: "cgroup", path: "/test", version: 1 }), leaking(), 1)).toMatchObject({
      metric: "cgroup-unreclaimable",
      limit: { source: "MemAvailable" },
    });
  });
  it("a cgroup not known to be one (no version) has none", () => {
    expect(countdown(leakOf({ type: "cgroup", path: "/test", version: 1 }), leaking(), undefined)).toBeUndefined();
  });
  it("a process the series do not hold has none", () => {
    expect(countdown(leakOf({ ...processSubject, starttime: 1 }), leaking(), 1)).toBeUndefined();
  });
  it("what is not a leak is returned as it is", () => {
    const f = leakOf(processSubject, "plateau");
    expect(withTimeToLimit([f], leaking(), 0, 1)[0]).toBe(f);
  });
});
