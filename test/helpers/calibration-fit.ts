/**
 * Fitting calibrated confidence (issue 46; src/analysis/calibration.ts applies what this fits). Pure: labelled
 * verdicts in (a family, the rule's raw score, right or wrong), a table out.
 *
 * Method: per family, isotonic regression (pool adjacent violators) of right-or-wrong on the raw score — the one
 * assumption is that a higher raw score is never less often right — then blocks of fewer than MIN_BLOCK verdicts
 * pooled with a neighbour (a block of 3 all right is no "99%"). Each block is said at its share right pulled toward
 * the share of the whole corpus by PRIOR_WEIGHT verdicts' worth — a family that was always right on five programs is
 * not certain on the sixth — and kept in [0.01, 0.99]. A family with fewer than MIN_FAMILY verdicts, or from fewer
 * than MIN_PROGRAMS programs, is not fitted: said raw, and the table says so by its absence.
 *
 * Checked out of sample (outOfSample): every program's verdicts said through a table fitted without that program
 * (leave one program out), so that all of the corpus checks it and none of it checks a fit that saw it.
 */
import {
  calibrateScore,
  type CalibrationCurve,
  type CalibrationPoint,
  type CalibrationTable,
} from "../../src/analysis/calibration.js";

export interface LabelledScore {
  /** The corpus program, for holding programs back. */
  program: string;
  family: string;
  raw: number;
  right: boolean;
}

/** Fewer verdicts than this in a block are pooled with a neighbour; fewer in a family, and it is not fitted. */
export const MIN_BLOCK = 10;
export const PRIOR_WEIGHT = 10;
export const MIN_FAMILY = 20;
/** …and from fewer programs than this: one program's verdicts are one story, however many cuts tell it. */
export const MIN_PROGRAMS = 4;

interface Block {
  rawSum: number;
  n: number;
  right: number;
}

const mean = (b: Block) => b.right / b.n;
const merged = (a: Block, b: Block): Block => ({ rawSum: a.rawSum + b.rawSum, n: a.n + b.n, right: a.right + b.right });

/** Pool adjacent violators over blocks of equal raw score, in increasing raw score. */
function pav(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    out.push(b);
    while (out.length > 1 && mean(out[out.length - 2]!) >= mean(out[out.length - 1]!)) {
      const top = out.pop()!;
      out.push(merged(out.pop()!, top));
    }
  }
  return out;
}

/** Blocks too small to say a share pooled with the neighbour nearest in share (either keeps the order). */
function poolSmall(blocks: Block[]): Block[] {
  const out = [...blocks];
  for (;;) {
    const i = out.findIndex((b) => b.n < MIN_BLOCK);
    if (i < 0 || out.length < 2) return out;
    const left = i > 0 ? Math.abs(mean(out[i - 1]!) - mean(out[i]!)) : Infinity;
    const right = i < out.length - 1 ? Math.abs(mean(out[i + 1]!) - mean(out[i]!)) : Infinity;
    const j = left <= right ? i - 1 : i;
    out.splice(j, 2, merged(out[j]!, out[j + 1]!));
  }
}

/** One family's curve, or undefined when it has too few verdicts to fit. */
export function fitCurve(
  scores: readonly Pick<LabelledScore, "program" | "raw" | "right">[],
  prior: number,
): CalibrationCurve | undefined {
  const claims = scores.filter((s) => s.raw > 0);
  if (claims.length < MIN_FAMILY || new Set(claims.map((s) => s.program)).size < MIN_PROGRAMS) return undefined;
  const byRaw = new Map<number, Block>();
  for (const s of claims) {
    const b = byRaw.get(s.raw) ?? { rawSum: 0, n: 0, right: 0 };
    byRaw.set(s.raw, { rawSum: b.rawSum + s.raw, n: b.n + 1, right: b.right + (s.right ? 1 : 0) });
  }
  const blocks = poolSmall(pav([...byRaw.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b)));
  let atLeast = 0;
  const points: CalibrationPoint[] = blocks.map((b) => {
    // Never below the block before: pulling toward the prior can reorder two close blocks of different sizes.
    const share = (b.right + PRIOR_WEIGHT * prior) / (b.n + PRIOR_WEIGHT);
    atLeast = Math.max(atLeast, Math.min(0.99, Math.max(0.01, share)));
    return { raw: Number((b.rawSum / b.n).toFixed(4)), value: Number(atLeast.toFixed(4)), n: b.n };
  });
  return { points, n: claims.length, right: claims.filter((s) => s.right).length };
}

