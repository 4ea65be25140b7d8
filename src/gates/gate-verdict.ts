/**
 * The gates on a worded verdict, set on the document: the one place where run and watch (their final and interim
 * verdicts), `analyze` of a recording and `analyze --prometheus` check them, so a gate means the same everywhere.
 */
import type { VerdictDocument } from "../analysis/types.js";
import type { SeriesSet } from "../series/series.js";
import { evaluateGates, type GateResult } from "./gates.js";
import type { GateOptions } from "./spec.js";

export interface GateVerdictOptions {
  /** What the session's interim verdicts already decided (--fail-fast's settled gates): applied to the gates checked. */
  settle?: (checked: GateResult[]) => GateResult[];
  /** Gates checked elsewhere, appended: the pytest plugin's per-test limits. */
  more?: GateResult[];
}

/** Checks the gates on `doc` (judged on `set`) and sets doc.gates when there are any; returns them. */
export function gateVerdict(
  doc: VerdictDocument,
  set: SeriesSet,
  options: GateOptions,
  o: GateVerdictOptions = {},
): GateResult[] {
  const checked = evaluateGates(doc, set, options);
  const gates = [...(o.settle ? o.settle(checked) : checked), ...(o.more ?? [])];
  if (gates.length) doc.gates = gates;
  return gates;
}
