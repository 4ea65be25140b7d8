/**
 * The sampling loop behind `run` and `watch`: tick the sampler every interval, record each sample as it comes, keep
 * the live view and the verdict so far up to date, and stop when the target exits, when --duration has passed, or
 * when asked to. Then classify, check the gates, and append the verdict to the recording.
 *
 * The parts each have a file: each sample, complete with the agents' reports and the GPU driver's readings
 * (sampling/sampler.ts), what is written to the recording (recording/session-writer.ts), what the user sees meanwhile
 * (session/presenter.ts), the verdict so far (session/interim/verdicts.ts), the cgroup's other processes
 * (cgroup-outsiders.ts). This file only says when each is told what.
 */
import { alive } from "../system/isolate.js";
import { classify, type ClassifyInput } from "../report/verdict.js";
import { SeriesBuilder } from "../series/series.js";
import { DEFAULT_CAPACITY } from "../series/column.js";
import type { SamplingFacts, VerdictDocument } from "../analysis/types.js";
import type { SeriesSet } from "../series/series.js";
import { gateVerdict } from "../gates/gate-verdict.js";
import { testResults } from "../analysis/pytest-verdicts.js";
import { testLimitsGate } from "../gates/pytest-limits.js";
import type { GateOptions } from "../gates/spec.js";
import { RECORDING_SCHEMA, type RecordingHeader } from "../recording/format.js";
import type { LiveRegion } from "../report/live/region.js";
import { Sampler } from "../sampling/sampler.js";
import { GpuDriverReadings } from "../sampling/gpu-driver-readings.js";
import { DEFAULT_PSS_EVERY } from "../sampling/defaults.js";
import type { Sample } from "../system/sample.js";
import type { CgroupLocation } from "../system/cgroup-locate.js";
import type { HostFs } from "../system/host-fs.js";
import { VERSION } from "../base/version.js";
import { describeMachine } from "../system/machine.js";
import type { AgentChannel } from "../agent/channel.js";
import { markPidsInside } from "../analysis/pids-inside.js";
import { CowAsk } from "./cow-ask.js";
import type { Attacher } from "./attacher.js";
import type { RunAgents } from "./run-agents.js";
import type { CommandIO } from "../base/command-io.js";
import { cpuMark, cpuMsSince } from "../system/cpu-time.js";
import { CgroupOutsiders } from "./cgroup-outsiders.js";
import { GpuDriver } from "../system/gpu-driver.js";
import { INTERIM_POINTS, InterimVerdicts } from "./interim/verdicts.js";
import { liveNames, SessionPresenter } from "./presenter.js";
import { openRecorder, type SessionRecorder } from "../recording/session-writer.js";
import { topSites } from "../report/live/sites.js";
import type { StopReason, Wakeup } from "./wakeup.js";
import type { MetricsSink } from "./metrics-export.js";

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
  /**
   * Where the agents are: `watch` loads one into the Python processes where it tells something (Attacher); `run`'s
   * are in every process from the start, and those that tell nothing are told to be quiet (RunAgents).
   */
  attacher?: Attacher | RunAgents | undefined;
  /** --metrics: told every sample and the verdict so far, then the final verdict. */
  metrics?: MetricsSink | undefined;
  /** Adds to the final verdict before it is recorded and reported (run --trace-native: the leaking C stacks). */
  completeVerdict?: ((doc: VerdictDocument) => Promise<void>) | undefined;
}

export interface SessionResult {
  doc: VerdictDocument;
  stopReason: StopReason;
  set: SeriesSet;
  commands: Map<number, string[]>;
  /** Seconds since the first sample from which every interim verdict already had the final kind and subject. */
  settledAt: number | undefined;
}

/** Called once sampling has stopped, before the verdict: run waits here for the command's exit status. */
export type AfterSampling = () => Promise<Partial<VerdictDocument["target"]>>;

const round = (x: number, digits: number) => Number(x.toFixed(digits));

/**
 * How long the session's end waits for the workers asked once more what they copied (CowAsk.atEnd): a look takes
 * 10-100 ms (BENCHMARKS §k⁵), each worker its own, side by side.
 */
const ASKED_AT_END_WAIT_MS = 3000;

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

export async function runSession(
  target: SessionTarget,
  o: SessionOptions,
  io: CommandIO,
  fs: HostFs,
  wakeup: Wakeup,
  region: LiveRegion | undefined,
  afterSampling: AfterSampling = async () => ({}),
): Promise<SessionResult> {
  const session = new Session(target, o, io, fs, wakeup, region);
  try {
    await session.sample();
    return await session.conclude(afterSampling);
  } finally {
    await session.close();
  }
}

