import { describe, expect, it } from "vitest";
import {
  compareTrials,
  failedOnItsOwn,
  cutsText,
  noiseBetween,
  NOISE_FLOOR_BYTES,
  type TrialResult,
} from "../../../src/trial/compare.js";
import type { LevelMeasures, TrialMeasures } from "../../../src/trial/measures.js";
import { BASELINE, type TrialSetting } from "../../../src/trial/settings.js";
import type { VerdictKind } from "../../../src/base/verdict-kinds.js";

const MiB = 1024 * 1024;
const level = (peak: number, end: number, growth: number, spread = 0.5): LevelMeasures => ({
  peak: peak * MiB,
  end: end * MiB,
  growth: growth * MiB,
  spread: spread * MiB,
});
const measures = (kind: VerdictKind, tree: LevelMeasures): TrialMeasures => ({
  verdict: { kind, confidence: 0.9, summary: `${kind} summary` },
  seconds: 30,
  metric: "pss",
  tree,
  cgroup: tree,
});
const jemalloc: TrialSetting = {
  kind: "allocator",
  text: "jemalloc",
  allocator: "jemalloc",
  library: "/l/libjemalloc.so.2",
};
const arenas: TrialSetting = { kind: "env", text: "MALLOC_ARENA_MAX=2", name: "MALLOC_ARENA_MAX", value: "2" };
const trial = (setting: TrialSetting, m: TrialMeasures, over: Partial<TrialResult> = {}): TrialResult => ({
  setting,
  exit: { code: null, signal: "SIGTERM" },
  stopReason: "duration",
  inEffect: setting.kind === "baseline" ? undefined : { seen: true, how: "seen" },
  measures: m,
  ...over,
});

