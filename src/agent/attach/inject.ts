/**
 * Loads memleak's agent into a running CPython: schedules memleak_attach.py to run on the interpreter's main thread
 * at a safe point (between bytecodes, holding the GIL), never from a thread the debugger stopped at random.
 *
 *   Python ≥ 3.14: sys.remote_exec (PEP 768), run by the target's own interpreter binary (/proc/PID/exe).
 *   3.8 – 3.13:    gdb in batch mode with gdb-inject.py: mmap a page, write the code into it, Py_AddPendingCall
 *                  (PyRun_SimpleString, page), detach — memray's attach schedules its code the same way. Where gdb
 *                  cannot put the registers back (a CPU with AMX, gdb before 14: debugger.ts), lldb does the same
 *                  with lldb_inject.py.
 *
 * Either way this only *schedules* the code; the caller then waits for the agent's hello on its socket, and an
 * interpreter stuck in a long C call simply answers later (or never) — nothing here waits on the target or kills it.
 */
import { existsSync, lchownSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveCommand } from "../../system/launch.js";
import { agentDir } from "../preload.js";
import { REMOTE_EXEC_VERSION, versionAtLeast } from "./interpreter.js";
import { runHelper } from "./run-helper.js";
import { debuggerHere, GDB_MISSING } from "./debugger.js";
import { debuggerEnv } from "./debugger-env.js";

export type InjectMethod = "gdb" | "gdb-blocked" | "lldb" | "lldb-blocked" | "remote_exec";
/**
 * pending: schedule the code for the main thread's next check between bytecodes (gdb + Py_AddPendingCall, or
 * sys.remote_exec). blocked: for a main thread that never gets there (sleeping, idle in epoll_wait, joining a thread):
 * run it on that thread while it is blocked in a GIL-released system call of CPython's (gdb-inject.py checks).
 */
export type InjectMode = "pending" | "blocked";
export type InjectOutcome =
  { ok: true; method: InjectMethod; ms: number } | { ok: false; method?: InjectMethod; reason: string };

export interface InjectRequest {
  pid: number;
  version: [number, number] | undefined;
  socketPath: string;
  /** Seconds between the agent's reports. */
  interval: number;
  /** watch --trace-python: seconds of tracemalloc, then its sites; undefined for none. */
  traceSeconds?: number | undefined;
  /** Where a remote_exec script may be written: readable by the target, private to it and memleak. */
  privateDir: string;
  /** The directory placed in the target's view (a container): the agent's files, the script, its failure note. */
  placed?: { hostDir: string; innerDir: string } | undefined;
  env: NodeJS.ProcessEnv;
  /** How long gdb (or remote_exec) may take before it is interrupted. */
  timeoutMs?: number;
  mode?: InjectMode;
}

const DEFAULT_TIMEOUT_MS = 15_000;
// dist/agent/attach/inject.js → ../../../src/agent/attach ; a chunk of dist/bundle/ → ../../src/agent/attach ;
// src/agent/attach/inject.ts (tests) → .
const script = (name: string) =>
  [`../../../src/agent/attach/${name}`, `../../src/agent/attach/${name}`, `./${name}`]
    .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
    .find((p) => existsSync(p));
const GDB_SCRIPT = script("gdb-inject.py");
const LLDB_SCRIPT = script("lldb_inject.py");

/** A failure of the loading code, written where memleak finds it: `failed-<pid inside>` in the request's directory. */
export const FAILED_PREFIX = "failed-";

/**
 * The Python that runs in the target: memleak_attach.py with its settings, inside try/except so that nothing can
 * reach the program (an exception in a pending call would surface in its code). `page`: the gdb path's mmap'd page,
 * unmapped first thing (the string has been compiled by then). `dir`: where the target finds the agent's files
 * (memleak's installation, or the directory placed in a container's view) and writes why loading failed, if it does:
 * "did not run the agent" is then said only of code that really did not run. `placed`: that directory was placed,
 * and is the agent's to remove if memleak is killed.
 */
