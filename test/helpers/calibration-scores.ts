/**
 * What calibration is fitted on (issue 46): the labelled corpus's recordings (fixtures/recordings,
 * fixtures/calibration/recordings), each replayed as its progress lines saw it — cut every `step` seconds and at its
 * end — and each cut's verdict scored against the program's label (test/helpers/accuracy.ts `score`). A recording is
 * the program's by the script its command ran (and, for a manifest program, its arguments); one whose program has no
 * label, or was recorded in a mode its label does not cover, is listed with why, never dropped silently.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { familyOf } from "../../src/analysis/calibration.js";
import type { Finding } from "../../src/analysis/types.js";
import { observe, score } from "./accuracy.js";
import type { LabelledScore } from "./calibration-fit.js";
import type { CorpusEntry, Mode } from "./corpus.js";
import { analyzedUntil, recordingLines } from "./recording-cut.js";

export const RECORDING_DIRS = ["fixtures/recordings", "fixtures/calibration/recordings"] as const;

export interface LabelledRecording {
  /** Relative to the repository. */
  file: string;
  entry: CorpusEntry;
  mode: Mode;
}

interface Header {
  target?: { mode?: string; command?: string[] };
}

/**
 * The corpus entry a recorded command ran: its script, and its arguments where the entry has more than the length.
 * The words are split again, for a script run by a shell line (`bash -c "sleep 4.5; exec python3 SCRIPT 20"`).
 */
export function entryOf(command: readonly string[], corpus: readonly CorpusEntry[]): CorpusEntry | undefined {
  const words = command.flatMap((w) => w.split(/[\s;]+/)).filter(Boolean);
  return corpus.find((e) => {
    const at = words.findIndex((w) => w === e.file || w.endsWith(`/${e.file}`));
    if (at < 0) return false;
    const args = words.slice(at + 1);
    return e.args.every((a, i) => a === "{seconds}" || args[i] === a);
  });
}

export function labelledRecordings(
  repo: string,
  corpus: readonly CorpusEntry[],
): { labelled: LabelledRecording[]; unlabelled: { file: string; why: string }[] } {
  const labelled: LabelledRecording[] = [];
  const unlabelled: { file: string; why: string }[] = [];
  for (const dir of RECORDING_DIRS) {
    for (const name of readdirSync(join(repo, dir))
      .filter((f) => f.endsWith(".jsonl"))
      .sort()) {
      const file = `${dir}/${name}`;
      const header = JSON.parse(readFileSync(join(repo, file), "utf8").split("\n")[0]!) as Header;
      const command = header.target?.command ?? [];
      const mode = header.target?.mode === "watch" ? "watch" : "run";
      const entry = entryOf(command, corpus);
      if (!entry) unlabelled.push({ file, why: `no corpus program runs ${command.join(" ")}` });
      else if (!entry.modes.includes(mode)) unlabelled.push({ file, why: `${entry.name} is not labelled for ${mode}` });
      else labelled.push({ file, entry, mode });
    }
  }
  return { labelled, unlabelled };
}

/**
 * A recording is cut at most this many times, evenly over its length: a 5-minute recording would otherwise weigh as
 * much as ten short ones, and its verdicts a few seconds apart are mostly the same verdict again.
 */
export const MAX_CUTS = 10;

/** Where a recording of `seconds` is cut: every `step` seconds (wider on a long one) and at its end. */
export function cutsOf(seconds: number, step: number): number[] {
  const every = Math.max(step, seconds / MAX_CUTS);
  const cuts: number[] = [];
  for (let t = every; t < seconds - every / 2; t += every) cuts.push(Number(t.toFixed(3)));
  cuts.push(seconds);
  return cuts;
}

/** One recording's verdicts at its cuts, scored against its label. */
export async function scoresOf(repo: string, r: LabelledRecording, step: number): Promise<LabelledScore[]> {
  const path = join(repo, r.file);
  const { lines, seconds } = recordingLines(path);
  const cuts = cutsOf(seconds, step);
  const out: LabelledScore[] = [];
  for (const t of cuts) {
    const doc = (await analyzedUntil(path, t, lines)) as { verdict: Finding };
    const s = score(r.entry, r.mode, observe(doc, ""));
    const v = doc.verdict;
    out.push({ program: r.entry.name, family: familyOf(v), raw: v.rawConfidence ?? v.confidence, right: s.right });
  }
  return out;
}
