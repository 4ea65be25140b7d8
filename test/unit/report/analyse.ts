/**
 * Test helper: a recording → the verdict document, the series and the command lines, the way `memleak analyze`
 * builds them (src/commands/analyze.ts), without printing anything.
 */
import { readdirSync } from "node:fs";
import { analyseRecording } from "../../../src/commands/analyse-recording.js";
import type { SeriesSet } from "../../../src/analysis/series.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import { FIXTURES } from "../../helpers/fixtures.js";
import { analysedDoc } from "../../helpers/analysed-once.js";

export const RECORDINGS = readdirSync(`${FIXTURES}recordings`).filter((f) => f.endsWith(".jsonl"));

export function recordingPath(name: string): string {
  return `${FIXTURES}recordings/${name}`;
}

export interface Analysed {
  doc: VerdictDocument;
  set: SeriesSet;
  commands: Map<number, string[]>;
}

export async function analyse(name: string): Promise<Analysed> {
  const { doc, set, commands } = await analyseRecording(recordingPath(name));
  return { doc, set, commands };
}

/** The document alone, analysed once per test run (helpers/analysed-once.ts): for tests that need no series. */
export function docOf(name: string): Promise<VerdictDocument> {
  return analysedDoc(recordingPath(name));
}

/** A copy of `a` in which one process's name and command line are hostile markup. */
export function withHostileProcess(a: Analysed, pid: number, hostile: string): Analysed {
  const commands = new Map(a.commands);
  commands.set(pid, [hostile, hostile]);
  for (const ps of a.set.processes.values()) if (ps.pid === pid) ps.comm = hostile;
  const doc: VerdictDocument = JSON.parse(JSON.stringify(a.doc));
  for (const f of [doc.verdict, ...doc.findings]) {
    if (f.subject.type === "process" && f.subject.pid === pid) {
      f.subject.command = hostile;
      f.summary = `PID ${pid} (${hostile}) ${f.summary}`;
      f.evidence.command = hostile;
      f.advice = `Look at \`${hostile}\` and **${hostile}**.\n\n- ${hostile}`;
      f.caveats = [hostile];
    }
  }
  doc.target.command = [hostile];
  return { doc, set: a.set, commands };
}
