/**
 * The agent's code compiled by the watched program's own interpreter in a short-lived process, before the agent is
 * loaded into the program. Compiling the agent (memleak_agent.py and its rooms, 60 KB) leaves ~3.5 MiB of the compiler's freed memory in the
 * heap of the process that compiles it (memleak_code.py); in the first process `watch` loaded the agent into, that was
 * +6.1 MiB of Σ PSS where a worker that found the code compiled paid +3.7 MiB (issue 49, measured on a 16-worker tree).
 * `run` trims that memory at start-up, before the program's code has run; under `watch` nothing may trim the program's
 * heap (memleak would measure its own doing). So the interpreter at /proc/PID/exe compiles it into memleak's private
 * directory under its bytecode magic number, and the program finds it there as its siblings do.
 *
 * Only where that path is the program's (no container view: the same mount namespace), and only a binary named as
 * CPython's interpreter is (python3.11, python3): a program that embeds Python (uWSGI, Blender) would take the
 * arguments as its own and start. It runs as the program's user when memleak is root: the program's binary is never run
 * with more rights than the program has. Anything that fails — a missing interpreter, a timeout — leaves the program
 * to compile it itself, as before: this only moves a cost, it decides nothing.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { agentDir } from "../preload.js";

/** A compile takes ~0.1 s; an interpreter that takes this long is not worth waiting for. */
const PRECOMPILE_TIMEOUT_MS = 10_000;

export interface PrecompileRequest {
  /** The program's interpreter, /proc/PID/exe read as a path in memleak's own mount namespace. */
  exe: string;
  /** memleak's private directory, where the program looks for the compiled code (inject.ts CACHE). */
  cacheDir: string;
  /** Run as this user and group when memleak is root and the program is not (the file is then theirs to read). */
  uid?: number | undefined;
  gid?: number | undefined;
}

/**
 * The agent's files every process loads from the compiled code: memleak_agent.py and the rooms it loads with itself
 * (its _ROOMS, which test/unit/agent/placed-files.test.ts holds this list to). The rooms it loads only when needed are
 * compiled where they are needed, as before.
 */
export const AGENT_CODE_FILES = [
  "memleak_agent.py",
  "memleak_channel.py",
  "memleak_readings.py",
  "memleak_census.py",
  "memleak_lifecycle.py",
];

/** The interpreter and arguments that compile the agent into cacheDir (pure: the unit test reads it). */
export function precompileCommand(r: PrecompileRequest): { file: string; args: string[] } {
  const dir = agentDir();
  // -I: none of the user's PYTHON* settings or site-packages; -S: no site (no sitecustomize of the program's, faster).
  const sources = AGENT_CODE_FILES.map((file) => join(dir, file));
  return { file: r.exe, args: ["-I", "-S", join(dir, "memleak_code.py"), r.cacheDir, ...sources] };
}

/** CPython's interpreter by its file name: python, python3, python3.11, python3.13t (free-threaded), python3.8m. */
export const INTERPRETER_NAME = /(^|\/)python(\d+(\.\d+)?[a-z]?)?$/;

/** Compiles once per interpreter and user; resolves when done or given up on (never rejects). */
export class Precompiler {
  private readonly done = new Map<string, Promise<boolean>>();

  ensure(r: PrecompileRequest): Promise<boolean> {
    // " (deleted)": upgraded under the program, the path is another interpreter now.
    if (!INTERPRETER_NAME.test(r.exe)) return Promise.resolve(false);
    const key = `${r.exe}\0${r.uid ?? ""}`;
    let p = this.done.get(key);
    if (!p) {
      p = run(r);
      this.done.set(key, p);
    }
    return p;
  }
}

function run(r: PrecompileRequest): Promise<boolean> {
  const { file, args } = precompileCommand(r);
  const asUser =
    r.uid !== undefined && process.getuid?.() === 0 && r.uid !== 0 ? { uid: r.uid, gid: r.gid ?? r.uid } : {};
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PRECOMPILE_TIMEOUT_MS, env: {}, ...asUser }, (err) => resolve(!err));
  });
}
