/**
 * memleak's own footprint in a watched process. `watch` injects the agent into programs that are already running:
 * the interpreter imports the agent's modules, starts its thread, and in forked workers the code that runs copies
 * pages shared with the parent. Measured on the development machine: +1.9–2.3 MiB of RssAnon in a plain Python
 * process (the agent, its imports, its thread's arena), and up to ~5 MiB of Σ Pss_Anon per forked worker (copied
 * pages). That growth is memleak's doing; a rule that saw it would call the program's memory a plateau, or a step.
 * Under `run` the agent loads at start-up, inside the start-up the rules already leave out.
 */
import { formatBytes } from "../../units.js";
import { stoppedAt, stoppedGrowth, type Assessment } from "../assess.js";
import type { ProcessSeries } from "../series.js";

/** The agent arrived mid-watch (injected) when its first report came this long after the process was first seen. */
export const INJECTED_AFTER_SECONDS = 1;
/**
 * A level change that ends within this long of an injection is the injection's: the first reports, the first
 * census and the thread's first malloc arena land over the first seconds (levelled from 5 s after in the
 * recordings of fixtures/scripts/forked_holder.py under watch).
 */
export const OWN_SETTLE_SECONDS = 10;
/** At most this much growth per injected process is taken for memleak's own (measured: up to ~5 MiB, see above). */
export const OWN_FOOTPRINT_BYTES = 8 * 2 ** 20;

/** When the agent was injected into this process (its first report, seconds), if it arrived mid-watch. */
export function injectedAt(ps: ProcessSeries): number | undefined {
  let first = Infinity;
  for (const col of Object.values(ps.agent)) if (col.xs.length > 0) first = Math.min(first, col.xs[0]!);
  return Number.isFinite(first) && first - ps.firstSeen > INJECTED_AFTER_SECONDS ? first : undefined;
}

/**
 * Whether an assessment's plateau or step is memleak's own arrival: it levelled off within OWN_SETTLE_SECONDS of an
 * injection, and grew by no more than OWN_FOOTPRINT_BYTES per injected process. Then it is reported as memleak's
 * footprint, and the series is judged as flat.
 */
export function ownStep(a: Assessment, injections: readonly number[]): number | undefined {
  if (injections.length === 0 || (a.shape !== "plateau" && a.shape !== "step")) return undefined;
  const at = stoppedAt(a);
  if (at === undefined) return undefined;
  // Only the injections that ended just before count, each for its allowance: workers injected long ago do not
  // stretch the allowance for a later step.
  const near = injections.filter((t) => at >= t && at <= t + OWN_SETTLE_SECONDS).length;
  const growth = stoppedGrowth(a);
  return near > 0 && growth <= OWN_FOOTPRINT_BYTES * near ? growth : undefined;
}

/**
 * The assessment with memleak's own arrival taken out: a plateau or step that ownStep() attributes to an injection
 * becomes "flat", and the caveat says how much memleak added and when.
 */
export function withoutOwnStep(a: Assessment, injections: readonly number[]): { a: Assessment; caveat?: string } {
  const own = ownStep(a, injections);
  if (own === undefined) return { a };
  const when = injections.map((t) => `${t.toFixed(0)} s`).join(", ");
  return {
    a: { ...a, shape: "flat" },
    caveat: `memleak's agent, injected at ${when}, added ${formatBytes(own)} (its modules and thread${injections.length > 1 ? ", and pages forked workers copied" : ""}): not counted as growth`,
  };
}
