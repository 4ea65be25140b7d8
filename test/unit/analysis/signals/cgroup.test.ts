/**
 * Boundaries of the cgroup rules, signals/cgroup.ts. The cgroup grows; memory.stat says where:
 *   page cache + kernel ≥ 60% of the growth, and the processes' Σ PSS ≤ 30% of it → cgroup-artefact
 *   shmem ≥ 50% of it                                                           → a shmem leak (or plateau)
 *   otherwise                                                                   → anon: leak or plateau
 * The process (pid 100) stays flat in every case here; the cgroup's anon grows through processes outside the tree
 * that memleak was not told about (as in a container whose other processes it does not list).
 */
import { describe, expect, it } from "vitest";
import type { SynthScenario } from "../../../helpers/synthetic-samples.js";
import { flat, judge, linear, MB, subjectFinding } from "./judge.js";

interface Growth {
  cache?: number;
  kernel?: number;
  shmem?: number;
  /** Anonymous memory of processes outside the tree. */
  anon?: number;
  /** The watched process's USS (so its PSS), which the cgroup does not see as usage here. */
  pss?: number;
}

/** Rates in MiB/s over 300 s; the process's RSS is flat. */
function cgroupGrows(g: Growth): SynthScenario {
  const rate = (mib = 0) => linear(0, mib * MB, 0.05 * MB);
  return {
    seconds: 300,
    processes: [
      { pid: 100, ppid: 1, anon: flat(200 * MB), uss: g.pss ? linear(150 * MB, g.pss * MB, 0.2 * MB) : flat(150 * MB) },
    ],
    ...(g.cache && { cache: rate(g.cache) }),
    ...(g.kernel && { kernel: { ...rate(g.kernel), baseline: 10 * MB } }),
    ...(g.shmem && { shmem: rate(g.shmem) }),
    ...(g.anon && { outsiders: rate(g.anon) }),
  };
}

const cgroupOf = (g: Growth) => subjectFinding(judge(cgroupGrows(g), { warmup: 0 }), "cgroup");

/** The watched process maps a file it reads at `mapped` MiB/s; other page cache grows at `cache` MiB/s. */
function mapsAFile(mapped: number, cache = 0, noPssAnon = false): SynthScenario {
  return {
    seconds: 300,
    noPssAnon,
    processes: [{ pid: 100, ppid: 1, anon: flat(200 * MB), file: linear(30 * MB, mapped * MB, 0.05 * MB) }],
    ...(cache && { cache: linear(0, cache * MB, 0.05 * MB) }),
  };
}

describe("mapped files (a model loaded with mmap, np.memmap, a memory-mapped dataset)", () => {
  it.each([
    ["the processes map 60% of the page cache growth", 0.6, 0.4, "mapped-file"],
    ["the processes map 40% of it", 0.4, 0.6, "page-cache"],
  ])("%s → growth in %s", (_name, mapped, cache, where) => {
    const f = subjectFinding(judge(mapsAFile(mapped, cache), { warmup: 0 }), "cgroup");
    expect(f.kind).toBe("cgroup-artefact");
    expect(f.evidence.growthIn).toBe(where);
  });

  it("the process's own finding is stable (anon is flat) and says its resident file pages grew", () => {
    const r = judge(mapsAFile(1), { warmup: 0 });
    const p = subjectFinding(r, "process");
    expect(p.kind).toBe("stable");
    expect(p.summary).toMatch(
      /; resident file pages grew 2\d\d MiB: page cache the kernel can drop, not counted as growth here$/,
    );
    expect(p.evidence.fileBackedGrowth as number).toBeGreaterThan(250 * MB);
    expect(r.findings.filter((f) => f.kind === "leak")).toEqual([]);
  });

  it("on a kernel without Pss_Anon, where the processes' PSS grows with the file, it is still no leak: anon did not grow", () => {
    const r = judge(mapsAFile(1, 0, true), { warmup: 0 });
    const cg = subjectFinding(r, "cgroup");
    expect(cg.evidence.processesMetric).toBe("Σ pss");
    expect(Number(cg.evidence.processesGrowth)).toBeGreaterThan(0.9 * Number(cg.evidence.usageGrowth));
    expect(cg).toMatchObject({ kind: "cgroup-artefact", evidence: { growthIn: "mapped-file" } });
    expect(r.findings.filter((f) => f.kind === "leak")).toEqual([]);
  });
});

