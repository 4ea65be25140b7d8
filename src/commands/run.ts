/**
 * `memleak run [options] -- <command> [args…]`: launch the command (no shell), in a fresh memory cgroup of its own
 * when possible, follow it and every descendant until it exits, then give the verdict and check the gates.
 *
 * Signals: Ctrl-C on a terminal reaches the command directly (it is in memleak's foreground process group), so the
 * first SIGINT is not forwarded again; a SIGINT from elsewhere, SIGTERM and SIGHUP are forwarded. Either way memleak
 * stops sampling (what follows is the command's shutdown), waits for the command to exit and still prints its report.
 * A second signal kills the command.
 */
import type { ChildProcess } from "node:child_process";
import type { LiveRegion } from "../report/live/region.js";
import { openLiveRegion } from "../report/live/open-region.js";
import { locateMemoryCgroup, type CgroupLocation } from "../system/cgroup-locate.js";
import { HostFs } from "../system/host-fs.js";
import { createIsolatedCgroup, removeIsolatedCgroup, spawnInside, type Isolation } from "../system/isolate.js";
import { launch, resolveCommand, signalledAtParentDeath } from "../system/launch.js";
import { OrphanGuard } from "../system/orphan-guard.js";
import { checkOutputPath } from "../session/output-paths.js";
import { requireLinux } from "../system/target.js";
import { report } from "../session/finish.js";
import type { CommandIO, CommandResult } from "../base/command-io.js";
import { runSession, type SessionOptions } from "../session/session.js";
import { stopText, Wakeup } from "../session/wakeup.js";
import type { VerdictDocument } from "../analysis/types.js";
import { AgentChannel } from "../agent/channel.js";
import { RunAgents } from "../session/run-agents.js";
import { agentDir, agentEnv } from "../agent/preload.js";
import { forwardSignals, killTree } from "../session/command-signals.js";
import { FAIL_FAST_GRACE_MS, FailFastStop, hostProcesses } from "../session/fail-fast/stop.js";
import {
  DURATION_SIGNAL,
  endedBySignalSent,
  gatesExitCode,
  runExitCode,
  type CommandExit,
} from "../gates/exit-policy.js";
import { openMetricsExport, type MetricsExport } from "../session/metrics-export.js";
import type { ListenAddress } from "../export/listen-address.js";
import { delimiter, dirname } from "node:path";
import { NativeTracer } from "../native/native-tracer.js";
import { nextSteps, startLine } from "../session/feedback.js";
import type { SeriesSet } from "../series/series.js";

export interface RunOptions extends SessionOptions {
  command: string[];
  isolate: boolean;
  agent: boolean;
  /** --max-agents: agents reporting at once; the others are told to be quiet (run-agents.ts). */
  maxAgents?: number | undefined;
  tracePython: boolean;
  trimProbe: boolean;
  /** --trace-native: the command runs under heaptrack's preload; the leaking C/C++ stacks join the report. */
  traceNative?: boolean | undefined;
  /** Added to the command's environment (memleak pytest: the plugin's settings). */
  extraEnv?: Record<string, string> | undefined;
  /** --metrics: serve /metrics here while sampling. */
  metrics?: ListenAddress | undefined;
  /** `run --try`: told the command's pid once it has started (to see the setting in effect in /proc). */
  onStarted?: ((pid: number) => void) | undefined;
  /** `run --try`: the verdict is not printed here (the comparison is, once every trial has run). */
  silentReport?: boolean | undefined;
}

/** What one run gives back: its exit code, verdict, how the command ended, and the readings judged. */
export type RunResult = CommandResult & { doc: VerdictDocument; targetExit: CommandExit; set: SeriesSet };

interface CgroupChoice {
  iso?: Isolation;
  read?: CgroupLocation;
  info: VerdictDocument["target"]["cgroup"];
}

/** The command as launched: its process, the agent's channel, and its exit once it has exited. */
interface Launched {
  child: ChildProcess;
  agent: AgentChannel | undefined;
  /** Stops what the run left if memleak is killed (orphan-guard.ts); with the agent only. */
  guard: OrphanGuard | undefined;
  exited: Promise<CommandExit>;
}

