/**
 * `memleak analyze recording.jsonl`: re-run the verdict engine on a recording, offline (a newer memleak may judge
 * an old recording better), with the same gates as run/watch.
 */
import { classify } from "../analysis/classify.js";
import { SeriesBuilder } from "../analysis/series.js";
import type { VerdictDocument } from "../analysis/types.js";
import { evaluateGates, type GateOptions } from "../gates.js";
import { readRecording } from "../recording.js";
import { parseAgentMessage, type TraceResult, type TrimResult } from "../agent/messages.js";
import { gatesExitCode, report } from "./finish.js";
import type { CommandIO, CommandResult } from "./io.js";

export interface AnalyzeOptions {
  file: string;
  json: boolean;
  warmup?: number | undefined;
  gates: GateOptions;
  html?: string | undefined;
}

export async function analyzeCommand(o: AnalyzeOptions, io: CommandIO): Promise<CommandResult & { doc: VerdictDocument }> {
  const builder = new SeriesBuilder();
  const rec = await readRecording(o.file, (s) => builder.add(s));
  if (rec.truncated) io.stderr(`memleak: ${o.file}: the last line was cut short (memleak was killed while writing); analysing the rest\n`);
  const commands = new Map<number, string[]>();
  for (const e of rec.events) {
    const d = e.detail as { pid?: number; cmdline?: string[] } | undefined;
    if (e.event === "process-start" && d?.pid !== undefined && d.cmdline) commands.set(d.pid, d.cmdline);
  }
  const traces = new Map<number, TraceResult>();
  const trims = new Map<number, TrimResult>();
  for (const e of rec.events) {
    const m = e.event.startsWith("agent-") ? parseAgentMessage(JSON.stringify(e.detail ?? {})) : undefined;
    if (m?.type === "trace") traces.set(m.pid, m);
    if (m?.type === "trim") trims.set(m.pid, m);
  }
  const h = rec.header;
  const cg = h.cgroup && "path" in h.cgroup ? h.cgroup : undefined;
  const doc = classify({
    agentResults: traces.size + trims.size > 0 ? { traces, trims } : undefined,
    set: builder.set,
    options: { warmup: o.warmup, command: h.target.command },
    commands,
    cgroup: cg ? { path: cg.path, version: cg.version } : undefined,
    target: { pid: h.target.pid, ...(h.target.command && { command: h.target.command }), ...(h.cgroup && { cgroup: h.cgroup }) },
  });
  if (rec.verdict) {
    for (const k of ["exitCode", "signal", "stopReason"] as const) {
      if (rec.verdict.target[k] !== undefined) (doc.target as Record<string, unknown>)[k] = rec.verdict.target[k];
    }
  }
  const gates = evaluateGates(doc, builder.set, o.gates);
  if (gates.length) doc.gates = gates;
  report(doc, o.json, io, { set: builder.set, html: o.html, commands });
  return { exitCode: gatesExitCode(doc), doc };
}
