/**
 * Test helper: a recording → the verdict document, the series and the command lines, the way `memleak analyze`
 * builds them (src/commands/analyze.ts), without printing anything.
 */
import { readdirSync } from "node:fs";
import { analyzeRecording } from "../../src/recording/replay.js";
import type { SeriesSet } from "../../src/series/series.js";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { FIXTURES } from "./fixtures.js";
import { analyzedDoc } from "./analyzed-once.js";

export const RECORDINGS = readdirSync(`${FIXTURES}recordings`).filter((f) => f.endsWith(".jsonl"));

export function recordingPath(name: string): string {
  return `${FIXTURES}recordings/${name}`;
}

export interface Analyzed {
  doc: VerdictDocument;
  set: SeriesSet;
  commands: Map<number, string[]>;
}

/** Each recording analyzed once per test file, however many of its tests ask (verdict-text asked 8 times for one). */
const analyzed = new Map<string, ReturnType<typeof analyzeRecording>>();

/**
 * The document (a copy each call: tests mark it up), the series and the command lines. The series are shared by the
 * file's tests and must not be changed (withHostileProcess copies what it changes).
 */
export async function analyze(name: string): Promise<Analyzed> {
  let once = analyzed.get(name);
  if (!once) analyzed.set(name, (once = analyzeRecording(recordingPath(name))));
  const { doc, set, commands } = await once;
  return { doc: structuredClone(doc), set, commands: new Map(commands) };
}

/** The document alone, analyzed once per test run (helpers/analyzed-once.ts): for tests that need no series. */
export function docOf(name: string): Promise<VerdictDocument> {
  return analyzedDoc(recordingPath(name));
}

/** A copy of `a` in which one process's name and command line are hostile markup. */
export function withHostileProcess(a: Analyzed, pid: number, hostile: string): Analyzed {
  const commands = new Map(a.commands);
  commands.set(pid, [hostile, hostile]);
  const processes = new Map(
    [...a.set.processes].map(([key, ps]) => [key, ps.pid === pid ? { ...ps, comm: hostile } : ps]),
  );
  const set: SeriesSet = { ...a.set, processes };
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
  return { doc, set, commands };
}
