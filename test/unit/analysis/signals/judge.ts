/**
 * What the boundary tests share: run the whole verdict engine on a seeded synthetic scenario and pick out the
 * finding a rule produced. Every case is built from literal numbers (not from the exported constants), so that
 * moving a threshold past a case's margin fails that case.
 */
import { expect } from "vitest";
import type { AgentResults } from "../../../../src/analysis/context.js";
import { classify } from "../../../../src/report/verdict.js";
import { buildSeries } from "../../../../src/series/series.js";
import type { Finding, VerdictDocument } from "../../../../src/analysis/types.js";
import type { GenerateOptions, Shape } from "../../../helpers/synthetic.js";
import { MB, synthesize, type SynthProcess, type SynthScenario } from "../../../helpers/synthetic-samples.js";

export { MB };
export type Series = Partial<GenerateOptions> & { shape: Shape };

export interface JudgeOptions {
  /** Seconds of warm-up to leave out; detected when undefined. */
  warmup?: number;
  agentResults?: AgentResults;
  noCgroup?: boolean;
  /** The command memleak launched (run); without it the session is a watch. */
  command?: string[];
}

export function judge(sc: SynthScenario, o: JudgeOptions = {}): VerdictDocument {
  return classify({
    set: buildSeries(synthesize({ ...sc, noCgroup: sc.noCgroup ?? o.noCgroup })),
    options: {
      ...(o.warmup !== undefined && { warmup: o.warmup }),
      ...(o.command && { command: o.command, launched: true }),
    },
    cgroup: sc.noCgroup || o.noCgroup ? undefined : { path: "/rules", version: 1 },
    target: { pid: sc.processes[0]?.pid ?? 100 },
    agentResults: o.agentResults,
  });
}

export function processFinding(doc: VerdictDocument, pid: number): Finding {
  const f = doc.findings.find((x) => x.subject.type === "process" && x.pid === pid);
  expect(f, `a finding for PID ${pid}`).toBeDefined();
  return f!;
}

export function subjectFinding(doc: VerdictDocument, type: Finding["subject"]["type"]): Finding {
  const f = doc.findings.find((x) => x.subject.type === type);
  expect(f, `a ${type} finding`).toBeDefined();
  return f!;
}

/** Flat at `level` with a little noise. */
export const flat = (level: number, noise = 0.5 * MB): Series => ({
  shape: { kind: "stable" },
  baseline: level,
  noise,
});

/** From `level`, up by `by` bytes at a constant rate until `until` seconds, then flat. */
export const fill = (level: number, by: number, until: number, noise = 0.1 * MB): Series => ({
  shape: { kind: "fill", bytesPerSecond: by / until, until },
  baseline: level,
  noise,
});

export const linear = (level: number, bytesPerSecond: number, noise = 0.5 * MB): Series => ({
  shape: { kind: "linear", bytesPerSecond },
  baseline: level,
  noise,
});

/** One process (pid 100) alone, for `seconds` at 1 Hz. */
export function alone(
  p: Omit<SynthProcess, "pid" | "ppid">,
  seconds = 300,
  extra: Partial<SynthScenario> = {},
): SynthScenario {
  return { seconds, processes: [{ pid: 100, ppid: 1, ...p }], ...extra };
}

/** A table row: the case's name, the kind the rule must give, and its scenario (and judge options). */
export type Row = [name: string, kind: Finding["kind"], scenario: SynthScenario, options?: JudgeOptions];
