/**
 * `memleak run [options] -- <command> [args…]`: launch the command (no shell), in a fresh memory cgroup of its own
 * when possible, follow it and every descendant until it exits, then give the verdict and check the gates.
 *
 * Signals: Ctrl-C on a terminal reaches the command directly (it is in memleak's foreground process group), so the
 * first SIGINT is not forwarded again; a SIGINT from elsewhere, SIGTERM and SIGHUP are forwarded. Either way memleak
 * keeps sampling until the command exits and still prints its report. A second signal kills the command.
 */
import type { ChildProcess } from "node:child_process";
import { LiveRegion } from "../report/live-region.js";
import { locateMemoryCgroup, type CgroupLocation } from "../system/cgroup-locate.js";
import { HostFs } from "../system/host-fs.js";
import { alive as isAlive, createIsolatedCgroup, removeIsolatedCgroup, spawnInside, type Isolation } from "../system/isolate.js";
import { launch, resolveCommand } from "../system/launch.js";
import { processTree } from "../system/process-tree.js";
import { checkOutputPath } from "./output-paths.js";
import { requireLinux } from "../system/target.js";
import { report } from "./finish.js";
import { gatesExitCode, runExitCode, type CommandExit } from "./exit-policy.js";
import type { CommandIO, CommandResult } from "./io.js";
import { runSession, type SessionOptions } from "./session.js";
import { Wakeup } from "./wakeup.js";
import { stopText } from "./watch.js";
import type { VerdictDocument } from "../analysis/types.js";
import { AgentChannel } from "../agent/channel.js";
import { agentEnv } from "../agent/inject.js";

/** How long a command stopped by --fail-fast has to exit after SIGTERM before it is killed. */
export const FAIL_FAST_GRACE_MS = 5000;

export interface RunOptions extends SessionOptions {
  command: string[];
  isolate: boolean;
  agent: boolean;
  tracePython: boolean;
  trimProbe: boolean;
  platform?: string;
}

function killTree(fs: HostFs, pid: number, signal: NodeJS.Signals): void {
  signalAll(processTree(fs, pid).map((p) => p.pid), signal);
}

/** Children first (the list is parent-first), so a parent cannot respawn what was just signalled. */
function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of [...pids].reverse()) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

function chooseCgroup(fs: HostFs, o: RunOptions, io: CommandIO): { iso?: Isolation; read?: CgroupLocation; info: VerdictDocument["target"]["cgroup"] } {
  const own = locateMemoryCgroup(fs, process.pid);
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
  return { iso: iso.isolation, read: iso.isolation.location, info: { path: iso.isolation.location.path, version: iso.isolation.location.version, isolated: true } };
}

