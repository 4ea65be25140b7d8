/**
 * What `watch` adds to the verdict engine, as decision tables on seeded synthetic series:
 *   - a shared cgroup whose growth the watched tree does not explain is its own finding, never the verdict;
 *   - a process the agent could not see into says what that leaves undecided, and is not confidently `stable`.
 */
import { describe, expect, it } from "vitest";
import { TREE_EXPLAINS } from "../../../src/analysis/classify.js";
import { classify } from "../../../src/report/verdict.js";
import { evaluateGates } from "../../../src/gates/gates.js";
import { buildSeries } from "../../../src/series/series.js";
import { UNSEEN_STABLE_CONFIDENCE } from "../../../src/analysis/signals/unseen.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import { MB, synthesize, type SynthScenario } from "../../helpers/synthetic-samples.js";

const CG = { path: "/shared", version: 1 as const };

function verdictOf(
  sc: SynthScenario,
  cgroup: { others?: number[]; othersAnonGrowth?: number } = {},
  agentMissing?: Map<number, string>,
): VerdictDocument {
  return classify({
    set: buildSeries(synthesize(sc)),
    options: {},
    cgroup: { ...CG, ...cgroup },
    target: { pid: 100 },
    agentMissing,
  });
}

const watched = (
  anon: SynthScenario["processes"][0]["anon"],
  outsiders?: SynthScenario["outsiders"],
): SynthScenario => ({
  seconds: 300,
  processes: [{ pid: 100, ppid: 1, anon }],
  ...(outsiders && { outsiders }),
});
const flat = { shape: { kind: "stable" as const }, noise: 2 * MB };
const leaking = (mbPerSecond: number) => ({
  shape: { kind: "linear" as const, bytesPerSecond: mbPerSecond * MB },
  noise: 1 * MB,
});

