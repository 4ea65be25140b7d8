/** run --try's sampling interval when --interval was not typed (src/commands/run-trials.ts trialInterval). */
import { describe, expect, it } from "vitest";
import { TRIAL_SAMPLES, trialInterval } from "../../../src/commands/run-trials.js";

describe("each trial's interval", () => {
  it("gives a trial of known duration enough readings to be judged: 80, at most every 250 ms, never under the default", () => {
    // 20 s at 1 s: 15 samples after thread_arenas.py's warm-up, under the 20 a verdict needs.
    expect(trialInterval(20, 1, false)).toBe(0.25);
    expect(trialInterval(60, 1, false)).toBe(0.75);
    expect(60 / trialInterval(60, 1, false)).toBe(TRIAL_SAMPLES);
    expect(trialInterval(600, 1, false)).toBe(1);
    expect(trialInterval(5, 1, false)).toBe(0.25);
  });

  it("keeps what was typed, and the default when the trials run to the command's exit (no duration to divide)", () => {
    expect(trialInterval(20, 1, true)).toBe(1);
    expect(trialInterval(20, 2, true)).toBe(2);
    expect(trialInterval(undefined, 1, false)).toBe(1);
  });
});
