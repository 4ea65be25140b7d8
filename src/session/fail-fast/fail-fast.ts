/**
 * --fail-fast: when a gate has failed "for sure" during a session, so that a leaking CI job stops within seconds of
 * the evidence instead of running to its end. Pure bookkeeping over the interim gate results.
 *
 * "For sure" is: failed at every judgement for FAIL_FAST_HOLD_S, and at FAIL_FAST_MIN_LOOKS judgements at least. An
 * early leak call (stats/sequential.ts) is withdrawn when the growth stops — a load that finished — so one look is not
 * enough; a leak keeps being called. The price is stated in the README: a load that keeps growing for longer than
 * the hold is stopped as a leak (give it --warmup).
 */
import type { GateResult } from "../../gates/gates.js";

/**
 * 8 s. Measured on every fixture and calibration recording, judged as a session judges them (tools: the replay of
 * bench/lib/replay.mjs): with 5 s, a 400 MB load read over 9 s (one_off_load) was stopped as a leak at 10.5 s; with
 * 8 s it is not (its early call is withdrawn at 11 s, when its last third has stopped rising). Every leak recording is
 * still stopped by 13.5–18.5 s, and a 1 MiB/s leak at the default 1 s interval, first called at 8 s, by ~16 s: inside
 * the 20 s the CI step is given. What no hold of up to 12 s keeps from being stopped: growth that looks like a leak
 * for longer (long_warmup, plateau_slow, small_cow's start-up) — the README's price of --fail-fast.
 */
export const FAIL_FAST_HOLD_S = 8;
export const FAIL_FAST_MIN_LOOKS = 3;

const gateKey = (g: { name: string; subject?: string | undefined }) => `${g.name}\0${g.subject ?? ""}`;

export interface FastFailure {
  name: string;
  subject?: string;
  message: string;
  /** Series time (seconds) from which it failed at every look. */
  since: number;
  /** Series time when it was acted on. */
  at: number;
}

export class FailFast {
  constructor(private readonly holdSeconds = FAIL_FAST_HOLD_S) {}

  private readonly failing = new Map<string, { since: number; looks: number; last: GateResult }>();
  fired: FastFailure | undefined;

  /** Records one judgement's gates at series time t; returns the failure to act on, once. */
  check(t: number, gates: readonly GateResult[]): FastFailure | undefined {
    if (this.fired) return undefined;
    const now = new Set<string>();
    for (const g of gates) {
      // One gate per subject: --per-process gives each process its own max-growth, failing or not on its own.
      const key = gateKey(g);
      if (g.result !== "fail" || now.has(key)) continue;
      now.add(key);
      const prev = this.failing.get(key);
      this.failing.set(key, { since: prev?.since ?? t, looks: (prev?.looks ?? 0) + 1, last: g });
    }
    for (const key of [...this.failing.keys()]) if (!now.has(key)) this.failing.delete(key);
    for (const f of this.failing.values()) {
      if (t - f.since >= this.holdSeconds && f.looks >= FAIL_FAST_MIN_LOOKS) {
        this.fired = {
          name: f.last.name,
          ...(f.last.subject !== undefined && { subject: f.last.subject }),
          message: f.last.message,
          since: f.since,
          at: t,
        };
        return this.fired;
      }
    }
    return undefined;
  }

  /**
   * The final gates, once sampling stopped: the gate that stopped the session stays failed even if the last few
   * samples (after SIGTERM, a process freeing its memory as it exits) would let it pass — it is why the job stopped.
   */
  final(gates: GateResult[]): GateResult[] {
    const fired = this.fired;
    if (!fired || gates.some((g) => gateKey(g) === gateKey(fired) && g.result === "fail")) return gates;
    return [
      ...gates.filter((g) => gateKey(g) !== gateKey(fired)),
      {
        name: fired.name,
        ...(fired.subject !== undefined && { subject: fired.subject }),
        result: "fail",
        passed: false,
        message: `${fired.message} (at ${fired.at.toFixed(0)} s, when --fail-fast stopped the session)`,
      },
    ];
  }
}
