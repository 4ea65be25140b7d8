/**
 * memleak's own footprint (signals/own-footprint.ts): under `watch` the agent is injected into a running program and
 * adds ~2 MiB (its modules, its thread), more in forked workers (copied pages). A plateau or step that ends within
 * 10 s of the injection and is no larger than 8 MiB per injected process is memleak's, not the program's.
 */
import { describe, expect, it } from "vitest";
import { alone, judge, MB, processFinding } from "./judge.js";

/** A quiet 70 MiB process, its agent injected at `injected` s, with an anon step of `height` at `at` s. */
const stepped = (height: number, at: number, injected = 60) =>
  alone({
    anon: { shape: { kind: "step", at, height }, baseline: 70 * MB, noise: 0.05 * MB },
    agent: (t) => (t >= injected ? { py: { allocatedBlocks: 30_000 } } : undefined),
  }, 120);

const finding = (...args: Parameters<typeof stepped>) => processFinding(judge(stepped(...args), { warmup: 0 }), 100);

describe("memleak's own arrival under watch", () => {
  it.each([
    ["2.5 MiB levelled 3 s after the injection", 2.5 * MB, 63, "stable"],
    ["2.5 MiB levelled 8 s after it (the settle is 10 s)", 2.5 * MB, 68, "stable"],
    ["2.5 MiB levelled 15 s after it: the program's", 2.5 * MB, 75, "plateau"],
    ["2.5 MiB levelled 40 s after it: the program's", 2.5 * MB, 100, "plateau"],
    ["6 MiB at the injection (a forked worker's copied pages): under the 8 MiB allowance", 6 * MB, 63, "stable"],
    ["12 MiB at the injection: over it", 12 * MB, 63, "plateau"],
    ["20 MiB at the injection: more than the agent could add", 20 * MB, 63, "plateau"],
  ] as [string, number, number, string][])("%s → %s", (_name, height, at, kind) => {
    expect(finding(height, at).kind).toBe(kind);
  });

  it("says what memleak added and when", () => {
    expect(finding(2.5 * MB, 63).caveats).toContainEqual(expect.stringMatching(/^memleak's agent, injected at 60 s, added 2\.\d+ MiB \(its modules and thread\): not counted as growth$/));
  });

  it("an agent there from the first sample (run) was not injected: a step after it is the program's", () => {
    expect(finding(2.5 * MB, 63, 0).kind).toBe("plateau");
  });

  it("injected is more than 1 s after the process was first seen: at 1.5 s it was, at 0.5 s it was there from the start", () => {
    // A step levelled at 8 s: past the start-up (6 s of 120), within 10 s of either arrival.
    expect(finding(2.5 * MB, 8, 1.5).kind).toBe("stable");
    expect(finding(2.5 * MB, 8, 0.5).kind).toBe("plateau");
  });
});