describe("a shared cgroup: the verdict is about the watched tree", () => {
  // watched process, outsiders in the cgroup, others listed? → verdict kind/subject, cgroup finding outside?
  const TABLE: [string, SynthScenario, number[], string, string, boolean | undefined][] = [
    ["steady pid, an outsider leaks 1 MB/s", watched(flat, leaking(1)), [200], "stable", "process", true],
    [
      "steady pid, an outsider leaks, but nobody else is in the cgroup (isolated run)",
      watched(flat, leaking(1)),
      [],
      "leak",
      "cgroup",
      undefined,
    ],
    ["the pid leaks 1 MB/s, an outsider too", watched(leaking(1), leaking(1)), [200], "leak", "process", undefined],
    ["the pid leaks 1 MB/s, outsiders steady", watched(leaking(1), flat), [200], "leak", "process", undefined],
  ];
  it.each(TABLE)("%s → %s of the %s", (_name, sc, others, kind, subject, outside) => {
    const doc = verdictOf(sc, { others, othersAnonGrowth: others.length ? 290 * MB : undefined });
    expect(doc.verdict.kind).toBe(kind);
    expect(doc.verdict.subject.type).toBe(subject);
    expect(doc.verdict.outsideWatchedTree).toBeUndefined();
    const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
    expect(cg.outsideWatchedTree).toBe(outside);
  });

  it("a watched process that grew and stopped (arenas filled) while the shared cgroup keeps growing: the outsiders'", () => {
    // The pid fills 225 MB in its first 150 s and stays; an outsider leaks 0.5 MB/s throughout. Over the window
    // (after the 75 s warm-up cap) the tree explains half the cgroup's growth, but only the outsider still grows.
    const sc: SynthScenario = {
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: { shape: { kind: "fill", bytesPerSecond: 1.5 * MB, until: 150 }, noise: 0.5 * MB } },
      ],
      outsiders: leaking(0.5),
    };
    const doc = verdictOf(sc, { others: [200], othersAnonGrowth: 150 * MB });
    expect(Number(doc.findings.find((f) => f.subject.type === "cgroup")!.evidence.processesGrowth)).toBeGreaterThan(
      0.34 * Number(doc.findings.find((f) => f.subject.type === "cgroup")!.evidence.usageGrowth),
    );
    expect(doc.findings.find((f) => f.subject.type === "process")!.kind).toBe("plateau");
    const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
    expect(cg.kind).toBe("leak");
    expect(cg.outsideWatchedTree).toBe(true);
    expect(doc.verdict.kind).toBe("plateau");
  });

  it("the cgroup finding says it grows, by how much, and that outsiders account for it", () => {
    const doc = verdictOf(watched(flat, leaking(1)), { others: [200, 201], othersAnonGrowth: 290 * MB });
    const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
    expect(cg.summary).toMatch(/the cgroup grows by .*MiB, at .*\/s.*, but not because of the watched tree \(/);
    expect(cg.summary).toMatch(
      /the 2 other processes in it \(PID 200, 201\) account for \+2\d\d MiB of anonymous memory/,
    );
    expect(cg.evidence).toMatchObject({
      outsideWatchedTree: true,
      otherProcessesInCgroup: 2,
      otherProcessesAnonGrowth: 290 * MB,
    });
  });

  it("one outsider: its verb agrees; --fail-on leak passes and says the cgroup's leak is outside the watched tree", () => {
    const doc = verdictOf(watched(flat, leaking(1)), { others: [200], othersAnonGrowth: 290 * MB });
    const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
    expect(cg.summary).toMatch(/the 1 other process in it \(PID 200\) accounts for \+2\d\d MiB of anonymous memory/);
    const set = buildSeries(synthesize(watched(flat, leaking(1))));
    const [gate] = evaluateGates(doc, set, { metric: "pss", perProcess: false, failOn: ["leak"] });
    expect(gate).toMatchObject({
      name: "fail-on",
      passed: true,
      message: "no leak in the watched tree (the cgroup's leak is outside it: not gated)",
    });
    // The same cgroup finding under a watched tree that could not be judged: inconclusive, and still said as outside.
    const undecided = { ...doc, verdict: { ...doc.verdict, kind: "insufficient-data" as const } };
    expect(evaluateGates(undecided, set, { metric: "pss", perProcess: false, failOn: ["leak"] })[0]).toMatchObject({
      result: "inconclusive",
      message: expect.stringMatching(
        /^no leak in the watched tree \(the cgroup's leak is outside it: not gated\), but nothing could be judged: /,
      ),
    });
  });

  it("growth that neither the tree nor the outsiders explain is said as such, with where else it can be", () => {
    const doc = verdictOf(watched(flat, leaking(1)), { others: [200], othersAnonGrowth: 10 * MB });
    const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
    expect(cg.summary).toMatch(
      /accounts for \+10\.0 MiB of anonymous memory; 2\d\d MiB more is not accounted for by either \(the other processes' anon is read at the watch's two ends\): processes that started or ended during the watch, or the kernel's memory charged to the cgroup \(page cache, slab\), can hold it$/,
    );
    const explained = verdictOf(watched(flat, leaking(1)), { others: [200], othersAnonGrowth: 290 * MB });
    expect(explained.findings.find((f) => f.subject.type === "cgroup")!.summary).not.toMatch(/not accounted for/);
  });

  it("without the outsiders' /proc, it says their memory could not be read", () => {
    const doc = verdictOf(watched(flat, leaking(1)), { others: [200] });
    expect(doc.findings.find((f) => f.outsideWatchedTree)!.summary).toMatch(
      /1 other process shares it \(PID 200\), whose memory memleak could not read/,
    );
  });

  it(`boundary: the tree explaining ${(TREE_EXPLAINS * 100).toFixed(0)}% or more of the growth keeps the cgroup finding its own`, () => {
    // the pid grows 0.45 MB/s, the outsider 0.55 MB/s: the tree (Σ PSS ≈ 0.9 × anon) explains ~40%
    const doc = verdictOf(watched(leaking(0.45), leaking(0.55)), { others: [200] });
    expect(doc.findings.find((f) => f.subject.type === "cgroup")!.outsideWatchedTree).toBeUndefined();
    // the pid grows 0.3 MB/s (still a leak), the outsider 0.7 MB/s: the tree explains ~27%
    const mostlyOthers = verdictOf(watched(leaking(0.3), leaking(0.7)), { others: [200] });
    expect(mostlyOthers.verdict).toMatchObject({ kind: "leak", pid: 100 });
    expect(mostlyOthers.findings.find((f) => f.subject.type === "cgroup")!.outsideWatchedTree).toBe(true);
  });
});