function chooseCgroup(fs: HostFs, o: RunOptions, io: CommandIO): CgroupChoice {
  const own = locateMemoryCgroup(fs, io.pid);
  if (!own.ok) {
    io.stderr(`memleak: no memory cgroup (${own.reason}); watching the processes only\n`);
    return { info: { error: own.reason } };
  }
  const shared = () => ({ path: own.location.path, version: own.location.version, isolated: false });
  if (!o.isolate) return { read: own.location, info: shared() };
  const iso = createIsolatedCgroup(fs, own.location);
  if (!iso.ok) {
    io.stderr(
      `memleak: could not give the command a memory cgroup of its own (${iso.reason}); reading memleak's own cgroup ${own.location.path} instead, which anything else in it also counts towards\n`,
    );
    return { read: own.location, info: shared() };
  }
  return {
    iso: iso.isolation,
    read: iso.isolation.location,
    info: { path: iso.isolation.location.path, version: iso.isolation.location.version, isolated: true },
  };
}

export async function runCommand(o: RunOptions, io: CommandIO): Promise<RunResult> {
  requireLinux("run", io.platform);
  checkOutputPath(o.record, "--record", !o.overwrite);
  checkOutputPath(o.html, "--html");
  resolveCommand(o.command[0] ?? "", io.env); // "command not found" before anything is created
  // heaptrack missing: one line and exit 2, before a port is opened, a cgroup made or the command started.
  const tracer = o.traceNative ? NativeTracer.open(io.env) : undefined;
  try {
    return await runTraced(o, io, tracer);
  } finally {
    tracer?.close();
  }
}

async function runTraced(o: RunOptions, io: CommandIO, tracer: NativeTracer | undefined): Promise<RunResult> {
  // Listening next: a port in use is said before a cgroup is made or the command started.
  const exporter = await openMetricsExport(o.metrics, io);
  try {
    return await runWith(o, io, exporter, tracer);
  } finally {
    await exporter?.close();
  }
}

async function runWith(
  o: RunOptions,
  io: CommandIO,
  exporter: MetricsExport | undefined,
  tracer: NativeTracer | undefined,
): Promise<RunResult> {
  const fs = new HostFs();
  const cg = chooseCgroup(fs, o, io);
  if (exporter && cg.read) exporter.sink.cgroupPath = cg.read.path;
  const region = await openLiveRegion(io, o.json);
  const wakeup = new Wakeup();
  const { child, agent, guard } = await launchCommand(o, io, fs, cg, region, tracer);
  const exited = followCommand(child, o, io, region, wakeup);
  const unsubscribe = forwardSignals(io, fs, () => child.pid);
  // A signal to memleak (Ctrl-C, a CI job cancelled) asks the command to stop, as --duration does: sampling stops,
  // the command's exit is waited for (a second signal kills it).
  const unsubscribeStop = io.onSignal(() => wakeup.stop("interrupted"));
  // Only --fail-fast stops the command for a gate: without it, no watch (and no timer waking memleak twice a second).
  const failFastStop = o.gates.failFast ? new FailFastStop(hostProcesses(fs), child, wakeup) : undefined;
  // Like timeout(1): when the duration is up, ask the command to stop, and wait for it to exit. Sampling stops there:
  // what a program does once asked to stop is its shutdown, not the course of its memory — a gunicorn service's
  // workers, finalizing, copied the master's pages (Σ PSS −45 MiB as they went, +5 MiB in the cgroup), and in a
  // 30 s step two such samples of the last tenth's three set the end level of --max-growth. Unlike timeout(1), the
  // command's death by that SIGTERM is not the step's failure: the gates decide (gates/exit-policy.ts runExitCode).
  const durationTimer =
    o.duration !== undefined
      ? setTimeout(() => {
          wakeup.stop("duration");
          killTree(fs, child.pid!, DURATION_SIGNAL);
        }, o.duration * 1000)
      : undefined;
  try {
    return await sampleAndReport(o, io, fs, cg, region, wakeup, { child, agent, guard, exited }, exporter, tracer);
  } finally {
    unsubscribe();
    unsubscribeStop();
    clearTimeout(durationTimer);
    await failFastStop?.finish();
    agent?.close();
    guard?.release();
    if (cg.iso) {
      const problem = removeIsolatedCgroup(fs, cg.iso);
      if (problem) io.stderr(`memleak: ${problem}\n`);
    }
  }
}

