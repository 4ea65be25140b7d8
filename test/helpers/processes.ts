/**
 * Real processes for end-to-end tests: start a Python script, wait until it says it is ready, kill it afterwards.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { REPO } from "./fixtures.js";

export const execFileP = promisify(execFile);

export const MEMLEAK = `${REPO}bin/memleak.js`;
/** Debian's Python: has psutil (and torch) from apt. `python3` on PATH is a pyenv build without them. */
export const SYSTEM_PYTHON = "/usr/bin/python3";

export interface Started {
  child: ChildProcess;
  pid: number;
  output: () => string;
  stop: () => Promise<void>;
}

/** Spawns argv and resolves once `readyLines` lines matching `ready` have been printed. */
export function startReady(
  argv: string[],
  ready: RegExp,
  readyLines = 1,
  timeoutMs = 30_000,
  where: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Started> {
  // detached: the script and its descendants get a process group of their own, so stop() can kill them all.
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: where.cwd ?? REPO,
    env: where.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) {
      try {
        process.kill(-child.pid!, "SIGKILL"); // orphaned workers of a script that already exited
      } catch {
        /* none left */
      }
      return;
    }
    const exited = new Promise((r) => child.once("exit", r));
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after ${timeoutMs} ms: ${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if ((out.match(new RegExp(ready, "gm")) ?? []).length >= readyLines) {
        clearTimeout(timer);
        resolve({ child, pid: child.pid!, output: () => out, stop });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready: ${out}`));
    });
  });
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** memleak's own pid: what it names its cgroups and agent directories by (memleak-PID-…). */
  pid: number;
}

/** Runs the built CLI and captures everything, whatever the exit code. */
/** @param onStderr told each piece of stderr as it comes (to act once memleak has said it started, not after a sleep). */
export async function memleak(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  onStderr?: (text: string) => void,
): Promise<Run> {
  let pid = 0;
  try {
    const running = execFileP(process.execPath, [MEMLEAK, ...args], {
      cwd: REPO,
      env: { ...process.env, NO_COLOR: "1", ...env },
      maxBuffer: 64 << 20,
    });
    pid = running.child.pid ?? 0;
    if (onStderr) running.child.stderr?.on("data", (d: Buffer) => onStderr(d.toString()));
    const r = await running;
    return { code: 0, stdout: r.stdout, stderr: r.stderr, pid };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw err;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "", pid };
  }
}

/**
 * `n` sleeping processes, each in a session of its own (setsid), under this test process and so under PID 1: makes
 * "PID 1's tree is not one job" true on a machine where every other process shares the test runner's session (CI's
 * clean machine: `memleak watch 1` was watched, not refused, and ran into the test's timeout). uv_spawn returns after
 * the child's exec, so each is in its own session already. Returns what ends them.
 */
export function sleepersInOwnSessions(n: number): () => void {
  const sleepers = Array.from({ length: n }, () => spawn("sleep", ["300"], { detached: true, stdio: "ignore" }));
  return () => {
    for (const s of sleepers) s.kill("SIGKILL");
  };
}
