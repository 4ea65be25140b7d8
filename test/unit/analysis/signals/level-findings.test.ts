/**
 * signals/level-findings.ts on assessments built by hand: what a plateau and a stable finding carry whatever the
 * subject — the confidence (from the level's own test when it has one), the advice's facts, and where the level began.
 * Through the whole engine: rules/shapes.test.ts, tree-finding.test.ts, cgroup.test.ts, gpu.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Assessment } from "../../../../src/analysis/assess.js";
import { plateauParts, stableParts } from "../../../../src/analysis/signals/level-findings.js";

const MB = 2 ** 20;
const assessment = (o: Partial<Assessment>) =>
  ({ shape: "plateau", growth: 10 * MB, start: 100 * MB, end: 110 * MB, p: 1, from: 0, to: 120, ...o }) as Assessment;
const plateau = (o: Partial<NonNullable<Assessment["plateau"]>>) =>
  ({ p: 1e-6, rise: 30 * MB, levelFrom: 40.04, noise: 0.25 * MB, ...o }) as NonNullable<Assessment["plateau"]>;

describe("plateauParts", () => {
  it("a plateau: the level's own test decides the confidence; growth is the larger of its rise and the tenths'", () => {
    expect(plateauParts(assessment({ plateau: plateau({}) }))).toEqual({
      kind: "plateau",
      confidence: 0.99,
      advice: [{ say: "advice.plateau", facts: { growth: 30 * MB, level: 110 * MB, levelFrom: 40.04 } }],
      growth: 30 * MB,
      levelFromSeconds: 40,
    });
    expect(plateauParts(assessment({ growth: 50 * MB, plateau: plateau({}) })).growth).toBe(50 * MB);
  });

  it("without the level's test, the trend's p; without a level, no levelFromSeconds", () => {
    const parts = plateauParts(assessment({ p: 1e-6 }));
    expect(parts).toEqual({
      kind: "plateau",
      confidence: 0.99,
      advice: [{ say: "advice.plateau", facts: { growth: 10 * MB, level: 110 * MB, levelFrom: undefined } }],
      growth: 10 * MB,
    });
    expect("levelFromSeconds" in parts).toBe(false);
  });

  it("a step: its jump and where it jumped", () => {
    const step = { at: 12.36, jump: 70 * MB } as NonNullable<Assessment["step"]>;
    expect(plateauParts(assessment({ shape: "step", step, plateau: plateau({ p: 1 }) }))).toEqual({
      kind: "plateau",
      confidence: 0.5,
      advice: [{ say: "advice.plateau", facts: { growth: 70 * MB, level: 110 * MB, levelFrom: 12.36 } }],
      growth: 70 * MB,
      levelFromSeconds: 12.4,
    });
  });
});

describe("stableParts", () => {
  it("surer the longer it was watched; the advice says how little it moved, over how long, against what noise", () => {
    expect(stableParts(assessment({ shape: "flat", from: 100, to: 220, plateau: plateau({}) }), "tree", "pss")).toEqual(
      {
        kind: "stable",
        confidence: 0.59,
        advice: [
          {
            say: "advice.stable",
            // the floor at 100 MiB is its 2% (2 MiB is less); the confidence is said beside the advice
            facts: {
              subject: "tree",
              metric: "pss",
              growth: 10 * MB,
              seconds: 120,
              noise: 0.25 * MB,
              p: 1,
              floor: 2 * MB,
              confidence: 0.59,
            },
          },
        ],
      },
    );
    expect(stableParts(assessment({ shape: "flat", from: 0, to: 600 }), "cgroup", "cgroup")).toEqual({
      kind: "stable",
      confidence: 0.95,
      advice: [
        {
          say: "advice.stable",
          facts: {
            subject: "cgroup",
            metric: "cgroup",
            growth: 10 * MB,
            seconds: 600,
            noise: undefined,
            p: 1,
            floor: 2 * MB,
            confidence: 0.95,
          },
        },
      ],
    });
  });
});