/** One session's parts and the little state they share; runSession drives it. */
class Session {
  private readonly sampler: Sampler;
  private readonly cpuAtStart = cpuMark();
  private lateTicks = 0;
  private readonly builder = new SeriesBuilder(DEFAULT_CAPACITY, INTERIM_POINTS);
  private readonly presenter: SessionPresenter;
  private readonly recorder: SessionRecorder;
  private readonly started: number;
  private latest: Sample | undefined;
  private readonly interim: InterimVerdicts;
  private readonly outsiders: CgroupOutsiders | undefined;
  /** Each process's GPU memory from the driver, read every few seconds beside the ticks (never waited on by one). */
  private readonly gpuDriver = new GpuDriver();
  /** The driver's readings as the sampler adds them to its samples. */
  private readonly gpuReadings = new GpuDriverReadings(this.gpuDriver);
  /** Asks forked workers' agents which of their parent's objects they copied, while they copy (cow-ask.ts). */
  private readonly cowAsk = new CowAsk();

  constructor(
    private readonly target: SessionTarget,
    private readonly o: SessionOptions,
    io: CommandIO,
    fs: HostFs,
    private readonly wakeup: Wakeup,
    region: LiveRegion | undefined,
  ) {
    const agent = target.agent;
    // Each sample comes complete from the sampler, the agents' reports and the driver's readings in it.
    this.sampler = new Sampler({
      fs,
      rootPid: target.rootPid,
      cgroup: target.cgroup,
      smapsBudget: o.smapsBudget,
      pssEvery: o.pssEvery,
      agentReports: agent && ((pids) => agent.snapshot(pids)),
      gpu: this.gpuReadings,
    });
    this.presenter = new SessionPresenter(io, region, target);
    const say = (line: string) => this.presenter.say(line);
    this.recorder = openRecorder(
      o.record,
      o.overwrite,
      () => header(target, o),
      (why) => say(`memleak: warning: ${why}; sampling goes on, and the verdict and gates will be given without it\n`),
    );
    this.started = Date.now();
    // Interim verdicts are worked out in line while cheap, on a worker thread once not (session/interim/analyst.ts);
    // each says when its data ran to.
    this.interim = new InterimVerdicts(o.gates, wakeup, say, o.interval);
    this.outsiders = target.cgroup ? new CgroupOutsiders(fs, target.cgroup.dir, io.pid) : undefined;
  }

  /** Ticks until the target exits, --duration has passed, or the wakeup is stopped. */
  async sample(): Promise<void> {
    const { o, wakeup } = this;
    for (let tick = 0; ; tick++) {
      if (wakeup.stopped) break;
      const late = Date.now() - (this.started + tick * o.interval * 1000) >= (o.interval * 1000) / 2;
      const sample = this.sampler.tick();
      if (!sample) {
        wakeup.stop("exited");
        break;
      }
      if (late) this.lateTicks++;
      await this.take(sample, tick);
      const elapsed = (Date.now() - this.started) / 1000;
      this.interim.consider(elapsed, this.builder.set, () => this.classifyInput());
      const { builder, latest, interim, sampler } = this;
      this.presenter.tick(elapsed, () => ({
        set: builder.set,
        latest,
        soFar: interim.soFar,
        commands: liveNames(sample, sampler.totals.seen),
        pssAge: sampler.totals.pssAgeNow,
        sites: this.target.agent && topSites(this.target.agent.traces.values()),
      }));
      this.target.metrics?.update(sample, interim.soFarDoc);
      if (o.duration !== undefined && elapsed >= o.duration) {
        wakeup.stop("duration");
        break;
      }
      // Ticks are scheduled from the start time, so a slow tick does not push every later one back.
      await wakeup.sleep(this.started + (tick + 1) * o.interval * 1000 - Date.now());
    }
  }

  /** Adds one sample to the series and the recording, and lets the attacher see its processes. */
  private async take(sample: Sample, tick: number): Promise<void> {
    const agent = this.target.agent;
    if (agent) this.cowAsk.consider(sample.processes, (sample.t - this.started) / 1000, (pid) => agent.askCopied(pid));
    this.latest = sample;
    this.builder.add(sample);
    this.presenter.sayDenied(this.sampler.totals.smapsDenied);
    this.target.attacher?.consider(sample.processes);
    if (tick === 0) this.outsiders?.first(sample);
    await this.recorder.header();
    this.recordAttaches();
    this.recorder.sample(sample, this.sampler.totals.seen);
    if (this.target.agent) this.recorder.testMarks(this.target.agent.takeTestMarks());
  }

