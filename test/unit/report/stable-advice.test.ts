/**
 * What a stable verdict tells (issue 48 item 5): a real trend under the floor is said as such with its p-value, not
 * "no significant growth" beside "p-value 0.0000083"; swings are not called noise of ±90 KiB beside a 6 MiB move; and
 * the confidence is said to measure how long the program was watched.
 */
import { describe, expect, it } from "vitest";
import { analyzedDoc } from "../../helpers/analyzed-once.js";
import { FIXTURES } from "../../helpers/fixtures.js";

const advice = async (path: string) => {
  const doc = await analyzedDoc(`${FIXTURES}${path}`);
  expect(doc.verdict.kind).toBe("stable");
  return { text: doc.verdict.advice.replace(/\s+/g, " "), confidence: doc.verdict.confidence };
};

describe("the stable verdict's advice", () => {
  it("a memo table's +1 MiB in 90 s: a real trend, under the floor, with its p-value", async () => {
    const { text, confidence } = await advice("calibration/recordings/tiny_growth.jsonl");
    expect(text).toContain(
      "Growth too small to call: anon moved by 1.03 MiB over 86 s. The trend is real (p = 0.0000083)",
    );
    expect(text).toContain("under the growth floor of 2.00 MiB");
    expect(text).not.toMatch(/no significant growth/i);
    expect(text).toContain(`Confidence ${Math.round(confidence * 100)}% says how long it was watched`);
  });

  it("5-80 MB buffers that come and go: swings, not a trend, and no noise figure that the move belies", async () => {
    const { text } = await advice("recordings/steady_noisy.jsonl");
    expect(text).toMatch(
      /^No significant growth: anon ended [\d.]+ MiB away from where it began, over 20 s, but not as a trend/,
    );
    expect(text).not.toMatch(/noise of ±/);
  });

  it("a rise of 34 KiB at p = 0.0271, under the floor: a weak rise, said against memleak's 0.01, not a swing", async () => {
    // A helper's trial (2026-12-06) read "swings rather than climbs (trend test p = 0.0143)" as untrue of a flat
    // program that rose by 96 KiB: p under 0.05 is a rise, only too weak for memleak's test.
    const doc = await analyzedDoc(`${FIXTURES}recordings/torch_child_exits.jsonl`);
    const stable = [doc.verdict, ...doc.findings].find((f) => f.kind === "stable" && f.subject.type === "tree");
    const text = stable!.advice.replace(/\s+/g, " ");
    expect(text).toMatch(
      /^No significant growth: Σ pss-anon ended 34\.0 KiB away from where it began, over 20 s, rising too weakly to call \(trend test p = 0\.0271, where memleak asks for under 0\.01\)\./,
    );
    expect(text).not.toMatch(/swings/);
  });

  it("an idle program watched: the move was memleak's own agent arriving, said as such, not as a trend under the floor", async () => {
    const { text } = await advice("recordings/idle.watched.jsonl");
    expect(text).toMatch(
      /^No growth of its own: anon moved by 3\.93 MiB over 20 s, 3\.93 MiB of it memleak's agent arriving \(its modules and thread, not counted as growth\); what is left \(0 B\) is under the growth floor of 2\.00 MiB\./,
    );
    expect(text).not.toMatch(/trend is real|Growth too small/);
  });
});