describe("cgroup-artefact boundaries", () => {
  it.each([
    ["page cache 55% of the growth, anon 45%", { cache: 0.55, anon: 0.45 }, "leak", "anon"],
    ["page cache 65% of the growth, anon 35%", { cache: 0.65, anon: 0.35 }, "cgroup-artefact", "page-cache"],
    ["kernel memory 65%, anon 35%", { kernel: 0.65, anon: 0.35 }, "cgroup-artefact", "kernel"],
    [
      "page cache 35% + kernel 30%, anon 35%: together they explain it",
      { cache: 0.35, kernel: 0.3, anon: 0.35 },
      "cgroup-artefact",
      "page-cache",
    ],
    [
      "page cache 70%, the processes' PSS grows by 25% of it",
      { cache: 0.7, anon: 0.3, pss: 0.25 },
      "cgroup-artefact",
      "page-cache",
    ],
    ["page cache 70%, the processes' PSS grows by 35% of it", { cache: 0.7, anon: 0.3, pss: 0.35 }, "leak", "anon"],
    ["shmem 45%, anon 55%", { shmem: 0.45, anon: 0.55 }, "leak", "anon"],
    ["shmem 55%, anon 45%", { shmem: 0.55, anon: 0.45 }, "leak", "shmem"],
  ] as [string, Growth, string, string][])("%s → %s (growth in %s)", (_name, g, kind, where) => {
    const f = cgroupOf(g);
    expect(f.kind).toBe(kind);
    expect(f.evidence.growthIn).toBe(where);
  });

  it("an artefact is as sure as the share cache and kernel explain: 0.5 + 0.49 × share", () => {
    expect(cgroupOf({ cache: 0.8, anon: 0.2 }).confidence).toBeCloseTo(0.89, 1);
    expect(cgroupOf({ cache: 1 }).confidence).toBe(0.99);
  });

  it("says how much the cgroup and its processes grew, where, and what the working set did", () => {
    const f = cgroupOf({ cache: 1 });
    expect(f.summary).toMatch(
      /^the cgroup grew by 2\d\d MiB but its processes did not \(.*\): the growth is page cache \(\+2\d\d MiB\); working set .* → .*/,
    );
    for (const key of [
      "usageGrowth",
      "anonGrowth",
      "pageCacheGrowth",
      "shmemGrowth",
      "kernelGrowth",
      "processesGrowth",
      "workingSetGrowth",
    ]) {
      expect(f.evidence, key).toHaveProperty(key);
    }
    expect(Number(f.evidence.pageCacheGrowth) / Number(f.evidence.usageGrowth)).toBeGreaterThan(0.95);
  });

  it("a shmem leak says it is not reclaimable cache", () => {
    expect(cgroupOf({ shmem: 1 }).summary).toMatch(
      /shared memory \(tmpfs, \/dev\/shm\) grows: \+\d+ MiB; it is not reclaimable cache/,
    );
  });

  it("a cgroup that filled and stopped is a plateau; one that did not grow is stable", () => {
    const filled: SynthScenario = {
      seconds: 300,
      processes: [{ pid: 100, ppid: 1, anon: flat(200 * MB) }],
      outsiders: { shape: { kind: "fill", bytesPerSecond: 1 * MB, until: 100 }, baseline: 0, noise: 0.05 * MB },
    };
    expect(subjectFinding(judge(filled), "cgroup").kind).toBe("plateau");
    expect(subjectFinding(judge(cgroupGrows({})), "cgroup").kind).toBe("stable");
  });
});
