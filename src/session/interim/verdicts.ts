/**
 * The verdict so far, while a session samples: when to work it out next (in line, or on a worker thread once that is
 * too slow: session/interim/analyst.ts), what it was, --fail-fast's watch over its gates, and the history that says
 * when it settled on the final verdict.
 */
import type { ClassifyInput } from "../../analysis/classify.js";
import type { JudgedFinding } from "../../analysis/judgement.js";
import { packSet } from "../../series/packed-set.js";
import { interimView, type SeriesSet } from "../../series/series.js";
import type { VerdictDocument } from "../../analysis/types.js";
import { cpuMark, cpuMsSince } from "../../system/cpu-time.js";
import type { GateResult } from "../../gates/gates.js";
import type { GateOptions } from "../../gates/spec.js";
import { safeText } from "../../base/safe-text.js";
import { FailFast } from "../fail-fast/fail-fast.js";
import { InterimAnalyst } from "./analyst.js";
import type { InterimResult } from "./job.js";
import type { Wakeup } from "../wakeup.js";

/**
 * The verdict so far is worked out every ANALYSE_EVERY_S, and every EARLY_ANALYSE_EVERY_S during the first
 * EARLY_PHASE_S: that is when the early test (stats/sequential.ts) can call a leak, to the second.
 * It is worked out on the series' coarse twins (at most INTERIM_POINTS points per column, series.ts interimView), so
 * that its cost stops growing after the first minutes, and no more often than keeps what it is charged under
 * ANALYSIS_SHARE of one core (EARLY_ANALYSIS_SHARE in the early phase): on 64 processes a verdict on 600 samples cost ~0.5 s, and every
 * 5 s that was 10% of a core. A twin of capacity 240 holds 120–240 points (it halves when full): 120 gave the same
 * verdict as the full series on every recording in fixtures/ at every 10 s and on 42 synthetic 10–30 minute watches,
 * 60 lost a slow noisy leak. The final verdict is worked out on the full series.
 *
 * Past the early phase the share is what the verdicts cost wherever one takes more than ANALYSE_EVERY_S × the share
 * (a tree of more than a few processes): making them cheaper makes them fresher, not lighter. And a verdict costs more
 * than the CPU it is seen to take: the garbage it leaves is collected after it, on V8's helper threads. Measured from
 * outside on 64 small processes (bench g, its threads other than the sampling one, against the same build with no
 * verdicts after the first 30 s), verdicts charged 0.1% and 0.05% of a core took 1.5 and 1.75 times that; so each is
 * charged AFTERMATH times what it was seen to take (its whole process's CPU meanwhile: the sampling thread's ticks in
 * that window count too, as they did when AFTERMATH was measured). At 0.1% they were about a third of all memleak
 * added to its reads there; now a verdict on one process (~2 ms) comes every 8 s, on 9 processes (12–45 ms) every
 * 48–180 s, on 64 (~60 ms) every 4 minutes. The sampling, the live view's numbers and sparklines are as fresh as ever: only the "so far"
 * sentence and --metrics' memleak_verdict wait for it. Under --fail-fast the budget does not apply.
 */
const ANALYSE_EVERY_S = 5;
const EARLY_ANALYSE_EVERY_S = 1;
const EARLY_PHASE_S = 30;
export const INTERIM_POINTS = 240;
const ANALYSIS_SHARE = 0.0005;
/** What a verdict is charged, as a multiple of the CPU it was seen to take (see above). */
export const AFTERMATH = 2;
/**
 * The early phase's share: a verdict on one process (~2 ms) still comes every second, on 9 processes (12–45 ms)
 * every 5–18 s, on 64 (~60 ms) every 24 s. At 3% (before) the early verdicts of a 64-process tree took ~0.9 s of CPU in
 * the first 30 s: memleak's whole first minute was 1.85× its steady state, and 1.45× with no early verdicts at all
 * (BENCHMARKS §g‴). They are charged AFTERMATH times what they were seen to take, as later ones are.
 */
const EARLY_ANALYSIS_SHARE = 0.005;

/**
 * The share of a sampling interval a verdict may hold the sampling thread up for, worked out in line (analyst.ts): at
 * 1 s, 100 ms, which a verdict on 64 idle processes (~15–60 ms) stays under, so that no worker is started for them; at
 * 10 Hz, 10 ms, so that a tree whose verdicts make ticks late gets the worker after its first one.
 */
const IN_LINE_SHARE_OF_INTERVAL = 0.1;

/** How long (ms) a verdict may hold up the sampling thread at this interval (seconds) before the worker takes over. */
function inLineHoldUpMs(interval: number): number {
  return interval * 1000 * IN_LINE_SHARE_OF_INTERVAL;
}

/**
 * Seconds until the next interim verdict, given what the last one cost (seconds). Under --fail-fast the budget does
 * not apply: the user asked to be stopped within seconds of a failed gate, and a verdict that holds the sampling thread
 * up goes to its own thread.
 */
