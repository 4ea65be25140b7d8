/**
 * The sampling loop behind `run` and `watch`: tick the sampler every interval, record each sample as it comes, keep
 * the live view and the verdict so far up to date, and stop when the target exits, when --duration has passed, or
 * when asked to. Then classify, check the gates, and append the verdict to the recording.
 */
import { classify, type ClassifyInput } from "../analysis/classify.js";
import { interimView, SeriesBuilder } from "../analysis/series.js";
import { packSet } from "../analysis/packed-set.js";
import { InterimAnalyst } from "./interim-analyst.js";
import { DEFAULT_CAPACITY } from "../analysis/column.js";
import type { SamplingFacts, VerdictDocument } from "../analysis/types.js";
import type { SeriesSet } from "../analysis/series.js";
import { evaluateGates } from "../gates.js";
import type { GateOptions } from "../gate-spec.js";
import { FailFast } from "./fail-fast.js";
import { RecordingWriter, RECORDING_SCHEMA, type RecordingHeader } from "../recording.js";
import { renderLive, renderProgress, type LiveState } from "../report/live.js";
import { safeText } from "../safe-text.js";
import type { LiveRegion } from "../report/live-region.js";
import { Sampler } from "../sampler.js";
import { DEFAULT_PSS_EVERY } from "../sampling-defaults.js";
import { processKey } from "../process-key.js";
import type { Sample } from "../sample.js";
import type { CgroupLocation } from "../system/cgroup-locate.js";
import type { HostFs } from "../system/host-fs.js";
import { shortCommand } from "../command-text.js";
import { VERSION } from "../version.js";
import { cgroupMembers } from "../system/cgroup-members.js";
import { describeMachine } from "../system/machine.js";
import type { AgentChannel } from "../agent/channel.js";
import type { Attacher } from "../agent/attach/attacher.js";
import { readBasic } from "../system/read-process.js";
import type { CommandIO } from "./io.js";

export interface SessionOptions {
  /** Seconds between samples. */
  interval: number;
  /** Stop after this many seconds. */
  duration?: number | undefined;
  record?: string | undefined;
  /** Replace an existing --record file; otherwise it is created exclusively (two runs cannot write one file). */
  overwrite?: boolean | undefined;
  json: boolean;
  /** Seconds of warm-up to leave out; undefined = detect. */
  warmup?: number | undefined;
  gates: GateOptions;
  smapsBudget?: number | undefined;
  pssEvery?: number | undefined;
  html?: string | undefined;
}

export interface SessionTarget {
  mode: "run" | "watch";
  rootPid: number;
  command?: string[] | undefined;
  cgroup: CgroupLocation | undefined;
  cgroupInfo: VerdictDocument["target"]["cgroup"];
  /** The in-process agent's channel: `run` loads the agent at start-up, `watch` injects it. */
  agent?: AgentChannel | undefined;
  /** `watch`: loads the agent into each Python process of the tree as it is first seen. */
  attacher?: Attacher | undefined;
}

export type StopReason = "exited" | "duration" | "interrupted" | "gate-failed";

export interface SessionResult {
  doc: VerdictDocument;
  stopReason: StopReason;
  set: SeriesSet;
  commands: Map<number, string[]>;
  /** Seconds since the first sample from which every interim verdict already had the final kind and subject. */
  settledAt: number | undefined;
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

export const verdictKey = (doc: VerdictDocument) => `${doc.verdict.kind}:${doc.verdict.pid ?? doc.verdict.subject.type}`;

/** Lets the loop sleep until the next tick, or wake early when told to stop or when the target exits. */
export class Wakeup {
  private wake: (() => void) | undefined;
  private readonly listeners: ((reason: StopReason) => void)[] = [];
  stopped: StopReason | undefined;

  stop(reason: StopReason): void {
    if (this.stopped === undefined) {
      this.stopped = reason;
      for (const l of this.listeners) l(reason);
    }
    this.wake?.();
  }

  /** Told once, when the first stop reason is given (run stops its command when a gate fails under --fail-fast). */
  onStop(listener: (reason: StopReason) => void): void {
    this.listeners.push(listener);
  }

  sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }
}

const PROGRESS_EVERY_S = 10;
/**
 * The verdict so far is worked out every ANALYSE_EVERY_S, and every EARLY_ANALYSE_EVERY_S during the first
 * EARLY_PHASE_S: that is when the early test (stats/sequential.ts) can call a leak, to the second.
 * It is worked out on the series' coarse twins (at most INTERIM_POINTS points per column, series.ts interimView), so
 * that its cost stops growing after the first minutes, and no more often than keeps its CPU under ANALYSIS_SHARE of
 * one core (EARLY_ANALYSIS_SHARE in the early phase): on 64 processes a verdict on 600 samples cost ~0.5 s, and every
 * 5 s that was 10% of a core. A twin of capacity 240 holds 120–240 points (it halves when full): 120 gave the same
 * verdict as the full series on every recording in fixtures/ at every 10 s and on 42 synthetic 10–30 minute watches,
 * 60 lost a slow noisy leak. A verdict on 9 processes then costs 12–45 ms, every 12–45 s at 0.1% of a core. The final
 * verdict is worked out on the full series.
 */
