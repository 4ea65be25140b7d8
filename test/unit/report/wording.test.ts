/**
 * The wording of findings (src/report/wording/): facts in, the sentences the verdict document shows out. The
 * recordings' documents (analysis/verdict-golden.test.ts) pin most sentences; these pin the ones no recording makes,
 * the short form the live view uses, and the nesting of one sentence inside another.
 */
import { describe, expect, it } from "vitest";
import { phrase, type Phrase } from "../../../src/analysis/phrases.js";
import type { JudgedFinding, Judgement } from "../../../src/analysis/judgement.js";
import { renderVerdict, say, sayShort } from "../../../src/report/wording/index.js";

const MiB = 2 ** 20;
const who = { pid: 42, command: "python3 train.py" };

describe("a process's sentences", () => {
  const sentences: Phrase[] = [
    phrase("process.insufficient", { ...who, reason: "12 samples after warm-up (needs 20)" }),
    phrase("process.stable", { ...who, metric: "anon", start: 10 * MiB, end: 11 * MiB }),
    phrase("process.plateau", { ...who, step: true, growth: 50 * MiB, end: 80 * MiB }),
    phrase("process.retention", {
      ...who,
      anon: 600 * MiB,
      live: 12 * MiB,
      mallocInUse: NaN,
      mallocFree: 0,
      trimmed: 500 * MiB,
    }),
  ];

  it.each(sentences)("start with the process in full, and leave it out in the short form ($say)", (p) => {
    const full = say(p);
    expect(full.startsWith("PID 42 (python3 train.py)")).toBe(true);
    expect(full.endsWith(sayShort(p))).toBe(true);
    expect(sayShort(p)).not.toMatch(/PID 42|^[: ]/);
  });

  it("say what a wait for a full collection is, as the reason it cannot be judged yet", () => {
    const waiting = { growth: 6 * MiB, olderFreed: 1200, releases: 3, largestRelease: 4 * MiB, dueIn: 1 };
    expect(sayShort(phrase("process.insufficient", { ...who, reason: undefined, waiting }))).toBe(
      "not enough data (garbage cycles may be waiting for a full collection: +6.00 MiB since the last one (the older generations' collections freed 1,200 objects in this window, 3 times as memory fell by up to 4.00 MiB); a full collection comes due after 1 more generation-1 run, and memory that stays up after it is a leak)",
    );
  });
});

