/**
 * A recording → the series, the command lines, the agent's end-of-run results and the verdict document: what
 * `memleak analyze` shows, without printing anything (tests and benchmarks use it too). Reading the file is the
 * command's part; the analysis gets samples and events, never a path.
 */
import { markPidsInside } from "../analysis/pids-inside.js";
import { parseAgentMessage } from "../agent/messages.js";
import { testResults } from "../analysis/pytest-verdicts.js";
import { testLimitsGate } from "../gates/pytest-limits.js";
import type { TestMark } from "../agent/pytest-results.js";
import {
  isGraphHolder,
  latestLook,
  type CowResult,
  type GpuOomResult,
  type GpuSitesResult,
  type HolderResult,
  type TraceResult,
  type TrimResult,
} from "../agent/agent-results.js";
import { readRecording, type RecordingContents } from "./format.js";
import { EVENT, holdsAgentMessage, readAttach, readOutsiders, readProcessStart } from "./events.js";
import type { OutsidersDetail } from "./events.js";
import { classify } from "../report/verdict.js";
import { SeriesBuilder, type SeriesSet } from "../series/series.js";
import type { VerdictDocument } from "../analysis/types.js";
import { nativeTraceFrom } from "../native/native-trace-check.js";

export interface AnalyzedRecording {
  doc: VerdictDocument;
  set: SeriesSet;
  commands: Map<number, string[]>;
  recording: Omit<RecordingContents, "samples">;
  /** The per-test limits' gate, when the recording has tests with limits: analyze checks it with the others. */
  testGate?: NonNullable<VerdictDocument["gates"]>[number] | undefined;
}

export async function analyzeRecording(
  path: string,
  options: { warmup?: number | undefined } = {},
): Promise<AnalyzedRecording> {
  const builder = new SeriesBuilder();
  const rec = await readRecording(path, (s) => builder.add(s));
  const commands = new Map<number, string[]>();
  const traces = new Map<number, TraceResult>();
  const trims = new Map<number, TrimResult>();
  const holders = new Map<number, HolderResult>();
  const graphHolders = new Map<number, HolderResult>();
  const copied = new Map<number, CowResult>();
  const gpuSites = new Map<number, GpuSitesResult>();
  const gpuOoms = new Map<number, GpuOomResult>();
  const agentMissing = new Map<number, string>();
  /** From `watch`'s attach events: the pid inside a container of each process that has one. */
  const pidsInside = new Map<number, number>();
  let outsiders: OutsidersDetail | undefined;
  const testMarks: TestMark[] = [];
  for (const e of rec.events) {
    if (e.event === EVENT.attach) {
      const a = readAttach(e.detail);
      if (a?.failedBecause !== undefined) agentMissing.set(a.pid, a.failedBecause);
      if (a?.startedAt !== undefined) builder.addInjection(a.pid, a.startedAt);
      if (a?.pidInside !== undefined) pidsInside.set(a.pid, a.pidInside);
    }
    if (e.event === EVENT.cgroupOutsiders) outsiders = readOutsiders(e.detail);
    if (e.event === EVENT.agentLastWords && e.detail && typeof e.detail === "object")
      builder.addLastWords(e.t, e.detail);
    const started = e.event === EVENT.processStart ? readProcessStart(e.detail) : undefined;
    if (started) commands.set(started.pid, started.cmdline);
    const m = holdsAgentMessage(e.event) ? parseAgentMessage(JSON.stringify(e.detail ?? {})) : undefined;
    if (m?.type === "trace") traces.set(m.pid, m);
    if (m?.type === "trim") trims.set(m.pid, m);
    if (m?.type === "holder") (isGraphHolder(m) ? graphHolders : holders).set(m.pid, m);
    if (m?.type === "cow") copied.set(m.pid, latestLook(copied.get(m.pid), m));
    if (m?.type === "gpu-sites") gpuSites.set(m.pid, m);
    if (m?.type === "gpu-oom") gpuOoms.set(m.pid, m);
    if (e.event === EVENT.testStart || e.event === EVENT.testEnd) {
      const mark = parseAgentMessage(JSON.stringify(e.detail ?? {}));
      if (mark?.type === e.event) testMarks.push(mark);
    }
  }
  const h = rec.header;
  const cg = h.cgroup && "path" in h.cgroup ? h.cgroup : undefined;
  const doc = classify({
    set: builder.set,
    options: { warmup: options.warmup, command: h.target.command, launched: h.target.mode === "run" },
    commands,
    agentResults:
      traces.size + trims.size + holders.size + graphHolders.size + copied.size + gpuSites.size + gpuOoms.size > 0
        ? { traces, trims, holders, graphHolders, copied, gpuSites, gpuOoms }
        : undefined,
    cgroup: cg
      ? { path: cg.path, version: cg.version, others: outsiders?.pids, othersAnonGrowth: outsiders?.anonGrowth }
      : undefined,
    agentMissing: agentMissing.size > 0 ? agentMissing : undefined,
    target: {
      pid: h.target.pid,
      ...(h.target.command && { command: h.target.command }),
      ...(h.cgroup && { cgroup: h.cgroup }),
    },
  });
  markPidsInside(doc, pidsInside);
  if (testMarks.length > 0) doc.tests = testResults(testMarks, builder.set.t0);
  // How the command ended is only known from the run itself.
  if (rec.verdict) {
    for (const k of ["exitCode", "signal", "stopReason"] as const) {
      if (rec.verdict.target[k] !== undefined) (doc.target as Record<string, unknown>)[k] = rec.verdict.target[k];
    }
    // run --trace-native's stacks came from heaptrack's traces, which the recording does not hold: kept as run found them.
    const native = nativeTraceFrom((rec.verdict as { nativeTrace?: unknown }).nativeTrace);
    if (native) doc.nativeTrace = native;
  }
  return { doc, set: builder.set, commands, recording: rec, testGate: doc.tests && testLimitsGate(doc.tests) };
}