export function injectedCode(o: {
  socketPath: string;
  interval: number;
  page: boolean;
  traceSeconds?: number | undefined;
  dir?: string | undefined;
  failedDir?: string | undefined;
  placed?: boolean;
}): string {
  const from = o.dir ?? agentDir();
  const boot = join(from, "memleak_attach.py");
  const agent = join(from, "memleak_agent.py");
  const lines = [];
  if (o.page) {
    lines.push(
      "try:",
      "    __import__('ctypes').CDLL(None).munmap(__import__('ctypes').c_void_p(@PAGE@), 4096)",
      "except BaseException:",
      "    pass",
    );
  }
  const trace = o.traceSeconds === undefined ? "None" : String(Number(o.traceSeconds));
  const placed = o.placed ? `, 'PLACED': ${JSON.stringify(from)}` : "";
  // Where the first process compiles the agent for the others (memleak_attach.py _compiled): the directory it may write.
  const cache = o.failedDir ? `, 'CACHE': ${JSON.stringify(o.failedDir)}` : "";
  const globals = `{'__name__': '__memleak_attach__', 'SOCKET': ${JSON.stringify(o.socketPath)}, 'INTERVAL': ${Number(o.interval)}, 'AGENT': ${JSON.stringify(agent)}, 'TRACE': ${trace}${placed}${cache}}`;
  lines.push(
    "try:",
    `    exec(compile((lambda f: (f.read(), f.close())[0])(open(${JSON.stringify(boot)}, 'rb')), ${JSON.stringify(boot)}, 'exec'), ${globals})`,
    "except BaseException as e:",
  );
  if (o.failedDir) {
    const failed = JSON.stringify(`${o.failedDir}/${FAILED_PREFIX}`);
    lines.push(
      "    try:",
      `        f = open(${failed} + str(__import__('os').getpid()), 'w'); f.write(repr(e)[:300]); f.close()`,
      "    except BaseException:",
      "        pass",
    );
  } else lines.push("    pass");
  return lines.join("\n") + "\n";
}

/** gdb's complaint, in the words a user can act on. */
export function gdbFailure(pid: number, out: string, err: string): string {
  const marker = /MEMLEAK-ERROR (\w+): (.*)/.exec(out);
  if (/ptrace: Operation not permitted/i.test(err + out)) {
    return `the kernel refused ptrace on PID ${pid} (a seccomp or LSM policy?): in Docker: --cap-add SYS_PTRACE; in Kubernetes: securityContext.capabilities.add: [SYS_PTRACE]`;
  }
  if (/No such process/i.test(err + out)) return `PID ${pid} exited`;
  if (marker?.[1] === "symbols")
    return `PID ${pid} has no Py_AddPendingCall/PyRun_SimpleString symbols: not CPython, or its symbols are stripped`;
  if (marker?.[1] === "unsafe")
    return `the interpreter did not run the agent, and ${marker[2]!.slice(0, 160)}: no safe point to load it`;
  if (marker) return `gdb could not schedule the agent (${marker[1]}: ${marker[2]!.slice(0, 160)})`;
  const last = err
    .trim()
    .split("\n")
    .filter((l) => !/warning|auto-load|^\s*$/i.test(l))
    .pop();
  return `gdb failed${last ? `: ${last.slice(0, 200)}` : ""}`;
}

/** The loading code's settings for this request: where the target finds the files and notes a failure. */
function codeSettings(r: InjectRequest) {
  return {
    socketPath: r.socketPath,
    interval: r.interval,
    traceSeconds: r.traceSeconds,
    dir: r.placed?.innerDir,
    failedDir: r.placed?.innerDir ?? r.privateDir,
    placed: r.placed !== undefined,
  };
}

/** gdb where it is safe, lldb where gdb would crash the program (debugger.ts), or why neither can be used. */
async function viaDebugger(r: InjectRequest, timeoutMs: number, mode: InjectMode): Promise<InjectOutcome> {
  const d = await debuggerHere(r.env);
  if (d.kind === "none") return { ok: false, method: "gdb", reason: d.reason };
  return d.kind === "lldb" ? viaLldb(r, d.path, d.pythonPath, timeoutMs, mode) : viaGdb(r, timeoutMs, mode);
}

/** lldb's complaint, in the words a user can act on. */
export function lldbFailure(pid: number, out: string, err: string): string {
  const marker = /MEMLEAK-ERROR (\w+): (.*)/.exec(out);
  if (/Operation not permitted|attach failed/i.test(err + out) && !marker)
    return `lldb could not attach to PID ${pid} (ptrace refused: in Docker --cap-add SYS_PTRACE; in Kubernetes securityContext.capabilities.add: [SYS_PTRACE])`;
  if (marker?.[1] === "symbols")
    return `PID ${pid} has no Py_AddPendingCall/PyRun_SimpleString symbols: not CPython, or its symbols are stripped`;
  if (marker?.[1] === "unsafe")
    return `the interpreter did not run the agent, and ${marker[2]!.slice(0, 160)}: no safe point to load it`;
  if (marker) return `lldb could not schedule the agent (${marker[1]}: ${marker[2]!.slice(0, 160)})`;
  const last = (err + "\n" + out)
    .trim()
    .split("\n")
    .filter((l) => /error/i.test(l))
    .pop();
  return `lldb failed${last ? `: ${last.trim().slice(0, 200)}` : ""}`;
}

