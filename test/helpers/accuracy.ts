/**
 * How right memleak's verdicts are on the labelled corpus (issue 46), as pure functions of what each run gave: one
 * run scored against its label, then the table — per kind precision and recall, the confusion matrix, the leak gate's
 * false alarms and misses, layer and holder accuracy, time to the first right progress line, progress lines that said
 * `leak` on a program that does not leak, and calibration (verdicts binned by confidence against how often each bin
 * was right). bench/accuracy.mjs runs the programs; this file only counts, so that it can be tested on made-up runs.
 */
import { familyOf } from "../../src/analysis/calibration.js";
import type { Finding } from "../../src/analysis/types.js";
import { VERDICT_KINDS, type VerdictKind } from "../../src/base/verdict-kinds.js";
import type { CorpusEntry, Mode, SubjectLabel } from "./corpus.js";

/** What one run of a program under memleak gave, read off its verdict document and its progress lines. */
export interface Observed {
  /** Undefined when no verdict document came back (a crash, a timeout): counted wrong, never dropped. */
  kind?: VerdictKind;
  /** As said (calibrated), and the rule's own score with the calibration family it went through (calibration.ts). */
  confidence?: number;
  rawConfidence?: number;
  family?: string;
  subject?: SubjectLabel;
  layer?: string;
  holder?: string;
  /** The progress lines' "so far" kinds, with the session's elapsed seconds. */
  progress: { t: number; kind: string }[];
  timedOut?: boolean;
  error?: string;
  exitCode?: number | null;
}

export interface Scored {
  name: string;
  mode: Mode;
  expect: VerdictKind;
  got: VerdictKind | "none";
  /** The kind, the subject where labelled: the verdict counts as right only with both. */
  right: boolean;
  kindRight: boolean;
  /** Undefined where the label says nothing of it, or the verdict is no leak. */
  layerRight?: boolean;
  holderRight?: boolean;
  confidence?: number;
  rawConfidence?: number;
  family?: string;
  /** Elapsed seconds of the first progress line with the right kind; undefined if none had it. */
  firstRightAt?: number;
  progressLines: number;
  /** Progress lines that said leak where the program does not leak. */
  falseLeakLines: number;
  timedOut: boolean;
  error?: string;
}

/** The verdict's subject as a label: the root or a worker process, the tree, the cgroup. */
export function subjectLabel(s: { type: string; isRoot?: boolean }): SubjectLabel {
  if (s.type === "process") return s.isRoot ? "root" : "worker";
  return s.type === "tree" ? "tree" : "cgroup";
}

/** A progress line's elapsed time as memleak writes it (base/units.ts formatDuration): 10s, 10.1s, 2m08s, 1h02m. */
export function elapsedSeconds(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:([\d.]+)s)?$|^(\d+)ms$/.exec(text);
  if (!m || text === "") return undefined;
  if (m[4] !== undefined) return Number(m[4]) / 1000;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/** Reads a verdict document (memleak.verdict/1) and the progress lines of stderr into an Observed. */
export function observe(doc: unknown, stderr: string): Observed {
  const progress = [...stderr.matchAll(/^memleak: ([\dhms.]+), .*so far: ([a-z-]+)/gm)].flatMap((m) => {
    const t = elapsedSeconds(m[1]!);
    return t === undefined ? [] : [{ t, kind: m[2]! }];
  });
  const v = (doc as { verdict?: Record<string, unknown> } | undefined)?.verdict;
  if (!v || typeof v.kind !== "string") return { progress };
  const evidence = (v.evidence ?? {}) as Record<string, unknown>;
  const holder = v.holder as { found?: boolean; path?: string } | undefined;
  return {
    kind: v.kind as VerdictKind,
    ...(typeof v.confidence === "number" && { confidence: v.confidence }),
    ...(typeof v.rawConfidence === "number" && { rawConfidence: v.rawConfidence }),
    family: familyOf({
      kind: v.kind as VerdictKind,
      subject: v.subject as Finding["subject"],
      evidence: evidence as Finding["evidence"],
    }),
    subject: subjectLabel(v.subject as { type: string; isRoot?: boolean }),
    ...(typeof evidence.layer === "string" && { layer: evidence.layer }),
    ...(holder?.found && holder.path !== undefined && { holder: holder.path }),
    progress,
  };
}

/** One run against its label. */
export function score(e: CorpusEntry, mode: Mode, o: Observed): Scored {
  const got = o.kind ?? "none";
  const kindRight = got === e.expect;
  const subjectRight = e.subject === undefined || o.subject === e.subject;
  const leakFound = kindRight && e.expect === "leak";
  const firstRight = o.progress.find((p) => p.kind === e.expect);
  return {
    name: e.name,
    mode,
    expect: e.expect,
    got,
    right: kindRight && subjectRight,
    kindRight,
    ...(leakFound && e.layer !== undefined && { layerRight: o.layer === e.layer }),
    ...(leakFound && e.holder !== undefined && { holderRight: o.holder === e.holder }),
    ...(o.confidence !== undefined && { confidence: o.confidence }),
    ...(o.rawConfidence !== undefined && { rawConfidence: o.rawConfidence }),
    ...(o.family !== undefined && { family: o.family }),
    ...(firstRight && { firstRightAt: firstRight.t }),
    progressLines: o.progress.length,
    falseLeakLines: e.expect === "leak" ? 0 : o.progress.filter((p) => p.kind === "leak").length,
    timedOut: o.timedOut === true,
    ...(o.error !== undefined && { error: o.error }),
  };
}