const shareRight = (xs: readonly LabelledScore[]) => (xs.length ? xs.filter((s) => s.right).length / xs.length : 0.5);

/** Mean squared distance between what was said and what was true (1 right, 0 wrong): lower is better. */
export function brier(items: readonly { said: number; right: boolean }[]): number {
  return items.length ? items.reduce((a, s) => a + (s.said - (s.right ? 1 : 0)) ** 2, 0) / items.length : NaN;
}

/**
 * One family's curve fitted on every program but each in turn (its prior too, from every family's verdicts but that
 * program's), said on that program: its out-of-sample verdicts, and how many of the folds could fit a curve at all.
 */
function familyOutOfSample(of: readonly LabelledScore[], all: readonly LabelledScore[]) {
  let fitted = 0;
  const said = [...new Set(of.map((s) => s.program))].flatMap((p) => {
    const curve = fitCurve(
      of.filter((s) => s.program !== p),
      shareRight(all.filter((s) => s.program !== p)),
    );
    if (curve) fitted++;
    return of.filter((s) => s.program === p).map((s) => ({ said: calibrateScore(s.raw, curve), right: s.right }));
  });
  return { said, fitted };
}

type Families = Pick<CalibrationTable, "families" | "saidRaw">;

/**
 * The families' curves: one where a family has enough verdicts AND, fitted without each program in turn, it said that
 * program's verdicts better than the raw score did (a lower Brier score). A curve that only fits the programs it saw
 * is no calibration: that family is said raw, and `saidRaw` says why.
 */
function fitFamilies(scores: readonly LabelledScore[]): Families {
  const claims = scores.filter((s) => s.raw > 0);
  const prior = shareRight(claims);
  const families: Record<string, CalibrationCurve> = {};
  const saidRaw: Record<string, string> = {};
  for (const family of [...new Set(claims.map((s) => s.family))].sort()) {
    const of = claims.filter((s) => s.family === family);
    const curve = fitCurve(of, prior);
    if (!curve) {
      saidRaw[family] = `${of.length} verdicts of ${new Set(of.map((s) => s.program)).size} programs: too few to fit`;
      continue;
    }
    const out = familyOutOfSample(of, claims);
    if (out.fitted === 0) {
      // Every program it has is needed to fit it: nothing is left to check it on.
      saidRaw[family] =
        `${new Set(of.map((s) => s.program)).size} programs: too few to fit without one and check it on that one`;
      continue;
    }
    const calibrated = brier(out.said);
    const raw = brier(of.map((s) => ({ said: s.raw, right: s.right })));
    const checked = { rawBrier: Number(raw.toFixed(4)), calibratedBrier: Number(calibrated.toFixed(4)) };
    if (calibrated < raw) families[family] = { ...curve, checked };
    else
      saidRaw[family] =
        `out of sample its curve said it no better than the raw score (Brier ${checked.calibratedBrier} against ${checked.rawBrier})`;
  }
  return { families, saidRaw };
}

/** Each verdict as a table says it (its family's curve, or its raw score where the table has none). */
export function saidThrough<S extends LabelledScore>(
  scores: readonly S[],
  table: Pick<CalibrationTable, "families">,
): (S & { said: number })[] {
  return scores.map((s) => ({ ...s, said: calibrateScore(s.raw, table.families[s.family]) }));
}

/**
 * Each verdict said through a table fitted (choice of families included) on every program but its own: the check
 * of the whole method on verdicts none of its fits saw.
 */
export function outOfSample(scores: readonly LabelledScore[]): (LabelledScore & { said: number })[] {
  const programs = [...new Set(scores.map((s) => s.program))];
  return programs.flatMap((p) => {
    const table = fitFamilies(scores.filter((s) => s.program !== p));
    return saidThrough(
      scores.filter((s) => s.program === p),
      table,
    );
  });
}