async function viaLldb(
  r: InjectRequest,
  lldb: string,
  pythonPath: string,
  timeoutMs: number,
  mode: InjectMode,
): Promise<InjectOutcome> {
  const method = mode === "blocked" ? "lldb-blocked" : "lldb";
  if (!LLDB_SCRIPT) return { ok: false, method, reason: "lldb_inject.py is missing from this installation of memleak" };
  const started = Date.now();
  const env = debuggerEnv(r.env, lldb, pythonPath);
  const ran = await runHelper(
    lldb,
    [
      "--batch",
      "--no-lldbinit",
      // No search for separate debug files (libc6-dbg's, a build-id tree): the script calls functions by address and
      // reads the stack's symbols from the objects themselves. With it, an attach took ~0.28 s of CPU, without ~0.1.
      "-O",
      "settings set symbols.enable-external-lookup false",
      "-p",
      String(r.pid),
      "-o",
      `command script import ${LLDB_SCRIPT}`,
    ],
    { ...env, MEMLEAK_INJECT_MODE: mode, MEMLEAK_INJECT_CODE: injectedCode({ ...codeSettings(r), page: true }) },
    timeoutMs,
  );
  if (ran.timedOut)
    return {
      ok: false,
      method,
      reason: `lldb did not finish within ${Math.round(timeoutMs / 1000)} s and was interrupted`,
    };
  if (/^MEMLEAK-OK/m.test(ran.stdout)) return { ok: true, method, ms: Date.now() - started };
  return { ok: false, method, reason: lldbFailure(r.pid, ran.stdout, ran.stderr) };
}

async function viaGdb(r: InjectRequest, timeoutMs: number, mode: InjectMode): Promise<InjectOutcome> {
  let gdb: string;
  try {
    gdb = resolveCommand("gdb", r.env);
  } catch {
    return { ok: false, method: "gdb", reason: GDB_MISSING };
  }
  if (!GDB_SCRIPT)
    return { ok: false, method: "gdb", reason: "gdb-inject.py is missing from this installation of memleak" };
  const started = Date.now();
  const ran = await runHelper(
    gdb,
    [
      "-nx",
      "--batch",
      "-q",
      // No symbols of all libraries (seconds for libtorch, with the target stopped), no debuginfod downloads, no
      // auto-loaded scripts from the target's directories.
      "-iex",
      "set auto-solib-add off",
      "-iex",
      "set debuginfod enabled off",
      "-iex",
      "set auto-load off",
      "-p",
      String(r.pid),
      "-x",
      GDB_SCRIPT,
    ],
    {
      ...debuggerEnv(r.env, gdb),
      MEMLEAK_INJECT_MODE: mode,
      MEMLEAK_INJECT_CODE: injectedCode({ ...codeSettings(r), page: true }),
    },
    timeoutMs,
  );
  const method = mode === "blocked" ? "gdb-blocked" : "gdb";
  if (ran.timedOut)
    return {
      ok: false,
      method,
      reason: `gdb did not finish within ${Math.round(timeoutMs / 1000)} s and was interrupted`,
    };
  if (/^MEMLEAK-OK/m.test(ran.stdout)) return { ok: true, method, ms: Date.now() - started };
  return { ok: false, method, reason: gdbFailure(r.pid, ran.stdout, ran.stderr) };
}

async function viaRemoteExec(r: InjectRequest, timeoutMs: number): Promise<InjectOutcome> {
  const name = `attach-${r.pid}.py`;
  const script = join(r.placed?.hostDir ?? r.privateDir, name);
  writeFileSync(script, injectedCode({ ...codeSettings(r), page: false }), { mode: 0o600 });
  // The target reads it: its owner is the directory's (the target's user, when memleak shared or placed it).
  const owner = statSync(dirname(script));
  lchownSync(script, owner.uid, owner.gid);
  const started = Date.now();
  // The target's own binary, isolated (-I: no user site, no PYTHON* variables; -S: no site): only sys.remote_exec runs.
  const ran = await runHelper(
    `/proc/${r.pid}/exe`,
    [
      "-I",
      "-S",
      "-c",
      "import sys; sys.remote_exec(int(sys.argv[1]), sys.argv[2])",
      String(r.pid),
      r.placed ? join(r.placed.innerDir, name) : script,
    ],
    r.env,
    timeoutMs,
  );
  if (ran.code === 0) return { ok: true, method: "remote_exec", ms: Date.now() - started };
  const last = ran.stderr.trim().split("\n").pop() ?? "";
  return { ok: false, method: "remote_exec", reason: `sys.remote_exec failed${last ? `: ${last.slice(0, 200)}` : ""}` };
}

export async function injectAgent(r: InjectRequest): Promise<InjectOutcome> {
  const timeoutMs = r.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const mode = r.mode ?? "pending";
  if (mode === "pending" && r.version && versionAtLeast(r.version, REMOTE_EXEC_VERSION)) {
    const remote = await viaRemoteExec(r, timeoutMs);
    if (remote.ok) return remote;
    // Remote debugging can be switched off (PYTHON_DISABLE_REMOTE_DEBUG, -X disable_remote_debug); gdb may still work.
    const gdb = await viaDebugger(r, timeoutMs, mode);
    return gdb.ok ? gdb : { ok: false, method: "remote_exec", reason: `${remote.reason}; and ${gdb.reason}` };
  }
  return viaDebugger(r, timeoutMs, mode);
}
