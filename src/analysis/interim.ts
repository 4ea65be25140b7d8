/**
 * One interim verdict — the verdict so far and the gates on it — as a job that can run on a worker thread: its input
 * is plain data (packed-set.ts), and it says what it cost, so the session can keep interim verdicts to their share of
 * a core (session.ts nextAnalysisIn).
 */
import { evaluateGates, type GateOptions, type GateResult } from "../gates.js";
import { classify, type ClassifyInput } from "./classify.js";
import { unpackSet, type PackedSet } from "./packed-set.js";
import type { VerdictDocument } from "./types.js";

export interface InterimJob {
  input: Omit<ClassifyInput, "set"> & { set: PackedSet };
  gates: GateOptions;
}

export interface InterimResult {
  doc: VerdictDocument;
  gates: GateResult[];
  /** Milliseconds the verdict took (wall time of the thread that worked it out: on a busy machine, more than CPU). */
  costMs: number;
}

export function runInterim(job: InterimJob): InterimResult {
  const started = performance.now();
  const set = unpackSet(job.input.set);
  const doc = classify({ ...job.input, set });
  const gates = evaluateGates(doc, set, job.gates);
  return { doc, gates, costMs: performance.now() - started };
}
