/**
 * Calibrated confidence (issue 46; src/analysis/calibration.ts): a table's curve applied to findings, the raw score
 * kept where it changed, a cap for what a run could not see kept; and the shipped table is what the corpus's
 * recordings give today (`npm run calibrate` refits it), with its check true: the raw scores within each bin's
 * uncertainty, a curve adopted only where it said unseen programs better.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import {
  calibrateFindings,
  calibrateScore,
  familyOf,
  type CalibrationCurve,
  type CalibrationTable,
} from "../../../src/analysis/calibration.js";
import { CALIBRATION } from "../../../src/analysis/calibration-table.js";
import type { JudgedFinding } from "../../../src/analysis/judgement.js";
import { phrase } from "../../../src/analysis/phrases.js";
import type { Subject } from "../../../src/analysis/types.js";
import { renderFinding } from "../../../src/report/wording/index.js";
import { brier, clusteredBins, fitTable, saidThrough, type LabelledScore } from "../../helpers/calibration-fit.js";
import { labelledRecordings, scoresOf } from "../../helpers/calibration-scores.js";
import { loadCorpus } from "../../helpers/corpus.js";
import { REPO } from "../../helpers/fixtures.js";

const curve = (points: [number, number][]): CalibrationCurve => ({
  points: points.map(([raw, value]) => ({ raw, value, n: 10 })),
  n: 10 * points.length,
  right: 0,
});

const ROOT: Subject = { type: "process", pid: 1, starttime: 1, command: "python3", ppid: 0, isRoot: true };
const finding = (kind: JudgedFinding["kind"], confidence: number, extra: Partial<JudgedFinding> = {}) =>
  ({
    kind,
    subject: ROOT,
    confidence,
    metric: "anon",
    summary: phrase("verdict.no-samples", {}),
    evidence: {},
    advice: [],
    caveats: [],
    ...extra,
  }) as JudgedFinding;

describe("calibrateScore", () => {
  const c = curve([
    [0.6, 0.7],
    [0.9, 0.85],
  ]);
  it("is linear between the fitted points and flat beyond them, in two decimals", () => {
    expect(calibrateScore(0.8, c)).toBe(0.8);
    expect(calibrateScore(0.5, c)).toBe(0.7);
    expect(calibrateScore(0.99, c)).toBe(0.85);
  });
  it("leaves a score of 0 (insufficient-data: no claim) and a family without a curve as they are", () => {
    expect(calibrateScore(0, c)).toBe(0);
    expect(calibrateScore(0.66, undefined)).toBe(0.66);
  });
});

describe("familyOf", () => {
  it("sets an early leak call and GPU findings apart from the rest of their kind", () => {
    expect(familyOf(finding("leak", 0.75, { evidence: { calledEarly: "sequential" } }))).toBe("leak/early");
    expect(familyOf(finding("leak", 0.9))).toBe("leak");
    const gpu: Subject = { type: "gpu", pid: 1, starttime: 1, command: "x", device: "0", source: "torch" };
    expect(familyOf(finding("leak", 0.9, { subject: gpu }))).toBe("gpu:leak");
  });
});

describe("calibrateFindings", () => {
  const table: CalibrationTable = {
    fittedOn: "made up",
    families: {
      stable: curve([[0.52, 0.8]]),
      leak: curve([[0.91, 0.91]]),
    },
  };

  it("says each finding and what it also found at its family's curve, keeping the raw score where it changed", () => {
    const also = finding("stable", 0.52);
    const f = finding("leak", 0.91, { alsoFound: [also] });
    const other = finding("stable", 0.55);
    calibrateFindings([f, other, f], table);
    expect(f.confidence).toBe(0.91);
    expect(f.rawConfidence).toBeUndefined();
    expect(also).toMatchObject({ confidence: 0.8, rawConfidence: 0.52 });
    expect(other).toMatchObject({ confidence: 0.8, rawConfidence: 0.55 });
  });

  it("keeps a finding under the cap of what its run could not see, and the cap out of the document", () => {
    const unseen = finding("stable", 0.5, { confidenceAtMost: 0.5 });
    calibrateFindings([unseen], table);
    expect(unseen.confidence).toBe(0.5);
    expect(unseen.rawConfidence).toBeUndefined();
    expect(Object.keys(renderFinding(unseen))).not.toContain("confidenceAtMost");
  });

  it("calibrates a finding once, however many lists hold it (the verdict is also one of the findings)", () => {
    const f = finding("stable", 0.52);
    calibrateFindings([f], table);
    calibrateFindings([f], { fittedOn: "another", families: { stable: curve([[0.52, 0.3]]) } });
    expect(f).toMatchObject({ confidence: 0.8, rawConfidence: 0.52 });
  });
});

describe("the shipped table (src/analysis/calibration-table.ts)", () => {
  const scores: LabelledScore[] = [];
  const corpus = loadCorpus(REPO);
  const { labelled, unlabelled } = labelledRecordings(REPO, corpus);
  // Every labelled recording replayed at its cuts (about 450 verdicts): the data of every check below.
  beforeAll(async () => {
    for (const r of labelled) scores.push(...(await scoresOf(REPO, r, 3)));
  }, 180_000);

  it("every recording but one is a labelled program's (the one ran a script written for its test)", () => {
    expect(unlabelled.map((u) => u.file)).toEqual(["fixtures/recordings/steady_buffer.shim-busy.jsonl"]);
    expect(labelled.length).toBeGreaterThanOrEqual(50);
  });

  it("is what the recordings give today: a changed verdict needs `npm run calibrate`", () => {
    const refit = fitTable(scores, CALIBRATION.fittedOn);
    expect({ ...refit, fittedOn: "" }).toEqual({ ...CALIBRATION, fittedOn: "" });
    expect(readFileSync(`${REPO}src/analysis/calibration-table.ts`, "utf8")).toContain("npm run calibrate");
  });

  it("its check is of today's verdicts, and a shipped curve beat the raw scores on unseen programs", () => {
    const check = CALIBRATION.check!;
    const claims = scores.filter((s) => s.raw > 0);
    expect(check.verdicts).toBe(claims.length);
    expect(check.rawBrier).toBeCloseTo(brier(claims.map((s) => ({ said: s.raw, right: s.right }))), 4);
    if (Object.keys(CALIBRATION.families).length > 0) expect(check.calibratedBrier).toBeLessThan(check.rawBrier);
  });

  it("says the corpus's verdicts within each bin's uncertainty (programs resampled)", () => {
    const said = saidThrough(
      scores.filter((s) => s.raw > 0),
      CALIBRATION,
    );
    // A bin of one program has no spread to resample: its interval is its own share, and it is no test of the score.
    const bins = clusteredBins(said).filter((b) => b.programs >= 2);
    expect(bins.length).toBeGreaterThanOrEqual(4);
    for (const b of bins) expect({ bin: b.from, within: b.calibrated }).toEqual({ bin: b.from, within: true });
  });

  it("the stable advice speaks of the watch's length: a curve for stables must reword it first", () => {
    // src/report/wording/advice.ts says "Confidence N% says how long it was watched … rises to 95% at 10 minutes",
    // true of the raw score only.
    expect(CALIBRATION.families.stable).toBeUndefined();
  });
});
