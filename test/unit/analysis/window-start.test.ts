/**
 * When a finding's window began is said only where it began later than the report says judging did (classify.ts
 * withWindowStart): a window that left out a program's start-up seconds showed a "level at start" from 5 s under a
 * header that left out no warm-up (a helper's trial, 2026-12-06). Real recordings.
 */
import { describe, expect, it } from "vitest";
import { analyzedDoc } from "../../helpers/analyzed-once.js";
import { FIXTURES } from "../../helpers/fixtures.js";
import { everyFinding } from "../../../src/analysis/every-finding.js";

describe("a finding's window start", () => {
  it("a window past the warm-up (start-up cut): said, on each finding it applies to", async () => {
    // recordings/idle.jsonl: warm-up 1.5 s; the process's, the tree's and the cgroup's windows from 5.5 s.
    const doc = await analyzedDoc(`${FIXTURES}recordings/idle.jsonl`);
    expect(doc.window.warmup).toBe(1.5);
    const starts = everyFinding(doc.findings).map((f) => [f.subject.type, f.evidence.windowFromSeconds]);
    expect(starts).toEqual(expect.arrayContaining([["process", 5.5]]));
    expect(doc.verdict.evidence.windowFromSeconds).toBe(5.5);
  });

  it("a window that starts where judging does: nothing more said", async () => {
    // fixtures/docs/leak_main.jsonl, the README's report: its window starts with the samples.
    const doc = await analyzedDoc(`${FIXTURES}docs/leak_main.jsonl`);
    for (const f of everyFinding(doc.findings)) expect(f.evidence).not.toHaveProperty("windowFromSeconds");
  });
});
