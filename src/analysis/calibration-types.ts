/**
 * The shape of a calibration table (calibration.ts applies it; calibration-table.ts, written by `npm run calibrate`,
 * is one). Apart from both so that the written table does not import the code that reads it.
 */

/** One fitted point: verdicts of this family around raw score `raw` were right `value` of the time (`n` of them). */
export interface CalibrationPoint {
  raw: number;
  value: number;
  n: number;
}

/** A family's map: its points in increasing raw score and value; a family with none is said raw. */
export interface CalibrationCurve {
  points: CalibrationPoint[];
  /** Verdicts it was fitted on, and how many of them were right. */
  n: number;
  right: number;
  /**
   * Brier scores (lower is better) of the family's verdicts said raw, and said through curves fitted without each
   * verdict's program: a family is calibrated only where the second is lower.
   */
  checked?: { rawBrier: number; calibratedBrier: number };
}

export interface CalibrationTable {
  /** Where the fit came from: the recordings, the cut step, the commit whose verdicts they gave. */
  fittedOn: string;
  /**
   * The whole method checked on verdicts none of its fits saw (every program said through a table fitted without it):
   * Brier scores, raw and calibrated. The families are adopted only where the second is lower; else there are none.
   */
  check?: { verdicts: number; programs: number; rawBrier: number; calibratedBrier: number };
  families: Record<string, CalibrationCurve>;
  /** Families the corpus holds but that are said at their raw score, with why. */
  saidRaw?: Record<string, string>;
}
