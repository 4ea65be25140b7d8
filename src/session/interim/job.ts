/**
 * One interim verdict — the verdict so far and the gates on it — as a job that can run on a worker thread: its input
 * is plain data (packed-set.ts), and it says what it cost, so the session can keep interim verdicts to their share of
 * a core (session/interim/verdicts.ts nextAnalysisIn).
 */
import type { GateResult } from "../../gates/gates.js";
import { gateVerdict } from "../../gates/gate-verdict.js";
import type { GateOptions } from "../../gates/spec.js";
import { classifyWithFacts, type ClassifyInput } from "../../report/verdict.js";
import type { JudgedFinding } from "../../analysis/judgement.js";
import { unpackSet, type PackedSet } from "../../series/packed-set.js";
import type { VerdictDocument } from "../../analysis/types.js";
import { cpuMark, cpuMsSince } from "../../system/cpu-time.js";

export interface InterimJob {
  input: Omit<ClassifyInput, "set"> & { set: PackedSet };
  gates: GateOptions;
}

export interface InterimResult {
  doc: VerdictDocument;
  /** The verdict as facts: the live view words it in its own, shorter way (report/live/view.ts soFarText). */
  verdict: JudgedFinding;
  gates: GateResult[];
  /**
   * Milliseconds of CPU the verdict took, of the whole process (process.cpuUsage sums every thread): V8's helper
   * threads collect the garbage its statistics leave, and the thread's own wall time was half of what the verdicts
   * were seen to cost memleak from outside (bench g, 64 processes). What the other threads did meanwhile is counted
   * too, which errs towards fewer verdicts.
   */
  costMs: number;
}

export function runInterim(job: InterimJob): InterimResult {
  const started = cpuMark();
  const set = unpackSet(job.input.set);
  const { doc, verdict } = classifyWithFacts({ ...job.input, set });
  const gates = gateVerdict(doc, set, job.gates);
  return { doc, verdict, gates, costMs: cpuMsSince(started) };
}
