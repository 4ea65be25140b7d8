/**
 * memleak's own footprint in a watched process. `watch` injects the agent into programs that are already running:
 * the interpreter imports the agent's modules, starts its thread, and in forked workers the code that runs copies
 * pages shared with the parent. Measured on the development machine: +1.9–2.3 MiB of RssAnon in a plain Python
 * process (the agent, its imports, its thread's arena), and up to ~5 MiB of Σ Pss_Anon per forked worker (copied
 * pages). That growth is memleak's doing; a rule that saw it would call the program's memory a plateau, or a step.
 * Under `run` the agent loads at start-up, inside the start-up the rules already leave out.
 */
import { Column } from "../../series/column.js";
import { median } from "../stats/quantiles.js";
import { stoppedAt, stoppedGrowth, type Assessment } from "../assess.js";
import type { ProcessSeries } from "../../series/series.js";
import type { AgentResults } from "../context.js";
import type { MetricName } from "../types.js";
import { phrase, type Phrase } from "../phrases.js";

/**
 * The agent arrived mid-watch (injected) when its first report came this long after the process was first seen; an
 * agent whose injection memleak recorded (ProcessSeries.injectionStarted) was injected whenever it reported.
 */
export const INJECTED_AFTER_SECONDS = 1;
/**
 * A level change that ends within this long of an injection is the injection's: the first reports, the first
 * census walks and the thread's first malloc arena land over the first seconds (levelled from 5 s after in the
 * recordings of fixtures/scripts/forked_holder.py under watch). On a heap of many containers each of the first census
 * walks (5 s apart at the least) leaves some of its transient lists in the arenas between the program's objects: a
 * steady app with 30,000 tables and a filled lru_cache rose 0.6-0.9 MiB at each of its first four walks, levelling
 * 19 s after the agent's first report (issue 46: such a rise was a leak at 90% in a 30 s watch). 25 s covers four.
 */
export const OWN_SETTLE_SECONDS = 25;
/**
 * When a recording does not say when the injection began (written before memleak recorded it), the agent's memory is
 * taken to arrive up to this long before its first report: its imports run first (the jump came 0.3 s before the
 * first report on an idle machine, in forked_holder.py under watch; under load, imports take longer).
 */
export const OWN_LEAD_SECONDS = 2;
/** At most this much growth per injected process is taken for memleak's own (measured: up to ~5 MiB, see above). */
export const OWN_FOOTPRINT_BYTES = 8 * 2 ** 20;

/** An injection: from when memleak began it to the agent's first report (seconds). */
export interface Injection {
  from: number;
  reported: number;
  /** A look at what a forked worker copied (session/cow-ask.ts), not the agent's arrival. */
  look?: boolean;
}

/** How long after a look began its memory counts as its own: the look takes 10-100 ms, its module loads with it. */
export const LOOK_SECONDS = 1;

/**
 * The first look at what a forked worker copied, as an injection: loading the look's module and its walk make pages
 * private to the worker (2-3 MiB: a pool worker's anon rose 2.25 MiB at its look, and it read as a plateau).
 * Undefined when it was not looked at, or the series' start is unknown.
 */
function lookedAt(
  ps: ProcessSeries,
  agentResults: AgentResults | undefined,
  t0: number | undefined,
): Injection | undefined {
  const r = agentResults?.copied?.get(ps.pid);
  if (!r || t0 === undefined) return undefined;
  const began = ((r.firstT ?? r.t) * 1000 - t0) / 1000;
  // A plateau's level is dated within a block of readings: OWN_LEAD_SECONDS before the look, as for an injection
  // dated by its first report (a pool worker looked at 11.0 s, its level dated 10.5 s).
  return { from: began - OWN_LEAD_SECONDS, reported: began + LOOK_SECONDS, look: true };
}

/**
 * An injection whose first report came more than this long after memleak began it is not dated by its start: the
 * blocked-thread path can leave the agent pending for minutes ("it will report if it gets to it"), and a window that
 * long would take the program's own growth for memleak's.
 */
export const OWN_MAX_INJECTION_SECONDS = 20;

