/**
 * The numbers a finding shows (evidence.ts trendEvidence): each rounded as the JSON document promises, under the
 * prefix a rule gives it, with the marks of a plateau's noise, a trend seen in the lows and an early call only when
 * the assessment has them; and how sure a growing assessment is (an early call is capped). The wording of the
 * confidence scale itself is in rules/confidence.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Assessment } from "../../../src/analysis/assess.js";
import { EARLY_CONFIDENCE_MAX, earlyCaveat, growthConfidence, trendEvidence } from "../../../src/analysis/evidence.js";
import type { EarlyGrowth } from "../../../src/analysis/stats/sequential.js";
import type { Envelope } from "../../../src/analysis/stats/envelope.js";
import type { Plateau } from "../../../src/analysis/stats/plateau.js";

const growing: Assessment = {
  shape: "growing",
  samples: 42,
  from: 3.25,
  to: 64.31,
  start: 100.4,
  end: 2000.6,
  peak: 2100.5,
  growth: 1900.49,
  rate: { bytesPerSecond: 31.16, percentPerHour: 1000 },
  p: 0.000012345,
};
const early = { called: true, p: 0.001, alpha: 0.0012345, looks: 8 } as EarlyGrowth;

describe("trendEvidence", () => {
  it("rounds bytes to whole bytes, the rate and window to a tenth, p to three digits", () => {
    expect(trendEvidence(growing)).toEqual({
      start: 100,
      end: 2001,
      peak: 2101,
      growth: 1900,
      slopeBytesPerSecond: 31.2,
      pValue: 0.0000123,
      windowSeconds: 61.1,
      // when the window began, to a tenth: classify.ts keeps it only where that is past the report's judged start
      windowFromSeconds: Number(growing.from.toFixed(1)),
      samples: 42,
    });
  });

  it("puts the prefix before every key", () => {
    const e = trendEvidence(
      { ...growing, plateau: { noise: 10.6 } as Plateau, envelope: {} as Envelope, early },
      "live",
    );
    expect(Object.keys(e).sort()).toEqual(
      [
        "start",
        "end",
        "peak",
        "growth",
        "slopeBytesPerSecond",
        "pValue",
        "windowSeconds",
        "samples",
        "noise",
        "trendOn",
        "calledEarly",
        "earlyAlpha",
      ]
        .map((k) => `live${k}`)
        .sort(),
    );
  });

  it("shows a plateau's noise in whole bytes, and nothing of one it has not", () => {
    expect(trendEvidence({ ...growing, plateau: { noise: 10.6 } as Plateau }).noise).toBe(11);
    expect(trendEvidence(growing)).not.toHaveProperty("noise");
  });

  it("says the trend was on the lows only when an envelope found it", () => {
    expect(trendEvidence({ ...growing, envelope: {} as Envelope }).trendOn).toBe("lows");
    expect(trendEvidence(growing)).not.toHaveProperty("trendOn");
  });

  it("marks an early call with its level to two digits", () => {
    const e = trendEvidence({ ...growing, early });
    expect(e.calledEarly).toBe("sequential");
    expect(e.earlyAlpha).toBe(0.0012);
    expect(trendEvidence(growing)).not.toHaveProperty("calledEarly");
    expect(trendEvidence(growing)).not.toHaveProperty("earlyAlpha");
  });
});

describe("growthConfidence", () => {
  it("is the p's confidence for a trend over the whole window", () =>
    expect(growthConfidence({ ...growing, p: 1e-9 })).toBe(0.99));
  it("is capped for an early call, however small its p", () =>
    expect(growthConfidence({ ...growing, p: 1e-9, early })).toBe(EARLY_CONFIDENCE_MAX));
  it("keeps an early call's lower confidence below the cap", () =>
    expect(growthConfidence({ ...growing, p: 0.01, early })).toBe(0.66));
});

describe("earlyCaveat", () => {
  it("says how long the window was and at what level it was called", () => {
    expect(earlyCaveat(trendEvidence({ ...growing, early }))).toEqual({
      say: "leak.early",
      facts: { seconds: 61.1, alpha: "0.0012" },
    });
  });
  it("says nothing for a trend over the whole window", () =>
    expect(earlyCaveat(trendEvidence(growing))).toBeUndefined());
});