describe("a shared cgroup growing with a file the watched process maps", () => {
  it("is the watched tree's page cache, not the outsiders' doing", () => {
    const sc: SynthScenario = {
      seconds: 300,
      processes: [
        {
          pid: 100,
          ppid: 1,
          anon: flat,
          file: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 0.05 * MB },
        },
      ],
      outsiders: flat,
    };
    const doc = verdictOf(sc, { others: [200], othersAnonGrowth: 0 });
    const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
    expect(cg).toMatchObject({ kind: "cgroup-artefact", evidence: { growthIn: "mapped-file" } });
    expect(cg.outsideWatchedTree).toBeUndefined();
    expect(doc.verdict.kind).toBe("cgroup-artefact");
  });
});

describe("a process the agent could not see into", () => {
  const big = (shape: SynthScenario["processes"][0]["anon"]["shape"]): SynthScenario => ({
    seconds: 300,
    processes: [{ pid: 100, ppid: 1, anon: { shape, noise: 2 * MB, baseline: 600 * MB } }],
  });
  const refused = new Map([[100, "gdb is not installed"]]);

  // process memory, agent refused? → caveat?, stable confidence capped?
  const TABLE: [string, SynthScenario, Map<number, string> | undefined, boolean][] = [
    ["600 MB flat, injection refused", big({ kind: "stable" }), refused, true],
    ["600 MB flat, no agent in the session", big({ kind: "stable" }), undefined, true],
    [
      "600 MB flat, with the agent's numbers",
      {
        ...big({ kind: "stable" }),
        processes: [
          { ...big({ kind: "stable" }).processes[0]!, agent: () => ({ malloc: { inUse: 590 * MB, free: 1 * MB } }) },
        ],
      },
      refused,
      false,
    ],
    [
      "40 MB flat, injection refused (too small for retention to matter)",
      {
        ...big({ kind: "stable" }),
        processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, noise: 1 * MB, baseline: 40 * MB } }],
      },
      refused,
      false,
    ],
    [
      "600 MB ratcheting up in steps, injection refused",
      big({ kind: "step", at: 150, height: 200 * MB }),
      refused,
      true,
    ],
    ["a leak, injection refused", big({ kind: "linear", bytesPerSecond: 1 * MB }), refused, true],
  ];
  it.each(TABLE)("%s → caveat: %s", (_name, sc, missing, caveat) => {
    const doc = classify({
      set: buildSeries(synthesize(sc)),
      options: {},
      target: { pid: 100 },
      agentMissing: missing,
    });
    const f = doc.findings.find((x) => x.pid === 100)!;
    const said = f.caveats.some((c) => /allocator retention not ruled out: without the agent/.test(c));
    expect(said).toBe(caveat);
    if (caveat) {
      expect(f.caveats.join(" ")).toContain(missing ? "gdb is not installed" : "no agent in this session");
      expect(f.advice).toMatch(/`memleak watch 100`.*|memleak run/s);
      if (f.kind === "stable") expect(f.confidence).toBeLessThanOrEqual(UNSEEN_STABLE_CONFIDENCE);
    }
    if (missing && Object.keys(sc.processes[0]!.agent ?? {}).length === 0 && !sc.processes[0]!.agent) {
      expect(f.evidence).toMatchObject({ agent: "missing", agentMissingReason: "gdb is not installed" });
    }
  });
});