export async function runCommand(o: RunOptions, io: CommandIO): Promise<CommandResult & { doc: VerdictDocument; targetExit: CommandExit }> {
  requireLinux("run", o.platform ?? process.platform);
  checkOutputPath(o.record, "--record", !o.overwrite);
  checkOutputPath(o.html, "--html");
  resolveCommand(o.command[0] ?? "", io.env); // "command not found" before anything is created
  const fs = new HostFs();
  const cg = chooseCgroup(fs, o, io);
  const region = io.isTTY && !o.json ? new LiveRegion(io) : undefined;
  const wakeup = new Wakeup();
  let child: ChildProcess;
  let agent: AgentChannel | undefined;
  try {
    agent = o.agent ? await AgentChannel.open() : undefined;
    // With a live view the command's output goes through memleak so the view can stay below it.
    const base = region ? { PYTHONUNBUFFERED: "1", ...io.env } : io.env;
    const env = agent
      ? agentEnv(base, { socketPath: agent.socketPath, interval: o.interval, tracePython: o.tracePython, traceWarmup: o.warmup ?? 5, trimProbe: o.trimProbe })
      : base;
    // With --json, memleak's stdout carries only the verdict document: the command's stdout goes to stderr.
    const output = { stdout: region || o.json ? ("pipe" as const) : ("inherit" as const), stderr: region ? ("pipe" as const) : ("inherit" as const) };
    const start = () => launch(o.command, env, output);
    child = cg.iso ? spawnInside(fs, cg.iso, start) : start();
  } catch (err) {
    if (cg.iso) removeIsolatedCgroup(fs, cg.iso);
    agent?.close();
    throw err;
  }
  child.stdout?.on("data", (d: Buffer) => (region ? region.passthrough(o.json ? "stderr" : "stdout", d.toString()) : io.stderr(d.toString())));
  child.stderr?.on("data", (d: Buffer) => region?.passthrough("stderr", d.toString()));
  const exited = new Promise<CommandExit>((resolve) => {
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

  let signals = 0;
  const unsubscribe = io.onSignal((signal) => {
    signals++;
    if (signals >= 2) return killTree(fs, child.pid!, "SIGKILL");
    const terminalDeliveredIt = signal === "SIGINT" && process.stdin.isTTY;
    if (!terminalDeliveredIt) killTree(fs, child.pid!, signal);
  });
  // --fail-fast: the gate has failed for sure; the command is asked to stop, and made to if it does not.
  let stopped: { pids: number[]; at: number } | undefined;
  wakeup.onStop((reason) => {
    if (reason !== "gate-failed" || child.pid === undefined) return;
    // The tree as it is now: once the command itself has exited, its descendants can no longer be found from it, and
    // a grandchild that ignores SIGTERM would outlive the step.
    stopped = { pids: processTree(fs, child.pid).map((p) => p.pid), at: Date.now() };
    signalAll(stopped.pids, "SIGTERM");
  });
  /** Whatever of the stopped tree is still there once the grace period is over gets SIGKILL. */
  const killOverdue = () => {
    if (stopped && Date.now() - stopped.at >= FAIL_FAST_GRACE_MS) signalAll(stopped.pids.filter(isAlive), "SIGKILL");
  };
  // During the session: the command itself must be made to exit, or the session would wait for it for ever.
  const killTimer = setInterval(killOverdue, 500);
  killTimer.unref();
  // After it: descendants that outlived the command get the rest of their grace period, then the same.
  const killSurvivors = async () => {
    while (stopped && stopped.pids.some(isAlive) && Date.now() - stopped.at < FAIL_FAST_GRACE_MS) await new Promise((r) => setTimeout(r, 100));
    killOverdue();
  };
  let durationTimer: NodeJS.Timeout | undefined;
  if (o.duration !== undefined) {
    // Like timeout(1): when the duration is up, ask the command to stop, and keep sampling until it has.
    durationTimer = setTimeout(() => killTree(fs, child.pid!, "SIGTERM"), o.duration * 1000);
  }

  try {
    if (child.pid === undefined) await exited;
    let targetExit: CommandExit = { code: null, signal: null };
    const { doc, stopReason, set, commands, settledAt } = await runSession(
      { mode: "run", rootPid: child.pid ?? -1, command: o.command, cgroup: cg.read, cgroupInfo: cg.info, agent },
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
    const how = targetExit.code !== null ? `exit code ${targetExit.code}` : `signal ${targetExit.signal}`;
    io.stderr(`memleak: stopped: ${stopText(stopReason, doc.target.pid)} (${how})\n`);
    report(doc, o.json, io, { set, html: o.html, commands, settledAt });
    return { exitCode: runExitCode(gatesExitCode(doc), targetExit), doc, targetExit };
  } finally {
    unsubscribe();
    clearTimeout(durationTimer);
    clearInterval(killTimer);
    await killSurvivors();
    agent?.close();
    if (cg.iso) {
      const problem = removeIsolatedCgroup(fs, cg.iso);
      if (problem) io.stderr(`memleak: ${problem}\n`);
    }
  }
}
