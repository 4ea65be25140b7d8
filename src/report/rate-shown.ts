/**
 * Whether a finding's growth rate is shown beside it. Only where the finding stands on the rate: the slope of a stable
 * or undecided series is noise ("+24.0 MiB per hour" beside a process judged stable, 76 KiB of growth, read as an
 * alarm), and a bounded change (copy-on-write stops at what the parent held, a plateau has levelled off) has no
 * hourly rate to extrapolate ("+12.9 GiB per hour" for a copy-on-write bounded by 123 MiB).
 */
import type { VerdictKind } from "../base/verdict-kinds.js";

const NO_RATE: ReadonlySet<string> = new Set<VerdictKind>(["stable", "insufficient-data", "cow", "plateau"]);

export function rateShown(kind: string): boolean {
  return !NO_RATE.has(kind);
}
