/**
 * `memleak watch <pid>`: attach to a running process and its descendants, sample until Ctrl-C, --duration, or the
 * process exits (and say which), then give the verdict.
 */
import { openLiveRegion } from "../report/live/open-region.js";
import { locateMemoryCgroup } from "../system/cgroup-locate.js";
import { HostFs } from "../system/host-fs.js";
import { checkOutputPath } from "../session/output-paths.js";
import { assertObservable, requireLinux } from "../system/target.js";
import { readCmdline } from "../system/read-process.js";
import { report } from "../session/finish.js";
import { gatesExitCode } from "../gates/exit-policy.js";
import type { CommandIO, CommandResult } from "../base/command-io.js";
import { runSession, type SessionOptions } from "../session/session.js";
import { stopText, Wakeup } from "../session/wakeup.js";
import type { VerdictDocument } from "../analysis/types.js";
import { AgentChannel } from "../agent/channel.js";
import { Attacher } from "../session/attacher.js";
import { inContainer } from "../system/namespaces.js";
import { openMetricsExport, type MetricsExport } from "../session/metrics-export.js";
import type { ListenAddress } from "../export/listen-address.js";
import { nextSteps, startLine } from "../session/feedback.js";
import { checkJobScope, readJobFacts } from "../agent/attach/job-scope.js";
import { usageError } from "../base/errors.js";

export interface WatchOptions extends SessionOptions {
  pid: number;
  root?: string | undefined;
  /** Load the agent into the tree's Python processes (default); false with --no-inject. */
  inject?: boolean;
  /** --all: also into processes of other sessions or users than the watched process's (PID 1's tree needs it). */
  all?: boolean;
  /** --max-agents: agents at once (agent-placement.ts). */
  maxAgents?: number | undefined;
  /** --agent-in: processes of the tree that get an agent whatever they do. */
  agentIn?: number[] | undefined;
  /** --metrics: serve /metrics here while sampling. */
  metrics?: ListenAddress | undefined;
  /** --trace-python: tracemalloc in the watched program for --trace-window seconds. */
  tracePython?: boolean;
  traceWindow?: number;
}

/** The tracemalloc window: --trace-window, ended a few seconds before --duration so its sites reach the verdict. */
export function traceSeconds(o: WatchOptions): number | undefined {
  if (!o.tracePython) return undefined;
  const window = o.traceWindow ?? 60;
  return o.duration === undefined ? window : Math.max(1, Math.min(window, o.duration - 5));
}

/** Injection reads the real /proc and attaches to real processes: not for a captured tree (--root), nor --no-inject. */
const injects = (o: WatchOptions) => o.inject !== false && (o.root ?? "/") === "/";

export async function watchCommand(o: WatchOptions, io: CommandIO): Promise<CommandResult & { doc: VerdictDocument }> {
  requireLinux("watch", io.platform);
  checkOutputPath(o.record, "--record", !o.overwrite);
  checkOutputPath(o.html, "--html");
  const fs = new HostFs(o.root ?? "/");
  assertObservable(fs, o.pid);
  for (const pid of o.agentIn ?? []) assertObservable(fs, pid);
  // Listening first: a port in use is said before anything is attached to.
  const exporter = await openMetricsExport(o.metrics, io);
  try {
    // Before anything is attached to: a tree that is not one job (PID 1's on a host) gets no agent unless asked.
    const refusal = injects(o) && !o.all ? checkJobScope(fs, o.pid) : undefined;
    if (refusal) throw usageError(refusal);
    return await watchWith(o, io, fs, exporter);
  } finally {
    await exporter?.close();
  }
}

async function watchWith(
  o: WatchOptions,
  io: CommandIO,
  fs: HostFs,
  exporter: MetricsExport | undefined,
): Promise<CommandResult & { doc: VerdictDocument }> {
  const loc = locateMemoryCgroup(fs, o.pid);
  if (exporter && loc.ok) exporter.sink.cgroupPath = loc.location.path;
  if (!loc.ok) io.stderr(`memleak: no memory cgroup (${loc.reason}); watching the processes only\n`);
  const container = loc.ok && inContainer(fs, o.pid);
  if (container)
    io.stderr(`memleak: PID ${o.pid} is in a container: reading the container's memory cgroup ${loc.location.path}\n`);
  const wakeup = new Wakeup();
  const unsubscribe = io.onSignal(() => wakeup.stop("interrupted"));
  const region = await openLiveRegion(io, o.json);
  const agent = injects(o) ? await AgentChannel.open() : undefined;
  const say = (line: string) => (region ? region.say(`memleak: ${line}\n`) : io.stderr(`memleak: ${line}\n`));
  const attacher = agent
    ? new Attacher(agent, fs, {
        rootPid: o.pid,
        interval: o.interval,
        env: io.env,
        say,
        traceSeconds: traceSeconds(o),
        job: o.all ? undefined : readJobFacts(fs, o.pid),
        maxAgents: o.maxAgents,
        named: new Set(o.agentIn ?? []),
      })
    : undefined;
  if (exporter && attacher) exporter.sink.pidsInside = attacher.pidsInside;
  const command = readCmdline(fs, o.pid);
  const line = startLine(
    { mode: "watch", pid: o.pid, command, interval: o.interval, duration: o.duration },
    region?.textWidth,
  );
  if (region) region.say(line);
  else io.stderr(line);
  try {
    const { doc, stopReason, set, commands, settledAt } = await runSession(
      {
        mode: "watch",
        rootPid: o.pid,
        command,
        cgroup: loc.ok ? loc.location : undefined,
        cgroupInfo: loc.ok
          ? {
              path: loc.location.path,
              version: loc.location.version,
              isolated: false,
              ...(container && { container: true as const }),
            }
          : { error: loc.reason },
        agent,
        attacher,
        metrics: exporter?.sink,
      },
      o,
      io,
      fs,
      wakeup,
      region,
    );
    io.stderr(`memleak: stopped: ${stopText(stopReason, o.pid, o.duration)}\n`);
    report(doc, o.json, io, { set, html: o.html, commands, settledAt });
    for (const next of nextSteps(doc, o, region?.textWidth)) io.stderr(next);
    return { exitCode: gatesExitCode(doc), doc };
  } finally {
    unsubscribe();
    // Closing the socket is what tells each injected agent to stop: the program runs on with nothing of ours in it.
    agent?.close();
  }
}
