/**
 * `memleak analyze recording.jsonl`: re-run the verdict engine on a recording, offline (a newer memleak may judge
 * an old recording better), with the same gates and reports as run/watch.
 */
import { analyzeRecording } from "../recording/replay.js";
import type { VerdictDocument } from "../analysis/types.js";
import { gateVerdict } from "../gates/gate-verdict.js";
import type { GateOptions } from "../gates/spec.js";
import { report } from "../session/finish.js";
import { gatesExitCode } from "../gates/exit-policy.js";
import type { CommandIO, CommandResult } from "../base/command-io.js";

export interface AnalyzeOptions {
  file: string;
  json: boolean;
  warmup?: number | undefined;
  gates: GateOptions;
  html?: string | undefined;
}

export async function analyzeCommand(
  o: AnalyzeOptions,
  io: CommandIO,
): Promise<CommandResult & { doc: VerdictDocument }> {
  const { doc, set, commands, recording, testGate } = await analyzeRecording(o.file, { warmup: o.warmup });
  if (recording.truncated)
    io.stderr(
      `memleak: ${o.file}: the last line was cut short (memleak was killed while writing); analyzing the rest\n`,
    );
  const { count, first } = recording.skipped;
  if (count > 0 && first) {
    io.stderr(
      `memleak: warning: ${o.file}: skipped ${count} bad line${count === 1 ? "" : "s"} (first: line ${first.line}: ${first.why}); analyzing the rest\n`,
    );
  }
  gateVerdict(doc, set, o.gates, { more: testGate ? [testGate] : [] });
  const h = recording.header;
  const about = {
    hostname: h.machine?.hostname,
    kernel: h.machine?.kernel,
    startedAt: h.startedAt,
    recordedBy: h.memleakVersion,
  };
  report(doc, o.json, io, { set, html: o.html, commands, about });
  return { exitCode: gatesExitCode(doc), doc };
}
