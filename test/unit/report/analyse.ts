/**
 * Test helper: a recording → the verdict document, the series and the command lines, the way `memleak analyze`
 * builds them (src/commands/analyze.ts), without printing anything.
 */
import { readdirSync } from "node:fs";
import { classify } from "../../../src/analysis/classify.js";
import { SeriesBuilder, type SeriesSet } from "../../../src/analysis/series.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import { readRecording } from "../../../src/recording.js";
import { FIXTURES } from "../../helpers/fixtures.js";

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
  const builder = new SeriesBuilder();
  const rec = await readRecording(recordingPath(name), (s) => builder.add(s));
  const commands = new Map<number, string[]>();
  for (const e of rec.events) {
    const d = e.detail as { pid?: number; cmdline?: string[] } | undefined;
    if (e.event === "process-start" && d?.pid !== undefined && d.cmdline) commands.set(d.pid, d.cmdline);
  }
  const h = rec.header;
  const cg = h.cgroup && "path" in h.cgroup ? h.cgroup : undefined;
  const doc = classify({
    set: builder.set,
    options: { command: h.target.command },
    commands,
    cgroup: cg ? { path: cg.path, version: cg.version } : undefined,
    target: { pid: h.target.pid, ...(h.target.command && { command: h.target.command }), ...(h.cgroup && { cgroup: h.cgroup }) },
  });
  if (rec.verdict) {
    for (const k of ["exitCode", "signal", "stopReason"] as const) {
      if (rec.verdict.target[k] !== undefined) (doc.target as Record<string, unknown>)[k] = rec.verdict.target[k];
    }
  }
  return { doc, set: builder.set, commands };
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
