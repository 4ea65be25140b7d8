/** Numbers as sentences and reports show them: a growth rate, a moment in the run. */
import { formatBytes } from "../../base/units.js";
import type { Rate, SamplingFacts } from "../../analysis/types.js";
import type { LeakPart } from "../../analysis/phrases.js";
import { agentReasonText } from "../../analysis/agent-placement.js";

/** A growth rate as sentences say it: per second or per minute, whichever reads best, and % per hour. */
export function formatRate(rate: Rate | undefined): string {
  if (!rate) return "–";
  const perMin = rate.bytesPerSecond * 60;
  const abs = Math.abs(rate.bytesPerSecond);
  const text =
    abs >= 2 ** 20 / 10
      ? `${formatBytes(rate.bytesPerSecond)}/s`
      : perMin >= 2 ** 20 / 10 || perMin <= -(2 ** 20) / 10
        ? `${formatBytes(perMin)}/min`
        : `${formatBytes(perMin * 60)}/h`;
  const pct = rate.percentPerHour;
  // Past 1000%/h the percentage says nothing more than "fast" (a process that started near zero).
  const pctText =
    Math.abs(pct) >= 1000
      ? `${pct > 0 ? ">+" : "<-"}1000%/h`
      : `${pct >= 0 ? "+" : ""}${pct.toFixed(Math.abs(pct) < 10 ? 1 : 0)}%/h`;
  return `${text} (${pctText})`;
}

const seconds = (s: number) => `${s < 10 ? s.toFixed(1) : s.toFixed(0)} s`;

/**
 * How the readings were taken, for the end of a report: ticks (and how many ran late), how old PSS/USS were, and what
 * memleak itself took. A session's document has these facts; a re-analyzed recording does not.
 */
export function samplingText(s: SamplingFacts): string {
  const parts = [`${s.ticks} ticks${s.lateTicks > 0 ? `, ${s.lateTicks} late` : ", none late"}`];
  // A short run reads PSS/USS at every tick (its first 30 s are read as often as the budget allows).
  const age = s.pssAge;
  parts.push(
    !age
      ? "no PSS/USS read (smaps_rollup refused or never due)"
      : age.max === 0
        ? "PSS/USS read at every tick"
        : `PSS/USS at most ${seconds(age.max)} old (median ${seconds(age.median)}; --pss-every ${seconds(s.pssEvery)})`,
  );
  const pct = s.cpuShare * 100;
  parts.push(`memleak itself ${pct < 0.1 ? "<0.1" : pct.toFixed(pct < 10 ? 1 : 0)}% of a core`);
  // Only where watch left some Python processes to /proc: a tree within --max-agents has an agent in each, as always.
  const a = s.agents;
  if (a && a.readFromProc > 0) parts.push(agentsText(a));
  return `sampling: ${parts.join("; ")}`;
}

/** "agents in PID 812 (grows), PID 800 (watched), PID 813 (for 64 siblings); 61 Python processes read from /proc". */
export function agentsText(a: NonNullable<SamplingFacts["agents"]>): string {
  const where = a.in.map((r) => `PID ${r.pid} (${agentReasonText(r.reason, r.siblings)})`).join(", ");
  const proc = `${a.readFromProc} Python process${a.readFromProc === 1 ? "" : "es"} read from /proc (--max-agents ${a.max})`;
  return a.in.length > 0 ? `agents in ${where}; ${proc}` : proc;
}

/**
 * "PID 101 grows", "PIDs 100 and 101 grow", "PIDs 100, 101 and 102 grow": the processes a growth is attributed to, from
 * the comma-separated pids the evidence keeps (explainedByPids), with the verb agreeing (issue 48: "PID 15702, 15705 grows").
 */
export function pidsThatGrow(pids: string): string {
  const list = pids
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (list.length <= 1) return `PID ${list[0] ?? pids} grows`;
  return `PIDs ${list.slice(0, -1).join(", ")} and ${list[list.length - 1]} grow`;
}

/**
 * "because", or "mostly because" / "partly because" where the processes' leaks are a part of the growth (half or more,
 * less): the summary (reconcile.attributed) and its advice say it alike.
 */
export function becauseOf(part: LeakPart | undefined): string {
  if (part === undefined) return "because";
  return part.grown >= part.growth / 2 ? "mostly because" : "partly because";
}
