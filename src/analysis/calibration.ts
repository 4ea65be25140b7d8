/**
 * Calibrated confidence (issue 46): a verdict said at c% is right about c% of the time on memleak's labelled corpus.
 *
 * The rules score how sure they are on scales of their own (evidence.ts: a trend's p on six decades, a watch's
 * length, a share of cache): ordered, but not probabilities — in the first accuracy table stables said at 52% and
 * early leaks at 75% were right nine times in ten. Each family of verdicts (its kind; an early leak call apart from a leak found on a whole window) gets a
 * monotone map from that raw score to how often verdicts at that score were right, fitted by isotonic regression on
 * the corpus's recordings replayed at every few seconds (test/helpers/calibration-fit.ts, `npm run calibrate`), and
 * checked on programs the fit did not see. Where it changes the number, the raw score stays in the document beside it
 * (`rawConfidence`); ranking findings, and every rule, still use the raw score, so calibration never changes a verdict,
 * only the number said. A map is adopted only where, out of sample, it said verdicts better than the raw score did:
 * on a corpus where it does not, the table holds none and every confidence is the rule's own (calibration-table.ts
 * says why, BENCHMARKS.md § l′ shows the check). The curves are fitted on the verdicts the corpus's labels judge (the
 * headline of each cut), and said of every finding of the family: a tree's, a cgroup's, what a finding also found.
 */
import type { JudgedFinding } from "./judgement.js";
import { CALIBRATION } from "./calibration-table.js";
import type { CalibrationCurve, CalibrationTable } from "./calibration-types.js";

export type { CalibrationCurve, CalibrationPoint, CalibrationTable } from "./calibration-types.js";

/**
 * Which map a finding's confidence goes through. A GPU finding is its own family (the corpus has none, so it is said
 * raw); an early leak call (stats/sequential.ts) is scored on a capped scale of its own.
 */
export function familyOf(f: Pick<JudgedFinding, "kind" | "subject" | "evidence">): string {
  const gpu = f.subject.type === "gpu" ? "gpu:" : "";
  const early = f.kind === "leak" && f.evidence.calledEarly !== undefined ? "/early" : "";
  return `${gpu}${f.kind}${early}`;
}

/**
 * A raw score through a curve: linear between fitted points, flat beyond the first and the last (a score past what
 * the corpus held is said no surer than the surest it held). Two decimals, as every confidence.
 */
export function calibrateScore(raw: number, curve: CalibrationCurve | undefined): number {
  const pts = curve?.points ?? [];
  if (pts.length === 0 || raw <= 0) return raw;
  const first = pts[0]!;
  const last = pts[pts.length - 1]!;
  let value: number;
  if (raw <= first.raw) value = first.value;
  else if (raw >= last.raw) value = last.value;
  else {
    const i = pts.findIndex((p) => p.raw >= raw);
    const a = pts[i - 1]!;
    const b = pts[i]!;
    value = a.value + ((b.value - a.value) * (raw - a.raw)) / (b.raw - a.raw);
  }
  return Number(value.toFixed(2));
}

const done = new WeakSet<JudgedFinding>();

/**
 * Every finding (and what it also found) said at its calibrated confidence, its raw score kept beside it. A finding
 * capped for what memleak could not see (signals/unseen.ts `confidenceAtMost`) stays under its cap: the cap is a
 * statement about this run, not about the corpus.
 */
export function calibrateFindings(findings: readonly JudgedFinding[], table: CalibrationTable = CALIBRATION): void {
  for (const f of findings) {
    // Once: the verdict is also one of the findings.
    if (done.has(f)) continue;
    done.add(f);
    const raw = f.confidence;
    const c = calibrateScore(raw, table.families[familyOf(f)]);
    f.confidence = f.confidenceAtMost === undefined ? c : Math.min(c, f.confidenceAtMost);
    if (f.confidence !== raw) f.rawConfidence = raw;
    delete f.confidenceAtMost;
    if (f.alsoFound) calibrateFindings(f.alsoFound, table);
  }
}