/**
 * When the agent was injected into this process, if it arrived mid-watch.
 * @param launched memleak launched the command (`run`, `pytest`): every agent loaded with its interpreter, so none
 *        was injected, however late its first report. A pyenv shim's bash runs for seconds before python on a busy
 *        machine (3-4 s beside busy loops): its first report then came 5 s after the process was born, and the
 *        interpreter's own start-up (a 20 MiB buffer) was taken for 8 MiB of memleak's, subtracted from the cgroup
 *        from then on, which made a steady script's cgroup a plateau (ci.test's steady smoke step, 3 runs in 6).
 */
export function injectedAt(ps: ProcessSeries, launched = false): Injection | undefined {
  if (launched) return undefined;
  // The first report as it arrived (series.ts), not the first point of a column: a compacted column's first point is
  // the mean of the first few, and would make an agent there from the start look injected.
  const first = ps.firstReport;
  if (first === undefined) return undefined;
  const started = ps.injectionStarted;
  const dated = started !== undefined && started <= first && first - started <= OWN_MAX_INJECTION_SECONDS;
  // When memleak recorded that it began the injection, the agent was injected, however soon it reported. Under watch
  // every process there at the start is first seen at 0 s: lldb put the watched process's first report at 0.75-1 s
  // in 7 of 19 watches of forked_holder.py, its agent then left out of the cgroup's; a debugger a little faster puts
  // the first worker's there too, and the caveat said "added 2.69 MiB to the process" (run.test, a CI run's first
  // try). The first second is the test only for an agent whose injection is not on record.
  if (!dated && first - ps.firstSeen <= INJECTED_AFTER_SECONDS) return undefined;
  return { from: dated ? started : first - OWN_LEAD_SECONDS, reported: first };
}

/**
 * Whether an assessment's plateau or step is memleak's own arrival: it levelled off (or jumped) between the start
 * of an injection and OWN_SETTLE_SECONDS after the agent's first report, and grew by no more than OWN_FOOTPRINT_BYTES
 * per injected process. Then it is reported as memleak's footprint, and the series is judged as flat.
 */
export function ownStep(a: Assessment, injections: readonly Injection[]): number | undefined {
  if (injections.length === 0 || (a.shape !== "plateau" && a.shape !== "step")) return undefined;
  const at = stoppedAt(a);
  if (at === undefined) return undefined;
  // Only the injections that ended just before count, each for its allowance: workers injected long ago do not
  // stretch the allowance for a later step.
  const near = injections.filter((i) => at >= i.from && at <= i.reported + OWN_SETTLE_SECONDS).length;
  const growth = stoppedGrowth(a);
  return near > 0 && growth <= OWN_FOOTPRINT_BYTES * near ? growth : undefined;
}

/**
 * The assessment with memleak's own arrival taken out: a plateau or step that ownStep() attributes to an injection
 * becomes "flat", and the caveat says how much memleak added and when.
 */
export function withoutOwnStep(a: Assessment, injections: readonly Injection[]): { a: Assessment; caveat?: Phrase } {
  const own = ownStep(a, injections);
  if (own === undefined) return { a };
  return {
    a: { ...a, shape: "flat", own },
    caveat: ownStepPhrase(
      injections.map((i) => ({ at: i.reported, look: i.look })),
      own,
    ),
  };
}

/** The caveat for memleak's own arrivals (each at its time, an injection or a look), `added` bytes in all. */
export function ownStepPhrase(arrivals: readonly { at: number; look?: boolean | undefined }[], added: number): Phrase {
  const looks = arrivals.filter((r) => r.look).map((r) => r.at);
  return phrase("own.step", {
    at: arrivals.filter((r) => !r.look).map((r) => r.at),
    added,
    ...(looks.length > 0 && { looks }),
  });
}

/** The agent's memory is read this long either side of its arrival: before the injection, and after the first report. */
export const OWN_ARRIVAL_READ_SECONDS = 2;

/**
 * What memleak's agent added to an injected process, read off its anonymous memory: the median over the seconds
 * after the agent's first report, less the median over the seconds before the injection began (at least three points
 * either side: a coarse view's points are seconds apart), or of `metric` when given (for the tree's Σ Pss_Anon, USS:
 * a forked worker's private pages also grow by the pages the agent's first collections copy from its parent, which
 * RssAnon does not show, and Σ Pss_Anon grows by one page for each). Read directly, not from the process's own assessment: a
 * step at the very end of a watch, or one the shape tests do not call a step, is still charged to the cgroup. At most
 * OWN_FOOTPRINT_BYTES, never negative; counted only while the process lives (`until`). None when memleak launched
 * the command (`launched`, see injectedAt).
 */
