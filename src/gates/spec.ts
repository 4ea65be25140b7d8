/**
 * What the user asked the gates to check, as the CLI parses it: the metrics a gate may watch, the options, and the
 * verdict kinds --fail-on names. Apart from gates/gates.ts, which judges them on an analysis: --help and argument
 * parsing must not load the analysis to know these words.
 */
import type { SizeSpec } from "../base/units.js";
import { VERDICT_KINDS, type VerdictKind } from "../base/verdict-kinds.js";

/** `gpu`: each process's allocated CUDA memory per device (the agent's), or its GPU memory as the driver counts it. */
export const GATE_METRICS = ["uss", "pss", "rss", "anon", "cgroup", "working-set", "gpu"] as const;
export type GateMetric = (typeof GATE_METRICS)[number];

export interface GateOptions {
  maxGrowth?: SizeSpec;
  /** Bytes per second. */
  maxRate?: { bytesPerSecond: number; text: string };
  failOn?: VerdictKind[];
  /** Fail when a leak reaches its memory limit sooner than this, at the far end of the range (gates/time-to-limit.ts). */
  minTimeToLimit?: { seconds: number; text: string };
  metric: GateMetric;
  /** Apply growth/rate limits to each process instead of the tree total. */
  perProcess: boolean;
  /** Seconds left out at the start; undefined = the analysis's own warm-up. */
  warmup?: number;
  /** An inconclusive gate fails the step (exit 1) instead of passing it with a warning. */
  strict?: boolean;
  /** Stop the command as soon as a gate has failed and kept failing (session/fail-fast/fail-fast.ts), instead of at its end. */
  failFast?: boolean;
}

export function parseKinds(text: string): { ok: true; value: VerdictKind[] } | { ok: false; message: string } {
  const kinds = text
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  const bad = kinds.filter((k) => !(VERDICT_KINDS as readonly string[]).includes(k));
  if (kinds.length === 0 || bad.length > 0) {
    return {
      ok: false,
      message: `unknown verdict kind${bad.length > 1 ? "s" : ""} ${bad.map((b) => `"${b}"`).join(", ") || '""'}: choose from ${VERDICT_KINDS.join(", ")}`,
    };
  }
  return { ok: true, value: kinds as VerdictKind[] };
}