/** Starts the command (with the agent's environment under --agent), in its own cgroup when there is one. */
async function launchCommand(
  o: RunOptions,
  io: CommandIO,
  fs: HostFs,
  cg: CgroupChoice,
  region: LiveRegion | undefined,
  tracer: NativeTracer | undefined,
): Promise<Omit<Launched, "exited">> {
  let agent: AgentChannel | undefined;
  let guard: OrphanGuard | undefined;
  try {
    agent = o.agent ? await AgentChannel.open() : undefined;
    // With a live view the command's output goes through memleak so the view can stay below it.
    const base = { ...(region && { PYTHONUNBUFFERED: "1" }), ...io.env, ...o.extraEnv };
    const withAgent = agent
      ? agentEnv(base, {
          socketPath: agent.socketPath,
          interval: o.interval,
          tracePython: o.tracePython,
          traceWarmup: o.warmup ?? 5,
          trimProbe: o.trimProbe,
          launcherPid: io.pid,
        })
      : base;
    const env = tracer ? tracer.env(tracedPythonPath(withAgent, agent !== undefined)) : withAgent;
    const command = tracer ? tracer.wrap(o.command, withAgent) : o.command;
    // With --json, memleak's stdout carries only the verdict document: the command's stdout goes to stderr.
    const output = {
      stdout: region || o.json ? ("pipe" as const) : ("inherit" as const),
      stderr: region ? ("pipe" as const) : ("inherit" as const),
    };
    // Before the command: a worker it forks at once is already the guard's if memleak is killed.
    guard = agent && OrphanGuard.start(orphanGuardPlan(agent, io));
    const start = () => launch(command, env, output);
    const child = cg.iso ? spawnInside(fs, cg.iso, start) : start();
    if (child.pid !== undefined && signalledAtParentDeath(child)) guard?.skip(child.pid);
    return { child, agent, guard };
  } catch (err) {
    if (cg.iso) removeIsolatedCgroup(fs, cg.iso);
    agent?.close();
    guard?.release();
    throw err;
  }
}

/**
 * What the orphan guard stops if memleak is killed: every process carrying this run's agent socket in its
 * environment, once the socket's directory (removed as memleak ends as usual) outlives memleak; after the grace the
 * agents give (MEMLEAK_ORPHAN_GRACE seconds, as memleak_lifecycle.py reads it).
 */
function orphanGuardPlan(agent: AgentChannel, io: CommandIO) {
  const grace = Number(io.env.MEMLEAK_ORPHAN_GRACE ?? FAIL_FAST_GRACE_MS / 1000);
  return {
    marker: `MEMLEAK_AGENT_SOCKET=${agent.socketPath}`,
    liveDir: dirname(agent.socketPath),
    graceSeconds: Number.isFinite(grace) && grace >= 0 ? grace : FAIL_FAST_GRACE_MS / 1000,
  };
}

/** Passes the command's piped output on, and stops the session when the command exits (or could not start). */
function followCommand(
  child: ChildProcess,
  o: RunOptions,
  io: CommandIO,
  region: LiveRegion | undefined,
  wakeup: Wakeup,
): Promise<CommandExit> {
  // Decoded as streams, not chunk by chunk: a pipe read can end inside a UTF-8 character, which d.toString() turned
  // into two U+FFFD (300,000 "é" after one ASCII byte came out with 18 of them).
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (d: string) =>
    region ? region.passthrough(o.json ? "stderr" : "stdout", d) : io.stderr(d),
  );
  child.stderr?.on("data", (d: string) => region?.passthrough("stderr", d));
  return new Promise<CommandExit>((resolve) => {
    child.once("exit", (code, signal) => {
      wakeup.stop("exited");
      resolve({ code, signal });
    });
    child.once("error", (err) => {
      io.stderr(`memleak: cannot start ${o.command[0]}: ${err.message}\n`);
      wakeup.stop("exited");
      resolve({ code: 127, signal: null });
    });
  });
}