/**
 * The table memleak ships: the families' curves, adopted only if the whole method, checked out of sample, said the
 * corpus's verdicts better than the raw scores (one family's curve can pass its own check yet hinge on one program:
 * left out, the curve moves, and that program's verdicts are said worse). Else none: every confidence stays the
 * rule's own, and `saidRaw` says why for each family.
 */
export function fitTable(scores: readonly LabelledScore[], fittedOn: string): CalibrationTable {
  const claims = scores.filter((s) => s.raw > 0);
  const fitted = fitFamilies(claims);
  const outer = outOfSample(claims);
  const check = {
    verdicts: claims.length,
    programs: new Set(claims.map((s) => s.program)).size,
    rawBrier: Number(brier(claims.map((s) => ({ said: s.raw, right: s.right }))).toFixed(4)),
    calibratedBrier: Number(brier(outer).toFixed(4)),
  };
  if (check.calibratedBrier < check.rawBrier) return { fittedOn, check, ...fitted };
  const rejected = Object.keys(fitted.families).map((f) => [
    f,
    `its curve passed its own check, but the method as a whole said verdicts of programs it had not seen worse than the raw scores (Brier ${check.calibratedBrier} against ${check.rawBrier})`,
  ]);
  return { fittedOn, check, families: {}, saidRaw: { ...fitted.saidRaw, ...Object.fromEntries(rejected) } };
}

/** A seeded generator (a linear congruential one): the same intervals on every run. */
function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

export interface ClusteredBin {
  from: number;
  to: number;
  n: number;
  programs: number;
  meanSaid: number;
  share: number;
  low: number;
  high: number;
  /** The mean said lies within the share's interval. */
  calibrated: boolean;
}

/**
 * Verdicts binned by what was said, each bin's share right with a 95% interval from resampling its programs (2,000
 * times, seeded): a program's verdicts at successive cuts are mostly one verdict said again, right or wrong together,
 * so an interval that counted them as independent would be far too narrow.
 */
export function clusteredBins(
  items: readonly { program: string; said: number; right: boolean }[],
  edges: readonly number[] = [0, 0.5, 0.6, 0.7, 0.8, 0.9],
): ClusteredBin[] {
  const rnd = seeded(46);
  return edges.flatMap((from, i) => {
    const to = edges[i + 1] ?? 1;
    const inBin = items.filter((s) => s.said >= from && (s.said < to || (to === 1 && s.said <= 1)));
    if (inBin.length === 0) return [];
    const byProgram = new Map<string, { n: number; right: number }>();
    for (const s of inBin) {
      const c = byProgram.get(s.program) ?? { n: 0, right: 0 };
      byProgram.set(s.program, { n: c.n + 1, right: c.right + (s.right ? 1 : 0) });
    }
    const groups = [...byProgram.values()];
    const shares: number[] = [];
    for (let b = 0; b < 2000; b++) {
      let n = 0;
      let right = 0;
      for (let j = 0; j < groups.length; j++) {
        const g = groups[Math.floor(rnd() * groups.length)]!;
        n += g.n;
        right += g.right;
      }
      shares.push(right / n);
    }
    shares.sort((a, b) => a - b);
    const right = inBin.filter((s) => s.right).length;
    const meanSaid = inBin.reduce((a, s) => a + s.said, 0) / inBin.length;
    const low = shares[Math.floor(0.025 * shares.length)]!;
    const high = shares[Math.ceil(0.975 * shares.length) - 1]!;
    return [
      {
        from,
        to,
        n: inBin.length,
        programs: groups.length,
        meanSaid,
        share: right / inBin.length,
        low,
        high,
        calibrated: meanSaid >= low && meanSaid <= high,
      },
    ];
  });
}

/** The table as src/analysis/calibration-table.ts. */
export function tableSource(table: CalibrationTable): string {
  return [
    "/** Written by `npm run calibrate` (bench/calibrate.mjs, test/helpers/calibration-fit.ts): do not edit by hand. */",
    'import type { CalibrationTable } from "./calibration-types.js";',
    "",
    `export const CALIBRATION: CalibrationTable = ${JSON.stringify(table, null, 2)};`,
    "",
  ].join("\n");
}