export function ownArrival(ps: ProcessSeries, launched = false, metric?: MetricName): OwnArrival | undefined {
  const i = injectedAt(ps, launched);
  return i && arrivalOf(ps, i, metric);
}

/**
 * Everything memleak added to one process, each read as ownArrival reads the agent's: the agent injected (`watch`),
 * and the first look at what a forked worker copied (`run` and `watch`: the look's module and walk, 2-5 MiB of a
 * pool worker's USS).
 */
export function ownArrivals(ps: ProcessSeries, ctx: OwnContext, metric?: MetricName): OwnArrival[] {
  return ownInjections(ps, ctx).flatMap((i) => arrivalOf(ps, i, metric) ?? []);
}

/** What own-footprint.ts reads of the analysis' Context. */
type OwnContext = { launched?: boolean | undefined; agentResults?: AgentResults | undefined; t0?: number | undefined };

/**
 * When memleak arrived in one process: its agent injected (`watch`), and its first look at what a forked worker copied
 * (`run` and `watch`). The process's, the tree's and the cgroup's judgements each take these out.
 */
export function ownInjections(ps: ProcessSeries, ctx: OwnContext): Injection[] {
  return [injectedAt(ps, ctx.launched), lookedAt(ps, ctx.agentResults, ctx.t0)].filter(
    (i): i is Injection => i !== undefined,
  );
}

function arrivalOf(ps: ProcessSeries, i: Injection, metric: MetricName | undefined): OwnArrival | undefined {
  const col = (metric && ps.metrics[metric]) ?? ps.metrics.anon ?? ps.metrics.rss;
  if (!col || col.length < 2) return undefined;
  const spacing = (col.xs[col.length - 1]! - col.xs[0]!) / (col.length - 1);
  const reach = Math.max(OWN_ARRIVAL_READ_SECONDS, 3 * spacing);
  const between = (lo: number, hi: number) => median(col.ys.filter((_, k) => col.xs[k]! >= lo && col.xs[k]! <= hi));
  const before = between(i.from - reach, i.from);
  const after = between(i.reported, i.reported + reach);
  if (before === undefined || after === undefined) return undefined;
  const bytes = Math.min(Math.max(after - before, 0), OWN_FOOTPRINT_BYTES);
  return bytes > 0
    ? { from: i.from, at: i.reported, until: ps.lastSeen, bytes, pid: ps.pid, ...(i.look && { look: true }) }
    : undefined;
}

/**
 * What memleak's agent added to one process: `bytes`, arriving between `from` and `at` (seconds), gone with the
 * process after `until` (its last sample).
 */
export interface OwnArrival {
  from: number;
  at: number;
  until: number;
  bytes: number;
  /** A look at what a forked worker copied, not the agent's arrival. */
  look?: boolean;
  /** The process it was added to (one may have both an agent injected and a look). */
  pid: number;
}

/**
 * A cgroup's usage with memleak's own arrivals taken out: each injected process's footprint is subtracted from when its
 * injection began, ramping up to the agent's first report (a ramp, not a jump: the imports land over that time).
 * Agents injected one after another into a tree's processes make a staircase that the trend test reads as growth;
 * the cgroup charges every one of them, and none of it is the program's.
 */
export function withoutOwnArrivals(col: Column, arrivals: readonly OwnArrival[]): Column {
  const out = new Column(Math.max(col.length, 1) * 2);
  // An exited process's agent left the cgroup with it: a pool that recycles its workers must not pile up subtractions.
  const share = (t: number, r: OwnArrival) =>
    t > r.until ? 0 : t >= r.at ? 1 : t <= r.from ? 0 : (t - r.from) / Math.max(r.at - r.from, 1e-9);
  for (let i = 0; i < col.length; i++) {
    const t = col.xs[i]!;
    out.push(t, col.ys[i]! - arrivals.reduce((sum, r) => sum + r.bytes * share(t, r), 0));
  }
  return out;
}