/** One line of memleak's own, above the live view when there is one. */
function sayer(io: CommandIO, region: LiveRegion | undefined): (line: string) => void {
  return (line) => (region ? region.say(`memleak: ${line}\n`) : io.stderr(`memleak: ${line}\n`));
}

/** Samples the command until it exits, then reports, and ends with the exit code exit-policy.ts chooses. */
async function sampleAndReport(
  o: RunOptions,
  io: CommandIO,
  fs: HostFs,
  cg: CgroupChoice,
  region: LiveRegion | undefined,
  wakeup: Wakeup,
  run: Launched,
  exporter: MetricsExport | undefined,
  tracer: NativeTracer | undefined,
) {
  const { child, agent, exited } = run;
  if (child.pid === undefined) await exited;
  else {
    o.onStarted?.(child.pid);
    const line = startLine(
      { mode: "run", pid: child.pid, command: o.command, interval: o.interval, duration: o.duration },
      region?.textWidth,
    );
    if (region) region.say(line);
    else io.stderr(line);
  }
  let targetExit: CommandExit = { code: null, signal: null };
  const { doc, stopReason, set, commands, settledAt } = await runSession(
    {
      mode: "run",
      rootPid: child.pid ?? -1,
      command: o.command,
      cgroup: cg.read,
      cgroupInfo: cg.info,
      agent,
      attacher:
        agent && child.pid !== undefined
          ? new RunAgents(agent, fs, { rootPid: child.pid, maxAgents: o.maxAgents, say: sayer(io, region) })
          : undefined,
      metrics: exporter?.sink,
      completeVerdict: tracer && addNativeTrace(tracer, io),
    },
    { ...o, duration: undefined },
    io,
    fs,
    wakeup,
    region,
    async () => {
      // If sampling was interrupted, the command has been told (above): wait for it so its exit status is known.
      targetExit = await exited;
      return { exitCode: targetExit.code, signal: targetExit.signal };
    },
  );
  // The signal memleak sent the command when --duration was up (durationTimer): its death by it is not a failure.
  const sent: NodeJS.Signals | undefined = stopReason === "duration" ? DURATION_SIGNAL : undefined;
  const how = targetExit.code !== null ? `exit code ${targetExit.code}` : `signal ${targetExit.signal}`;
  const whose = endedBySignalSent(targetExit, sent) ? ", memleak's: not passed on as the exit code" : "";
  io.stderr(`memleak: stopped: ${stopText(stopReason, doc.target.pid, o.duration)} (${how}${whose})\n`);
  if (!o.silentReport) {
    report(doc, o.json, io, { set, html: o.html, commands, settledAt });
    for (const line of nextSteps(doc, o, region?.textWidth)) io.stderr(line);
  }
  return { exitCode: runExitCode(gatesExitCode(doc), targetExit, sent), doc, targetExit, set };
}

/** After the command has exited: heaptrack's traces are read, cut at the verdict's warm-up, into the verdict. */
function addNativeTrace(tracer: NativeTracer, io: CommandIO) {
  return async (doc: VerdictDocument) => {
    io.stderr("memleak: reading heaptrack's traces (--trace-native)…\n");
    doc.nativeTrace = await tracer.finish(doc.window.warmup);
  };
}

/** Without the agent, memleak's sitecustomize still goes on PYTHONPATH under --trace-native: it keeps the preload in Python. */
function tracedPythonPath(env: NodeJS.ProcessEnv, hasAgent: boolean): NodeJS.ProcessEnv {
  if (hasAgent) return env;
  return { ...env, PYTHONPATH: env.PYTHONPATH ? `${agentDir()}${delimiter}${env.PYTHONPATH}` : agentDir() };
}
