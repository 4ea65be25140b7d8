/**
 * Test helper: a recording → the verdict document, the series and the command lines, the way `memleak analyze`
 * builds them (src/commands/analyze.ts), without printing anything.
 */
import { readdirSync } from "node:fs";
import { analyzeRecording } from "../../src/recording/replay.js";
import type { SeriesSet } from "../../src/series/series.js";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { FIXTURES } from "./fixtures.js";

export const RECORDINGS = readdirSync(`${FIXTURES}recordings`).filter((f) => f.endsWith(".jsonl"));

export function recordingPath(name: string): string {
  return `${FIXTURES}recordings/${name}`;
}

export interface Analyzed {
  doc: VerdictDocument;
  set: SeriesSet;
  commands: Map<number, string[]>;
}

export async function analyze(name: string): Promise<Analyzed> {
  const { doc, set, commands } = await analyzeRecording(recordingPath(name));
  return { doc, set, commands };
}

/** A copy of `a` in which one process's name and command line are hostile markup. */
export function withHostileProcess(a: Analyzed, pid: number, hostile: string): Analyzed {
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
