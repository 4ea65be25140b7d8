/**
 * A real Python program with memleak's agent loaded as `run` loads it (sitecustomize, through agentEnv), reporting on
 * a real channel: the agent tests' one way to start one. The program prints the pids it forked or started on its
 * first line; stopAgentPrograms (each test file's afterEach) kills them, the program and closes the channel.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { AgentChannel } from "../../src/agent/channel.js";
import { agentEnv } from "../../src/agent/preload.js";

const running: { ch: AgentChannel; parent: ChildProcess; pids: number[] }[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface AgentProgram {
  ch: AgentChannel;
  parent: ChildProcess;
  /** The pids the program printed on its first line. */
  pids: number[];
}

export async function startAgentProgram(
  program: string,
  o: { interval: number; env?: Record<string, string>; python?: string },
): Promise<AgentProgram> {
  const ch = await AgentChannel.open();
  const env = agentEnv(process.env, {
    socketPath: ch.socketPath,
    interval: o.interval,
    launcherPid: process.pid,
    tracePython: false,
    traceWarmup: 5,
    trimProbe: false,
  });
  const parent = spawn(o.python ?? "python3", ["-c", program], {
    env: { ...env, ...o.env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const started = { ch, parent, pids: [] as number[] };
  running.push(started);
  let out = "";
  parent.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  for (let i = 0; i < 100 && !out.includes("\n"); i++) await sleep(100);
  if (!out.includes("\n")) throw new Error(`the program printed no line in 10 s: ${JSON.stringify(out)}`);
  started.pids = out.split("\n")[0]!.trim().split(/\s+/).map(Number);
  return started;
}

export function stopAgentPrograms(): void {
  for (const { ch, parent, pids } of running.splice(0)) {
    for (const pid of pids)
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    parent.kill("SIGKILL");
    ch.close();
  }
}