export interface KindFigures {
  kind: VerdictKind;
  /** Runs labelled with it, verdicts of it, and both. */
  labelled: number;
  called: number;
  right: number;
  precision?: number;
  recall?: number;
}

/** Per kind: how often a verdict of it was right (precision), how often a program of it got it (recall). */
export function perKind(runs: readonly Scored[]): KindFigures[] {
  return VERDICT_KINDS.map((kind) => {
    const labelled = runs.filter((r) => r.expect === kind).length;
    const called = runs.filter((r) => r.got === kind).length;
    const right = runs.filter((r) => r.expect === kind && r.got === kind).length;
    return {
      kind,
      labelled,
      called,
      right,
      ...(called > 0 && { precision: right / called }),
      ...(labelled > 0 && { recall: right / labelled }),
    };
  });
}

/** confusion[expected][got] = runs; "none" where no verdict came back. */
export function confusion(runs: readonly Scored[]): Map<VerdictKind, Map<VerdictKind | "none", number>> {
  const m = new Map<VerdictKind, Map<VerdictKind | "none", number>>();
  for (const r of runs) {
    const row = m.get(r.expect) ?? new Map<VerdictKind | "none", number>();
    row.set(r.got, (row.get(r.got) ?? 0) + 1);
    m.set(r.expect, row);
  }
  return m;
}

/**
 * The leak gate's view (`--fail-on leak`): a false alarm is `leak` on a program that does not leak, a miss is no
 * `leak` on one that does.
 */
export function leakGate(runs: readonly Scored[]) {
  const leaks = runs.filter((r) => r.expect === "leak");
  const others = runs.filter((r) => r.expect !== "leak");
  return {
    leaks: leaks.length,
    missed: leaks.filter((r) => r.got !== "leak").length,
    others: others.length,
    falseAlarms: others.filter((r) => r.got === "leak").length,
    progressLines: others.reduce((n, r) => n + r.progressLines, 0),
    falseLeakLines: others.reduce((n, r) => n + r.falseLeakLines, 0),
    runsWithFalseLeakLine: others.filter((r) => r.falseLeakLines > 0).length,
  };
}

/** A share and its 95% Wilson interval: a bin of 4 runs all right is not "100%". */
export function wilson(right: number, n: number, z = 1.96): { share: number; low: number; high: number } {
  if (n === 0) return { share: NaN, low: 0, high: 1 };
  const p = right / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return { share: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** The confidence bins' lower edges: [0, 0.5), [0.5, 0.6), … [0.9, 1]. */
export const BIN_EDGES = [0, 0.5, 0.6, 0.7, 0.8, 0.9] as const;

export interface CalibrationBin {
  from: number;
  to: number;
  n: number;
  meanConfidence: number;
  right: number;
  share: number;
  low: number;
  high: number;
  /** The mean confidence lies within the share's interval. */
  calibrated: boolean;
}

/**
 * Verdicts binned by their confidence against how often each bin was right. insufficient-data (confidence 0, no claim)
 * and runs without a verdict are left out: they say nothing to be calibrated.
 */
export function calibration(runs: readonly Scored[]): CalibrationBin[] {
  const claims = runs.filter((r) => r.confidence !== undefined && r.got !== "insufficient-data" && r.got !== "none");
  return BIN_EDGES.map((from, i) => {
    const to = BIN_EDGES[i + 1] ?? 1;
    const inBin = claims.filter(
      (r) => r.confidence! >= from && (r.confidence! < to || (to === 1 && r.confidence! <= 1)),
    );
    const right = inBin.filter((r) => r.right).length;
    const meanConfidence = inBin.length ? inBin.reduce((s, r) => s + r.confidence!, 0) / inBin.length : NaN;
    const w = wilson(right, inBin.length);
    return {
      from,
      to,
      n: inBin.length,
      meanConfidence,
      right,
      ...w,
      calibrated: inBin.length > 0 && meanConfidence >= w.low && meanConfidence <= w.high,
    };
  });
}

/** Of leaks found, how often the layer and the holder were the labelled ones (where the label names them). */
export function layerAndHolder(runs: readonly Scored[]) {
  const layer = runs.filter((r) => r.layerRight !== undefined);
  const holder = runs.filter((r) => r.holderRight !== undefined);
  return {
    layerLabelled: layer.length,
    layerRight: layer.filter((r) => r.layerRight).length,
    holderLabelled: holder.length,
    holderRight: holder.filter((r) => r.holderRight).length,
  };
}
