/**
 * The cgroup artefact's confidence (signals/cgroup.ts): from the share of the growth cache and kernel memory explain,
 * held between 0.5 and 0.99 — a negative share (anon fell further than cache) once made a negative confidence, which
 * the verdict schema refuses.
 */
import { describe, expect, it } from "vitest";
import { artefactConfidence } from "../../../../src/analysis/signals/cgroup.js";

describe("artefactConfidence", () => {
  it("grows with the share explained: 0.5 at none, 0.74 at half (0.745, rounded to two places), 0.99 at all or more", () => {
    expect(artefactConfidence(0)).toBe(0.5);
    expect(artefactConfidence(0.5)).toBe(0.74);
    expect(artefactConfidence(1)).toBe(0.99);
    expect(artefactConfidence(3)).toBe(0.99);
  });

  it("a negative share counts as none: never below 0.5, never negative", () => {
    expect(artefactConfidence(-0.5)).toBe(0.5);
    expect(artefactConfidence(-40)).toBe(0.5);
  });
});
