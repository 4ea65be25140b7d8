/**
 * kept.py's fixed logits loop (the last 8 logits kept, detached) under `run --interval 0.5` beside two busy loops,
 * cut where its interim verdicts said `leak` (kept-alive.test's "logits, fixed" said it at a first try, 2026-12-05):
 * anon rises ~3 MiB in its first 20 s as torch's allocations settle, the live heap flat.
 */
import { describe, expect, it } from "vitest";
import { analyzeRecording } from "../../../../src/recording/replay.js";
import { everyFinding } from "../../../../src/analysis/every-finding.js";
import { FIXTURES } from "../../../helpers/fixtures.js";

const MB = 2 ** 20;
const judged = async (name: string) => (await analyzeRecording(`${FIXTURES}cuts/${name}`)).doc;

describe("the fixed logits loop beside busy loops: no leak", () => {
  it("at 17 s: malloc's free bytes climbed by their trend (~1.7 MiB), not their levels' 1.3: the allocators settling", async () => {
    // Before: a leak "in small Python objects" at 83% — the levels of free bytes that swing 1.5-4.3 MiB between
    // readings said 46% of anon's rise, under the half the settling rule asks.
    const doc = await judged("logits_fixed.run-17s-beside-busy.jsonl");
    expect(everyFinding(doc.findings).filter((f) => f.kind === "leak")).toEqual([]);
    expect(doc.verdict.kind).toBe("insufficient-data");
    expect(doc.verdict.evidence).toMatchObject({ settling: true });
    expect(Number(doc.verdict.evidence.mallocFreeGrowth)).toBeGreaterThan(1.47 * MB);
  });

  it("at 23 s: the process stable (its slope under its floor's), so is the cgroup that grew by the same", async () => {
    // Before: the process stable at +3.0 MiB, its Theil-Sen slope 5% under the floor's; the cgroup's +3.1 MiB 4% over
    // its own: "the cgroup grows at 144 KiB/s", a leak heading the verdict of a loop that keeps nothing.
    const doc = await judged("logits_fixed.run-23s-beside-busy.jsonl");
    expect(everyFinding(doc.findings).filter((f) => f.kind === "leak")).toEqual([]);
    expect(doc.verdict.kind).toBe("stable");
    const cgroup = doc.findings.find((f) => f.subject.type === "cgroup")!;
    expect(cgroup.kind).toBe("stable");
    expect(cgroup.evidence.explainedByPids).toBe(String(doc.verdict.subject.type === "process" && doc.verdict.pid));
  });
});