export function nextAnalysisIn(duration: number, lastCost: number, failFast = false): number {
  const early = duration < EARLY_PHASE_S;
  const every = early ? EARLY_ANALYSE_EVERY_S : ANALYSE_EVERY_S;
  return failFast ? every : Math.max(every, (lastCost * AFTERMATH) / (early ? EARLY_ANALYSIS_SHARE : ANALYSIS_SHARE));
}

/** From when on did the verdict so far agree with the final one? */
export function settledAt(history: { t: number; key: string }[], final: string): number | undefined {
  let since: number | undefined;
  for (const h of history) {
    if (h.key === final) since ??= h.t;
    else since = undefined;
  }
  return since;
}

export const verdictKey = (doc: VerdictDocument) =>
  `${doc.verdict.kind}:${doc.verdict.pid ?? doc.verdict.subject.type}`;

/** What InterimVerdicts needs of an analyst: one verdict at a time, each told to onResult. */
export type Analyst = Pick<InterimAnalyst, "busy" | "request" | "close">;
export type MakeAnalyst = (
  onResult: (r: InterimResult, at: number) => void,
  onError: (message: string) => void,
) => Analyst;

export class InterimVerdicts {
  /** The latest verdict so far, for the live view (as facts: it words them its own way). */
  soFar: JudgedFinding | undefined;
  /** The same verdict as its document (every finding), for --metrics. */
  soFarDoc: VerdictDocument | undefined;
  private readonly history: { t: number; key: string }[] = [];
  private readonly failFast: FailFast | undefined;
  private readonly analyst: Analyst;
  private lastAt = 0;
  private lastCost = 0;
  private preparedCost = 0;

  /**
   * @param wakeup stopped with "gate-failed" when --fail-fast fires; once it is stopped, late verdicts are ignored
   * @param say a line for the user (fail-fast stopping the session, interim verdicts failing)
   * @param interval the session's sampling interval (seconds): how long a verdict in line may hold a tick up
   */
  constructor(
    private readonly gates: GateOptions,
    private readonly wakeup: Wakeup,
    private readonly say: (line: string) => void,
    interval: number,
    makeAnalyst: MakeAnalyst = (onResult, onError) => new InterimAnalyst(onResult, onError, inLineHoldUpMs(interval)),
  ) {
    this.failFast = gates.failFast ? new FailFast() : undefined;
    this.analyst = makeAnalyst(
      (r, at) => this.received(r, at),
      (message) =>
        say(
          `memleak: warning: the verdict so far could not be worked out (a bug in memleak; the final verdict is worked out apart): ${safeText(message.split("\n")[0] ?? "")}\n`,
        ),
    );
  }

  /** Called every tick, `elapsed` seconds in: starts a verdict on the series so far when one is due and none is in flight. */
  consider(elapsed: number, set: SeriesSet, input: () => ClassifyInput): void {
    if (
      this.analyst.busy ||
      elapsed - this.lastAt < nextAnalysisIn(set.duration, this.lastCost, this.failFast !== undefined)
    )
      return;
    this.lastAt = elapsed;
    // The coarse view and its packing are the verdict's cost too, paid here on the sampling thread; measured before
    // the request, which works the verdict out at once when it runs in line (no worker), and reports it then.
    const prepared = cpuMark();
    const { packed, transfer } = packSet(interimView(set));
    this.preparedCost = cpuMsSince(prepared) / 1000;
    this.analyst.request({ input: { ...input(), set: packed }, gates: this.gates }, transfer, set.duration);
  }

  /** The final gates: under --fail-fast, the gate that stopped the session stays failed (fail-fast.ts final). */
  finalGates(gates: GateResult[]): GateResult[] {
    return this.failFast ? this.failFast.final(gates) : gates;
  }

  /** Seconds since the first sample from which every verdict so far had the final verdict's kind and subject. */
  settledAt(final: VerdictDocument): number | undefined {
    return settledAt(this.history, verdictKey(final));
  }

  /** Drops a verdict in flight: the final one is worked out apart. */
  close(): Promise<void> {
    return this.analyst.close();
  }

  private received(r: InterimResult, at: number): void {
    // Sampling is over: a verdict still in flight must not fire a gate the final verdict did not fail.
    if (this.wakeup.stopped) return;
    this.soFar = r.verdict;
    this.soFarDoc = r.doc;
    this.history.push({ t: at, key: verdictKey(r.doc) });
    this.lastCost = r.costMs / 1000 + this.preparedCost;
    const failed = this.failFast?.check(at, r.gates);
    if (failed) {
      this.say(
        `memleak: --fail-fast: gate ${failed.name} has failed since ${failed.since.toFixed(0)} s (${safeText(failed.message)}); stopping\n`,
      );
      this.wakeup.stop("gate-failed");
    }
  }
}