describe("compareTrials: which setting helps, past the noise", () => {
  it("memory that fell is no growth: a baseline settling down 4.35 MiB is not beaten by a flat trial, nor worse than it", () => {
    // Σ USS of an idle Python: the baseline fell after its warm-up, the trial stayed flat; both end at 8.46 MiB
    const cmp = compareTrials(
      [
        trial(BASELINE, measures("stable", level(15.1, 8.46, -4.35, 0))),
        trial(arenas, measures("stable", level(8.46, 8.46, 0.06, 0))),
      ],
      1,
    );
    expect(cmp.trials[1]!.effect).toBe("no-difference");
    // the difference itself is still said as measured
    expect(cmp.trials[1]!.vsBaseline!.growth! / MiB).toBeCloseTo(4.41);
    // a trial that falls where the baseline grew helps by the baseline's growth
    const falls = compareTrials(
      [
        trial(BASELINE, measures("leak", level(60, 60, 10, 0))),
        trial(arenas, measures("stable", level(60, 48, -2, 0))),
      ],
      1,
    );
    expect(falls.trials[1]!.effect).toBe("helps");
    // and one that grows 5 MiB where the baseline fell is worse
    const grows = compareTrials(
      [trial(BASELINE, measures("stable", level(60, 50, -3, 0))), trial(arenas, measures("leak", level(55, 55, 5, 0)))],
      1,
    );
    expect(grows.trials[1]!.effect).toBe("worse");
  });

  it("fragmentation: the setting that cuts the growth most is the one to use, the others said after it", () => {
    const cmp = compareTrials(
      [
        trial(BASELINE, measures("fragmentation", level(420, 400, 300))),
        trial(jemalloc, measures("stable", level(100, 90, 10))),
        trial(arenas, measures("fragmentation", level(300, 250, 180))),
      ],
      5,
    );
    expect(cmp.trials.map((t) => t.effect)).toEqual(["baseline", "helps", "helps"]);
    expect(cmp.trials[1]!.vsBaseline).toMatchObject({ growth: -290 * MiB, end: -310 * MiB, peak: -320 * MiB });
    expect(cmp.trials[1]!.vsBaseline!.growthShare).toBeCloseTo(-290 / 300);
    expect(cmp.recommendation).toEqual({
      setting: "jemalloc",
      text: "jemalloc: growth −97% (−290 MiB), end −310 MiB, peak −320 MiB (fragmentation → stable)",
      also: ["MALLOC_ARENA_MAX=2: growth −40% (−120 MiB), end −150 MiB, peak −120 MiB"],
    });
    expect(cmp.measuredFrom).toBe(5);
  });

  it("a leak that no setting changes: said so, the proof that it is not the allocator", () => {
    const cmp = compareTrials(
      [
        trial(BASELINE, measures("leak", level(200, 200, 150))),
        trial(jemalloc, measures("leak", level(201, 199.5, 150.5))),
        trial(arenas, measures("leak", level(200, 200.4, 149.6))),
      ],
      3,
    );
    expect(cmp.trials.map((t) => t.effect)).toEqual(["baseline", "no-difference", "no-difference"]);
    expect(cmp.recommendation).toEqual({
      setting: null,
      text: "no setting changes the growth: it is held by the program (a leak, not the allocator)",
    });
  });

  it("a leak that a setting only trims: the answer is still the program's, the cut said after it, and nothing to use", () => {
    const trim: TrialSetting = { kind: "trim", text: "trim", every: 5 };
    // A JSON service's pool keeping a slice of each request (Σ anonymous PSS, 30 s trials): trim's end −5.10 MiB is
    // within what two launches of a leak differ by (30% of its 37 MiB growth), so it is no difference.
    const measured = compareTrials(
      [trial(BASELINE, measures("leak", level(104, 102, 37))), trial(trim, measures("leak", level(101, 96.9, 33.6)))],
      7,
    );
    expect(measured.trials[1]!.effect).toBe("no-difference");
    expect(measured.recommendation).toEqual({
      setting: null,
      text: "no setting changes the growth: it is held by the program (a leak, not the allocator)",
    });
    // One that gives back what glibc kept free beside the leak, its growth the same: said after the answer.
    const cmp = compareTrials(
      [trial(BASELINE, measures("leak", level(124, 122, 37))), trial(trim, measures("leak", level(104, 102, 36)))],
      7,
    );
    expect(cmp.trials[1]!.effect).toBe("helps");
    expect(cmp.recommendation).toEqual({
      setting: null,
      text: "no setting changes the growth: it is held by the program (a leak, not the allocator); cut only in what the allocator kept free: trim: end −20.0 MiB, peak −20.0 MiB",
    });
    // one that slows the growth past the noise is still named, with the leak beside it
    const slower = compareTrials(
      [trial(BASELINE, measures("leak", level(104, 102, 37))), trial(trim, measures("leak", level(80, 80, 15)))],
      7,
    );
    expect(slower.recommendation.setting).toBe("trim");
    expect(slower.recommendation.text).toMatch(/^trim: growth −59% .*; it still grows: a leak as well$/);
  });

  it("settings that do nothing, on a leak, are no difference: launches of a leak grow by amounts up to 24% apart", () => {
    // Measured: the JSON service's leak, 20 s trials, FOO=1, BAR=2 and BAZ=3 against the command as it is (Σ anon PSS,
    // MiB): with the 4 MiB floor alone FOO=1 read "worse" (growth +6.39) and BAR=2 "helps" (growth −5.12), recommended.
    const inert = (name: string): TrialSetting => ({ kind: "env", text: `${name}=1`, name, value: "1" });
    const cmp = compareTrials(
      [
        trial(BASELINE, measures("leak", level(93.12, 91.57, 29.17, 1.2))),
        trial(inert("FOO"), measures("leak", level(95.72, 95.67, 35.55, 0.06))),
        trial(inert("BAR"), measures("leak", level(89.91, 88.91, 24.04, 1.48))),
        trial(inert("BAZ"), measures("leak", level(96.08, 95.27, 32.36, 1.19))),
      ],
      5,
    );
    expect(cmp.trials.map((t) => t.effect)).toEqual(["baseline", "no-difference", "no-difference", "no-difference"]);
    expect(cmp.recommendation.setting).toBeNull();
  });

  it("a steady program: no difference beyond the noise, which is said", () => {
    const cmp = compareTrials(
      [
        trial(BASELINE, measures("stable", level(30, 30, 0.2))),
        trial(arenas, measures("stable", level(30.3, 30.1, 0.1))),
      ],
      2,
    );
    expect(cmp.trials[1]!.effect).toBe("no-difference");
    expect(cmp.recommendation.setting).toBeNull();
    expect(cmp.recommendation.text).toMatch(/^no setting tried changes the memory beyond the noise \(±4\.00 MiB\)$/);
  });

  // run stops sampling as a signal is passed on (Ctrl-C): such a trial's status is still the command's, 130 for
  // SIGINT, and its numbers stopped with it; --duration's SIGTERM is memleak's own doing, not a failure.
  it("a trial interrupted by a signal passed on to its command failed, one --duration stopped did not", () => {
    const sigint = { code: null, signal: "SIGINT" as const };
    expect(failedOnItsOwn({ stopReason: "interrupted", exit: sigint })).toBe(true);
    expect(failedOnItsOwn({ stopReason: "exited", exit: sigint })).toBe(true);
    expect(failedOnItsOwn({ stopReason: "interrupted", exit: { code: 0, signal: null } })).toBe(false);
    expect(failedOnItsOwn({ stopReason: "duration", exit: { code: null, signal: "SIGTERM" } })).toBe(false);
    expect(failedOnItsOwn({ stopReason: "duration", exit: { code: 143, signal: null } })).toBe(false); // via a shell
    expect(failedOnItsOwn({ stopReason: "duration", exit: { code: 0, signal: null } })).toBe(false);
  });

  // As run judges it (gates/exit-policy.ts): a shutdown that fails on its own is the command's failure, --duration or not.
  it("a trial --duration stopped whose shutdown failed on its own failed", () => {
    expect(failedOnItsOwn({ stopReason: "duration", exit: { code: 1, signal: null } })).toBe(true);
    expect(failedOnItsOwn({ stopReason: "duration", exit: { code: null, signal: "SIGSEGV" } })).toBe(true);
    expect(failedOnItsOwn({ stopReason: "duration", exit: { code: null, signal: "SIGKILL" } })).toBe(true);
    expect(failedOnItsOwn({ stopReason: "gate-failed", exit: { code: null, signal: "SIGTERM" } })).toBe(false);
  });

  it("a setting that costs memory is worse; one not seen in effect or whose command failed is never recommended", () => {
    const cmp = compareTrials(
      [
        trial(BASELINE, measures("fragmentation", level(330, 327, 60))),
        trial(jemalloc, measures("insufficient-data", level(470, 462, 411))),
        trial(arenas, measures("fragmentation", level(230, 226, 61)), { inEffect: { seen: false, why: "not seen" } }),
        trial({ kind: "trim", text: "trim", every: 5 }, measures("stable", level(50, 40, 1)), {
          stopReason: "exited",
          exit: { code: 1, signal: null },
        }),
      ],
      0,
    );
    expect(cmp.trials.map((t) => t.effect)).toEqual(["baseline", "worse", "not-in-effect", "failed"]);
    expect(cmp.recommendation.setting).toBeNull();
    // a growth rise the effect did not count (the baseline settled down: each growth counted from none) is not named
    const settled = compareTrials(
      [
        trial(BASELINE, measures("stable", level(30, 20, -10, 0))),
        trial(arenas, measures("stable", level(40, 40, 0.5, 0))),
      ],
      1,
    );
    expect(settled.trials[1]!.effect).toBe("worse");
    expect(settled.recommendation.text).toBe(
      "no setting tried helps; worse: MALLOC_ARENA_MAX=2 (end +20.0 MiB, peak +10.0 MiB; noise ±4.00 MiB)",
    );
    // the answer names what made it worse: "no setting tried changes the memory beyond the noise" contradicted it
    expect(cmp.recommendation.text).toBe(
      "no setting tried helps; worse: jemalloc (end +135 MiB, growth +351 MiB, peak +140 MiB; noise ±18.0 MiB)",
    );
  });

  it("a higher peak outweighs a cut only when it rises by more than the cut", () => {
    const cmp = compareTrials(
      [
        trial(BASELINE, measures("plateau", level(200, 180, 20))),
        trial(arenas, measures("plateau", level(300, 120, 5))),
        trial(jemalloc, measures("plateau", level(240, 120, 5))),
      ],
      0,
    );
    expect(cmp.trials.map((t) => t.effect)).toEqual(["baseline", "worse", "helps"]);
  });

  it("a trial that gives memory back: its growth said in bytes, not as a share past −100%", () => {
    const cmp = compareTrials(
      [
        trial(BASELINE, measures("fragmentation", level(450, 440, 115))),
        trial(arenas, measures("stable", level(360, 30, -295))),
      ],
      0,
    );
    expect(cmp.trials[1]!.vsBaseline!.growthShare).toBeUndefined();
    expect(cmp.recommendation.text).toBe(
      "MALLOC_ARENA_MAX=2: growth −410 MiB, end −410 MiB, peak −90.0 MiB (fragmentation → stable)",
    );
  });
});