describe("sentences no recording makes yet", () => {
  it("memory a full collection gave back, for a process and for the tree it explains", () => {
    const released = phrase("gc.released", {
      growth: 6 * MiB,
      at: 290,
      lowBefore: 10 * MiB,
      lowAfter: 10.5 * MiB,
      olderFreed: 400,
      releases: 1,
      largestRelease: 4 * MiB,
    });
    expect(say(released)).toBe(
      "memory rose 6.00 MiB and came back down at the full garbage collection at 290 s (lows 10.0 MiB before, 10.5 MiB after): garbage cycles waiting for the collector, not a leak (the older generations' collections freed 400 objects in this window, once as memory fell by up to 4.00 MiB)",
    );
    expect(say(phrase("reconcile.backlog-released", { subject: "tree", growth: 6 * MiB, pids: "100" }))).toBe(
      "the process tree rose by 6.00 MiB and came back down when PID 100 ran a full garbage collection",
    );
  });

  it("a shared cgroup's growth that the watched tree does not explain keeps the artefact's own sentence after it", () => {
    const artefact = phrase("cgroup.artefact", {
      variant: "kernel",
      usage: 40 * MiB,
      processes: 0,
      processesMetric: "pss",
      kernel: 38 * MiB,
      cache: 1 * MiB,
      files: undefined,
      wsStart: 100 * MiB,
      wsEnd: 140 * MiB,
    });
    const outside = phrase("reconcile.outside", {
      growth: 40 * MiB,
      rate: undefined,
      tree: -MiB,
      others: [7, 8],
      othersAnonGrowth: undefined,
      artefact,
    });
    expect(say(outside)).toBe(
      `the cgroup grows by 40.0 MiB, but not because of the watched tree (-1.00 MiB): 2 other processes share it (PID 7, 8), whose memory memleak could not read; ${say(artefact)}`,
    );
    expect(say(artefact)).toBe(
      "the cgroup grew by 40.0 MiB but its processes did not (0 B): the growth is kernel memory (+38.0 MiB); working set 100 MiB → 140 MiB",
    );
  });

  it("a cgroup's growth that a leak explains in part: mostly or partly because, with both figures", () => {
    const of = phrase("cgroup.leak", {
      rate: { bytesPerSecond: MiB, percentPerHour: 2000 },
      start: 10 * MiB,
      end: 50 * MiB,
      agentsTakenOut: false,
    });
    const part = (grown: number) =>
      say(phrase("reconcile.attributed", { of, pids: "7", part: { grown, growth: 40 * MiB } }));
    expect(part(25 * MiB)).toMatch(/ — mostly because PID 7 grows \(25\.0 MiB of the 40\.0 MiB\)$/);
    expect(part(15 * MiB)).toMatch(/ — partly because PID 7 grows \(15\.0 MiB of the 40\.0 MiB\)$/);
    expect(say(phrase("reconcile.attributed", { of, pids: "7" }))).toMatch(/ — because PID 7 grows$/);
    const rate = { bytesPerSecond: MiB, percentPerHour: 2000 };
    const advice = (part?: { grown: number; growth: number }) =>
      say(phrase("advice.leak", { variant: "attributed", rate, subject: "cgroup", pids: "7", ...(part && { part }) }));
    expect(advice({ grown: 15 * MiB, growth: 40 * MiB })).toMatch(/ partly because PID 7 grows: that process's own/);
    expect(advice()).toMatch(/\) because PID 7 grows: that process's own/);
  });

  it("a watched tree that added a tenth or more of a shared cgroup's growth: mostly not because of it", () => {
    const facts = {
      growth: 482 * MiB,
      rate: undefined,
      others: [7, 8],
      othersAnonGrowth: 359 * MiB,
      artefact: undefined,
    };
    // A helper's trial: a leak of +151 MiB beside two other programs' 359 MiB was "not because of the watched tree".
    expect(say(phrase("reconcile.outside", { ...facts, tree: 151 * MiB }))).toMatch(
      /^the cgroup grows by 482 MiB, but mostly not because of the watched tree \(\+151 MiB\): the 2 other processes/,
    );
    expect(say(phrase("reconcile.outside", { ...facts, tree: 40 * MiB }))).toMatch(
      /^the cgroup grows by 482 MiB, but not because of the watched tree \(\+40\.0 MiB\)/,
    );
  });
});

describe("the verdict document", () => {
  const finding = (summary: Phrase): JudgedFinding => ({
    kind: "stable",
    confidence: 0.9,
    subject: { type: "tree", processes: 2 },
    metric: "rss",
    summary,
    evidence: {},
    advice: [
      phrase("advice.plateau", { growth: MiB, level: 2 * MiB, levelFrom: undefined }),
      phrase("advice.insufficient-data", { reason: "why" }),
    ],
    caveats: [phrase("leak.early", { seconds: 30, alpha: "0.001" })],
  });

  it("words every finding once: the verdict is the same object as its finding in the list, its keys in analysis's order", () => {
    const a = finding(phrase("tree.stable", { metric: "pss", start: MiB, end: MiB }));
    const b = finding(phrase("verdict.no-samples", {}));
    const j: Judgement = {
      schema: "memleak.verdict/1",
      verdict: b,
      findings: [a, b],
      target: { pid: 1 },
      window: { start: 0, end: 1, warmup: 0, samples: 2, interval: 1 },
    };
    const doc = renderVerdict(j);
    expect(doc.verdict).toBe(doc.findings[1]);
    expect(Object.keys(doc)).toEqual(["schema", "verdict", "findings", "target", "window"]);
    expect(Object.keys(doc.findings[0]!)).toEqual(Object.keys(a));
    expect(doc.verdict.summary).toBe("no samples: the process exited before memleak could read it");
    // advice sections joined by a blank line, each from its src/advice/<kind>.md section
    expect(doc.verdict.advice).toMatch(
      /^Memory grew by 1\.00 MiB and then levelled off at about 2\.00 MiB: warm-up[\s\S]*\n\nNot enough data to decide: why\n/,
    );
    expect(doc.verdict.caveats).toEqual([
      expect.stringMatching(/^called early, on 30 s after warm-up \(a sequential test, each look held to p ≤ 0\.001\)/),
    ]);
  });
});
