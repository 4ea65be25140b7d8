/**
 * How `memleak run` puts the agent into every Python process of the target tree: its directory goes first on
 * PYTHONPATH (so Python imports our sitecustomize, which chains to the one it replaces), and the socket path and
 * settings go in MEMLEAK_* variables. Children inherit the environment, so spawned interpreters load it too; forked
 * ones re-arm it themselves (os.register_at_fork).
 */
import { existsSync } from "node:fs";
import { delimiter } from "node:path";
import { fileURLToPath } from "node:url";

// dist/agent/preload.js and a chunk of dist/bundle/ → ../../src/agent/python ; src/agent/preload.ts (tests) → ./python
const CANDIDATES = [new URL("../../src/agent/python/", import.meta.url), new URL("./python/", import.meta.url)];

export function agentDir(): string {
  for (const c of CANDIDATES) {
    const dir = fileURLToPath(c);
    if (existsSync(`${dir}sitecustomize.py`)) return dir.replace(/\/$/, "");
  }
  throw new Error("the Python agent files (src/agent/python) are missing from this installation");
}

export interface AgentSettings {
  socketPath: string;
  interval: number;
  tracePython: boolean;
  /** Seconds after start at which tracemalloc's baseline snapshot is taken. */
  traceWarmup: number;
  trimProbe: boolean;
  /** memleak's own pid: an agent whose connection ends without a goodbye stops its process once this pid is gone. */
  launcherPid: number;
}

export function agentEnv(env: NodeJS.ProcessEnv, s: AgentSettings): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...env,
    PYTHONPATH: env.PYTHONPATH ? `${agentDir()}${delimiter}${env.PYTHONPATH}` : agentDir(),
    MEMLEAK_AGENT_SOCKET: s.socketPath,
    MEMLEAK_AGENT_INTERVAL: String(s.interval),
    MEMLEAK_PID: String(s.launcherPid),
  };
  if (s.tracePython) {
    out.MEMLEAK_TRACE_PYTHON = "1";
    out.MEMLEAK_TRACE_WARMUP = String(s.traceWarmup);
  }
  if (s.trimProbe) out.MEMLEAK_TRIM_PROBE = "1";
  return out;
}