  /** After sampling: the last of the outsiders, the injections and the agent, then the verdict and the gates. */
  async conclude(afterSampling: AfterSampling): Promise<SessionResult> {
    const { target, o, builder, wakeup } = this;
    this.presenter.clear();
    await this.interim.close();
    if (this.latest && this.outsiders?.last(this.latest))
      this.recorder.outsiders(this.outsiders.pids, this.outsiders.anonGrowth);
    if (target.attacher) {
      // An injection in flight is finished (gdb never stays attached); queued ones are dropped.
      await target.attacher.stop(20_000);
      this.recordAttaches();
    }
    const extra = await afterSampling();
    if (target.agent) await this.agentEnd(target.agent);
    const doc = classify(this.classifyInput());
    doc.target = {
      ...doc.target,
      stopReason: wakeup.stopped ?? "exited",
      ...(target.cgroupInfo && { cgroup: target.cgroupInfo }),
      ...extra,
    };
    markPidsInside(doc, target.attacher?.pidsInside);
    const tests =
      target.agent && target.agent.testMarks.length > 0
        ? testResults(target.agent.testMarks, builder.set.t0)
        : undefined;
    if (tests) doc.tests = tests;
    const testGate = tests && testLimitsGate(tests);
    gateVerdict(doc, builder.set, o.gates, {
      settle: (checked) => this.interim.finalGates(checked),
      more: testGate ? [testGate] : [],
    });
    doc.sampling = this.samplingFacts();
    await target.completeVerdict?.(doc);
    target.metrics?.setVerdict(doc);
    this.recorder.verdict(doc);
    return {
      doc,
      stopReason: wakeup.stopped ?? "exited",
      set: builder.set,
      commands: this.commands(),
      settledAt: this.interim.settledAt(doc),
    };
  }

  async close(): Promise<void> {
    // An nvidia-smi still running is waited for (at most its timeout), so memleak leaves no child behind.
    await this.gpuReadings.finished();
    this.recorder.close();
    await this.interim.close();
  }

  /** Trace and trim results arrive as the interpreters exit, and reports sent after the last sample: recorded too. */
  private async agentEnd(agent: AgentChannel): Promise<void> {
    const asked = this.latest ? this.cowAsk.atEnd(this.latest.processes, (pid) => agent.askCopied(pid)) : [];
    if (asked.length > 0) await agent.answered(asked, ASKED_AT_END_WAIT_MS);
    await agent.drain(1000);
    this.recorder.testMarks(agent.takeTestMarks());
    this.recorder.agentResults([
      ...agent.traces.values(),
      ...agent.trims.values(),
      ...agent.holders.values(),
      ...agent.graphHolders.values(),
      ...agent.copied.values(),
      ...agent.gpuSites.values(),
      ...agent.gpuOoms.values(),
    ]);
    const lastWords =
      this.latest &&
      agent.unsampled(
        this.latest.processes.map((p) => p.pid),
        (pid) => !alive(pid),
      );
    if (lastWords) {
      const t = Date.now();
      this.builder.addLastWords(t, lastWords);
      this.recorder.lastWords(t, lastWords);
    }
  }

  /** Each injection's outcome goes into the recording as it is known, so `analyze` can say what the agent missed. */
  private recordAttaches(): void {
    for (const r of this.target.attacher?.takeDecided() ?? []) {
      this.recorder.attach(r);
      if (r.startedAt !== undefined) this.builder.addInjection(r.pid, r.startedAt);
    }
  }

  private commands(): Map<number, string[]> {
    return new Map([...this.sampler.totals.seen.values()].map((p) => [p.pid, p.cmdline ?? [p.comm]]));
  }

  private classifyInput(): ClassifyInput {
    const { target, o, outsiders } = this;
    return {
      agentResults: target.agent
        ? {
            traces: target.agent.traces,
            trims: target.agent.trims,
            holders: target.agent.holders,
            graphHolders: target.agent.graphHolders,
            copied: target.agent.copied,
            gpuSites: target.agent.gpuSites,
            gpuOoms: target.agent.gpuOoms,
          }
        : undefined,
      agentMissing: target.attacher?.missing(),
      set: this.builder.set,
      options: { warmup: o.warmup, command: target.command, launched: target.mode === "run" },
      commands: this.commands(),
      cgroup: target.cgroup
        ? {
            path: target.cgroup.path,
            version: target.cgroup.version,
            others: outsiders?.pids ?? [],
            othersAnonGrowth: outsiders?.anonGrowth,
          }
        : undefined,
      target: { pid: target.rootPid, ...(target.command && { command: target.command }) },
    };
  }

  private samplingFacts(): SamplingFacts {
    const { sampler, o } = this;
    const cpuShare = cpuMsSince(this.cpuAtStart) / 1000 / Math.max((Date.now() - this.started) / 1000, 1e-3);
    const median = sampler.totals.pssAge.median();
    const max = sampler.totals.pssAge.max();
    return {
      interval: o.interval,
      ticks: sampler.totals.ticks,
      lateTicks: this.lateTicks,
      pssEvery: o.pssEvery ?? DEFAULT_PSS_EVERY,
      ...(median !== undefined && max !== undefined && { pssAge: { median: round(median, 1), max: round(max, 1) } }),
      cpuShare: round(cpuShare, 5),
      gpu: this.gpuDriver.facts(),
      ...(this.target.attacher && { agents: this.target.attacher.facts() }),
    };
  }
}