describe("noiseBetween and cutsText", () => {
  it("is twice the combined spread, at least 4 MiB, 2% of the baseline's level or 30% of its growth", () => {
    expect(noiseBetween(level(10, 10, 0, 0), level(10, 10, 0, 0))).toBe(NOISE_FLOOR_BYTES);
    expect(noiseBetween(level(100, 100, 40, 0), level(10, 10, 0, 0))).toBeCloseTo(12 * MiB);
    expect(noiseBetween(level(100, 100, -40, 0), level(10, 10, 0, 0))).toBe(NOISE_FLOOR_BYTES);
    expect(noiseBetween(level(1000, 1000, 0, 0), level(10, 10, 0, 0))).toBeCloseTo(20 * MiB);
    expect(noiseBetween(level(10, 10, 0, 3), level(10, 10, 0, 4))).toBeCloseTo(10 * MiB);
  });

  it("says only the cuts past the noise", () => {
    expect(cutsText({ growth: -0.5 * MiB, end: -40 * MiB, peak: 2 * MiB }, MiB)).toBe(
      "end −40.0 MiB; but peak +2.00 MiB",
    );
    expect(cutsText({ growth: -20 * MiB, end: -0.2 * MiB }, MiB)).toBe("growth −20.0 MiB");
    expect(cutsText({ growth: -300 * MiB, end: -350 * MiB, peak: 69 * MiB }, 8 * MiB)).toBe(
      "growth −300 MiB, end −350 MiB; but peak +69.0 MiB",
    );
  });
});