const ANALYSE_EVERY_S = 5;
const EARLY_ANALYSE_EVERY_S = 1;
const EARLY_PHASE_S = 30;
export const INTERIM_POINTS = 240;
export const ANALYSIS_SHARE = 0.001;
export const EARLY_ANALYSIS_SHARE = 0.03;

/**
 * Seconds until the next interim verdict, given what the last one cost (seconds). Under --fail-fast the budget does
 * not apply: the user asked to be stopped within seconds of a failed gate, and the verdict runs on its own thread.
 */
export function nextAnalysisIn(duration: number, lastCost: number, failFast = false): number {
  const early = duration < EARLY_PHASE_S;
  const every = early ? EARLY_ANALYSE_EVERY_S : ANALYSE_EVERY_S;
  return failFast ? every : Math.max(every, lastCost / (early ? EARLY_ANALYSIS_SHARE : ANALYSIS_SHARE));
}

function samplingFacts(sampler: Sampler, o: SessionOptions, lateTicks: number, cpuShare: number): SamplingFacts {
  const median = sampler.totals.pssAge.median();
  const max = sampler.totals.pssAge.max();
  return {
    interval: o.interval,
    ticks: sampler.totals.ticks,
    lateTicks,
    pssEvery: o.pssEvery ?? DEFAULT_PSS_EVERY,
    ...(median !== undefined && max !== undefined && { pssAge: { median: round(median, 1), max: round(max, 1) } }),
    cpuShare: round(cpuShare, 5),
  };
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

/** CPU seconds this process has spent (user + system). */
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function header(target: SessionTarget, o: SessionOptions): Promise<RecordingHeader> {
  const h: RecordingHeader = {
    type: "header",
    schema: RECORDING_SCHEMA,
    startedAt: Date.now(),
    interval: o.interval,
    target: { pid: target.rootPid, mode: target.mode, ...(target.command && { command: target.command }) },
    machine: await describeMachine(),
    memleakVersion: VERSION,
  };
  const info = target.cgroupInfo;
  if (info) h.cgroup = info;
  return h;
}

/** Processes in the cgroup (descendant cgroups included) that are neither in the sampled tree nor memleak. */
function outsiders(fs: HostFs, dir: string, sample: Sample): number[] {
  const tree = new Set(sample.processes.map((p) => p.pid));
  return cgroupMembers(fs, dir).filter((pid) => !tree.has(pid) && pid !== process.pid);
}

/** Resident anon memory of each readable process, keyed by pid:starttime so a reused pid is not compared. */
function anonOf(fs: HostFs, pids: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    const r = readBasic(fs, pid);
    if (r.ok && r.sample.anon !== undefined) out.set(processKey(r.sample), r.sample.anon);
  }
  return out;
}

/** How much the outsiders present at both ends grew; undefined when none could be read twice. */
function anonGrowth(first: Map<string, number>, last: Map<string, number>): number | undefined {
  let sum: number | undefined;
  for (const [key, end] of last) {
    const start = first.get(key);
    if (start !== undefined) sum = (sum ?? 0) + end - start;
  }
  return sum;
}

