/**
 * A program that turned Python's garbage collector off (gc.disable()): reference counting still frees most objects,
 * but never those in reference cycles, which is a leak's cause by itself and one nothing else memleak reads shows (a
 * helper's program that disabled it and dropped a cycle a request was a leak with the generic advice, the agent's own
 * figures showing 2.6 million allocations since the last collection). Read off the agent's gc.isenabled()
 * (py.gcEnabled).
 */
import type { ProcessSeries } from "../../series/series.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase } from "../phrases.js";

/**
 * The collector must read off at this many of the last reports: the agent's own walks turn it off for their few
 * milliseconds, and a report built in another thread meanwhile (the pytest plugin's) could read it so once.
 */
export const GC_OFF_READINGS = 3;

/** The collector off at the process's last reports, with the allocations since its last collection; else undefined. */
export function collectorOff(ps: ProcessSeries): { count0: number | undefined } | undefined {
  const col = ps.agent["py.gcEnabled"];
  if (!col || col.length < GC_OFF_READINGS || col.ys.slice(-GC_OFF_READINGS).some((y) => y !== 0)) return undefined;
  return { count0: ps.agent["py.gcCount0"]?.ys.at(-1) };
}

/** Says so on the process's finding, whatever its kind; on a leak, with what to do first. */
export function noteCollectorOff(f: JudgedFinding, ps: ProcessSeries): void {
  const off = collectorOff(ps);
  if (!off) return;
  f.evidence.gcDisabled = true;
  const facts = { pid: ps.pid, ...(off.count0 !== undefined && { count0: off.count0 }) };
  f.caveats.push(phrase("gc.off", facts));
  if (f.kind === "leak") f.advice.unshift(phrase("advice.gc-off", facts));
}