export async function runSession(
  target: SessionTarget,
  o: SessionOptions,
  io: CommandIO,
  fs: HostFs,
  wakeup: Wakeup,
  region: LiveRegion | undefined,
  /** Called once sampling has stopped, before the verdict: run waits here for the command's exit status. */
  afterSampling: () => Promise<Partial<VerdictDocument["target"]>> = async () => ({}),
): Promise<SessionResult> {
  const sampler = new Sampler({ fs, rootPid: target.rootPid, cgroup: target.cgroup, smapsBudget: o.smapsBudget, pssEvery: o.pssEvery });
  const cpuAtStart = cpuSeconds();
  let lateTicks = 0;
  const builder = new SeriesBuilder(DEFAULT_CAPACITY, INTERIM_POINTS);
  /** A line for the user on stderr, above the live view when there is one (a raw write would be drawn over). */
  const say = (line: string) => (region ? region.passthrough("stderr", line) : io.stderr(line));
  const writer = o.record
    ? new RecordingWriter(o.record, { exclusive: !o.overwrite }, (why) => say(`memleak: warning: ${why}; sampling goes on, and the verdict and gates will be given without it\n`))
    : undefined;
  // Describing the machine takes ~100 ms: it runs while the first sample is taken, so the start is not missed.
  let pendingHeader: Promise<RecordingHeader> | undefined = writer ? header(target, o) : undefined;
  const commands = () => new Map([...sampler.totals.seen.values()].map((p) => [p.pid, p.cmdline ?? [p.comm]]));
  /** Short command names of the processes in this sample: all the live view shows. */
  const liveNames = (s: Sample) =>
    new Map(
      s.processes.map((p) => {
        const seen = sampler.totals.seen.get(processKey(p));
        return [p.pid, shortCommand({ cmdline: seen?.cmdline ?? [p.comm], comm: "" })] as const;
      }),
    );
  const commandText = target.command ? shortCommand({ cmdline: target.command, comm: "" }) : `PID ${target.rootPid}`;
  const started = Date.now();
  let latest: Sample | undefined;
  let soFar: VerdictDocument | undefined;
  let lastAnalysis = 0;
  let lastAnalysisCost = 0;
  let preparedCost = 0;
  let lastProgress = 0;
  const history: { t: number; key: string }[] = [];
  const failFast = o.gates.failFast ? new FailFast() : undefined;
  /** Processes whose smaps_rollup was refused, said once each: without it, PSS and USS are missing, silently. */
  const deniedSaid = new Set<number>();
  const sayDenied = () => {
    const fresh = [...sampler.totals.smapsDenied].filter((pid) => !deniedSaid.has(pid));
    if (fresh.length === 0) return;
    for (const pid of fresh) deniedSaid.add(pid);
    say(`memleak: warning: PSS and USS unreadable for PID ${fresh.join(", ")}: /proc/PID/smaps_rollup needs the process's uid or CAP_SYS_PTRACE (run as root or with sudo); judged on RSS and anonymous memory\n`);
  };
  /** key → comm and command line last recorded, so an exec (new comm or command line) is recorded again. */
  const announced = new Map<string, string>();
  /** Processes in the cgroup that are not in the watched tree, at the first and the last tick, and their growth. */
  let others: number[] = [];
  let othersAnonAtStart = new Map<string, number>();
  let othersAnonGrowth: number | undefined;
  /** Each injection's outcome goes into the recording as it is known, so `analyze` can say what the agent missed. */
  const recordAttaches = () => {
    for (const r of target.attacher?.takeDecided() ?? []) {
      writer?.write({ type: "event", t: Date.now(), event: "attach", detail: { ...r } });
      if (r.startedAt !== undefined) builder.addInjection(r.pid, r.startedAt);
    }
  };
  const classifyInput = (set: SeriesSet): ClassifyInput => ({
    agentResults: target.agent ? { traces: target.agent.traces, trims: target.agent.trims } : undefined,
    agentMissing: target.attacher?.missing(),
    set,
    options: { warmup: o.warmup, command: target.command },
    commands: commands(),
    cgroup: target.cgroup ? { path: target.cgroup.path, version: target.cgroup.version, others, othersAnonGrowth } : undefined,
    target: { pid: target.rootPid, ...(target.command && { command: target.command }) },
  });
  // Interim verdicts are worked out on a worker thread (interim-analyst.ts); each says when its data ran to.
  const analyst = new InterimAnalyst((r, at) => {
    // Sampling is over: a verdict still in flight must not fire a gate the final verdict did not fail.
    if (wakeup.stopped) return;
    soFar = r.doc;
    history.push({ t: at, key: verdictKey(r.doc) });
    lastAnalysisCost = r.costMs / 1000 + preparedCost;
    const failed = failFast?.check(at, r.gates);
    if (failed) {
      say(`memleak: --fail-fast: gate ${failed.name} has failed since ${failed.since.toFixed(0)} s (${safeText(failed.message)}); stopping\n`);
      wakeup.stop("gate-failed");
    }
  }, (message) => say(`memleak: warning: the verdict so far could not be worked out (a bug in memleak; the final verdict is worked out apart): ${safeText(message.split("\n")[0] ?? "")}\n`));

  try {
    for (let tick = 0; ; tick++) {
      if (wakeup.stopped) break;
      const late = Date.now() - (started + tick * o.interval * 1000) >= (o.interval * 1000) / 2;
      const sample = sampler.tick();
      if (!sample) {
        wakeup.stop("exited");
        break;
      }
      if (late) lateTicks++;
      const agentData = target.agent?.snapshot(sample.processes.map((p) => p.pid));
      if (agentData) sample.agent = agentData;
      latest = sample;
      builder.add(sample);
      sayDenied();
      target.attacher?.consider(sample.processes);
      if (tick === 0 && target.cgroup) {
        others = outsiders(fs, target.cgroup.dir, sample);
        othersAnonAtStart = anonOf(fs, others);
      }
      if (writer && pendingHeader) {
        writer.write(await pendingHeader);
        pendingHeader = undefined;
      }
      recordAttaches();
      if (writer) {
        // A process's command line is recorded when it first appears (and again if it exec'd), not in every sample.
        // Only this sample's processes can be new or have exec'd, so only they are looked at.
        for (const sp of sample.processes) {
          const key = processKey(sp);
          const p = sampler.totals.seen.get(key);
          if (!p) continue;
          const id = `${p.comm}\0${String(p.cmdline)}`;
          if (announced.get(key) === id) continue;
          announced.set(key, id);
          writer.write({ type: "event", t: p.firstSeen, event: "process-start", detail: { pid: p.pid, ppid: p.ppid, comm: p.comm, ...(p.cmdline && { cmdline: p.cmdline }) } });
        }
        writer.write({ type: "sample", ...sample });
      }
      const elapsed = (Date.now() - started) / 1000;
      if (!analyst.busy && elapsed - lastAnalysis >= nextAnalysisIn(builder.set.duration, lastAnalysisCost, failFast !== undefined)) {
        lastAnalysis = elapsed;
        const prepared = process.cpuUsage();
        const { packed, transfer } = packSet(interimView(builder.set));
        analyst.request({ input: { ...classifyInput(builder.set), set: packed }, gates: o.gates }, transfer, builder.set.duration);
        // The coarse view and its packing are the verdict's cost too, paid here on the sampling thread.
        const spent = process.cpuUsage(prepared);
        preparedCost = (spent.user + spent.system) / 1e6;
      }
      // The view is built only when it is drawn: every tick on a terminal, every PROGRESS_EVERY_S in a log.
      const progressDue = !region && elapsed - lastProgress >= PROGRESS_EVERY_S;
      if (region || progressDue) {
        const state: LiveState = { mode: target.mode, rootPid: target.rootPid, command: commandText, elapsed, set: builder.set, latest, soFar, commands: liveNames(sample), pssAge: sampler.totals.pssAgeNow };
        if (region) region.update(renderLive(state, io.color, io.columns));
        else {
          io.stderr(renderProgress(state) + "\n");
          lastProgress = elapsed;
        }
      }
      if (o.duration !== undefined && elapsed >= o.duration) {
        wakeup.stop("duration");
        break;
      }
      // Ticks are scheduled from the start time, so a slow tick does not push every later one back.
      await wakeup.sleep(started + (tick + 1) * o.interval * 1000 - Date.now());
    }
    region?.clear();
    await analyst.close();
    // Only processes there at the first and at the last tick count: a short-lived helper (pyenv's) is noise.
    if (target.cgroup && latest && others.length > 0) {
      const still = new Set(outsiders(fs, target.cgroup.dir, latest));
      others = others.filter((pid) => still.has(pid));
      othersAnonGrowth = anonGrowth(othersAnonAtStart, anonOf(fs, others));
      writer?.write({ type: "event", t: Date.now(), event: "cgroup-outsiders", detail: { pids: others, ...(othersAnonGrowth !== undefined && { anonGrowth: othersAnonGrowth }) } });
    }
    if (target.attacher) {
      // An injection in flight is finished (gdb never stays attached); queued ones are dropped.
      await target.attacher.stop(20_000);
      recordAttaches();
    }
    const extra = await afterSampling();
    if (target.agent) {
      // Trace and trim results arrive as the interpreters exit; record them for `analyze`.
      await target.agent.drain(1000);
      for (const m of [...target.agent.traces.values(), ...target.agent.trims.values()]) {
        writer?.write({ type: "event", t: m.t * 1000, event: `agent-${m.type}`, detail: { ...m } });
      }
      const lastWords = latest && target.agent.unsampled(latest.processes.map((p) => p.pid));
      if (lastWords) {
        const t = Date.now();
        builder.addLastWords(t, lastWords);
        writer?.write({ type: "event", t, event: "agent-last-words", detail: lastWords });
      }
    }
    const doc = classify(classifyInput(builder.set));
    doc.target = { ...doc.target, stopReason: wakeup.stopped ?? "exited", ...(target.cgroupInfo && { cgroup: target.cgroupInfo }), ...extra };
    const gates = failFast ? failFast.final(evaluateGates(doc, builder.set, o.gates)) : evaluateGates(doc, builder.set, o.gates);
    if (gates.length) doc.gates = gates;
    doc.sampling = samplingFacts(sampler, o, lateTicks, (cpuSeconds() - cpuAtStart) / Math.max((Date.now() - started) / 1000, 1e-3));
    writer?.write({ type: "verdict", ...doc });
    return { doc, stopReason: wakeup.stopped ?? "exited", set: builder.set, commands: commands(), settledAt: settledAt(history, verdictKey(doc)) };
  } finally {
    writer?.close();
    await analyst.close();
  }
}
