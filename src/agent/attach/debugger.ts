/**
 * Which debugger schedules the agent in a running CPython before 3.14: gdb (gdb-inject.py), or lldb (lldb_inject.py)
 * where gdb cannot be used safely.
 *
 * gdb before 14 sizes the x86 XSAVE area by the features it knew of (up to AVX-512 and PKRU, 2,696 bytes). On a CPU
 * with AMX the kernel's area is larger and PTRACE_SETREGSET wants the whole of it back (arch/x86/kernel/fpu/regset.c:
 * "A whole standard-format XSAVE buffer is needed"), so after calling a function in the target gdb 13 cannot put the
 * thread's registers back: "Couldn't write extended state status: Bad address". Seen on this project's machines
 * (Intel Xeon with amx_tile, kernel 6.18, Debian 12's gdb 13.1, 2026-12-02): the watched program died, or a sleep it
 * was in failed with errno 514. lldb writes back the area the kernel gave it (checked there on CPython 3.8, 3.11 and
 * 3.13, sleeping and busy). So where the CPU has AMX and gdb is older than 14, lldb is used, and without lldb the agent
 * is not loaded at all: watching from outside is better than killing the program.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveCommand } from "../../system/launch.js";
import { runHelper } from "./run-helper.js";

/** The first gdb that knows the XSAVE area's size from the kernel (AMX included). */
export const GDB_SAFE_WITH_AMX = 14;

export type Debugger =
  | { kind: "gdb"; path: string }
  | { kind: "lldb"; path: string; pythonPath: string; why: string }
  | { kind: "none"; reason: string };

/** gdb's major version from `gdb --version`'s first line ("GNU gdb (Debian 13.1-3) 13.1" → 13). */
export function gdbMajor(versionText: string): number | undefined {
  const m = /^GNU gdb\b.*?\s(\d+)\.\d+[^\s]*\s*$/m.exec(versionText);
  return m ? Number(m[1]) : undefined;
}

/** Whether /proc/cpuinfo's flags say the CPU has AMX tiles (their state is part of the XSAVE area). */
export function cpuHasAmx(cpuinfo: string): boolean {
  return /^flags\s*:.*\bamx_tile\b/m.test(cpuinfo);
}

/**
 * The directory that holds lldb's Python package: what `lldb -P` should say (Debian 12's says a path that does not
 * exist), found where LLVM installs it.
 */
export function lldbPythonPath(root = "/usr/lib"): string | undefined {
  let llvms: string[];
  try {
    llvms = readdirSync(root).filter((d) => /^llvm-\d+$/.test(d));
  } catch {
    return undefined;
  }
  for (const llvm of llvms.sort().reverse()) {
    const lib = join(root, llvm, "lib");
    let pythons: string[] = [];
    try {
      pythons = readdirSync(lib).filter((d) => /^python3/.test(d));
    } catch {
      continue;
    }
    for (const py of pythons) {
      const dir = join(lib, py, "dist-packages");
      if (existsSync(join(dir, "lldb", "__init__.py"))) return dir;
    }
  }
  return undefined;
}

export const GDB_MISSING =
  "gdb is not installed; memleak needs it (or lldb) to load its agent into a running Python before 3.14 (apt-get install gdb, dnf install gdb, apk add gdb)";

/** Why gdb is not used on this machine, in the words of the refusal when lldb is missing too. */
export function gdbUnsafeReason(major: number): string {
  return `gdb ${major} cannot put a thread's registers back on this CPU (AMX; gdb ${GDB_SAFE_WITH_AMX}+ can): calling into the program would crash it`;
}

/**
 * The choice, from what was found: gdb when it is safe here; lldb (with its Python package) when gdb is unsafe or
 * missing; else why neither.
 */
export function chooseDebugger(found: {
  gdb: string | undefined;
  gdbMajor: number | undefined;
  amx: boolean;
  lldb: string | undefined;
  lldbPython: string | undefined;
}): Debugger {
  const unsafe = found.gdb !== undefined && found.amx && (found.gdbMajor ?? 0) < GDB_SAFE_WITH_AMX;
  if (found.gdb !== undefined && !unsafe) return { kind: "gdb", path: found.gdb };
  const why = unsafe ? gdbUnsafeReason(found.gdbMajor ?? 0) : "gdb is not installed";
  if (found.lldb !== undefined && found.lldbPython !== undefined)
    return { kind: "lldb", path: found.lldb, pythonPath: found.lldbPython, why };
  if (found.lldb !== undefined)
    return { kind: "none", reason: `${why}, and lldb's Python package is missing (apt-get install python3-lldb-14)` };
  return {
    kind: "none",
    reason: unsafe
      ? `${why}; install lldb (apt-get install lldb python3-lldb-14) or gdb ${GDB_SAFE_WITH_AMX}+`
      : GDB_MISSING,
  };
}

let chosen: Promise<Debugger> | undefined;

/** This machine's choice, found once per memleak: the debuggers on PATH, gdb's version and the CPU's flags. */
export function debuggerHere(env: NodeJS.ProcessEnv): Promise<Debugger> {
  chosen ??= find(env);
  return chosen;
}

async function find(env: NodeJS.ProcessEnv): Promise<Debugger> {
  const which = (cmd: string) => {
    try {
      return resolveCommand(cmd, env);
    } catch {
      return undefined;
    }
  };
  const gdb = which("gdb");
  const lldb = which("lldb");
  let cpuinfo = "";
  try {
    cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    /* not Linux, or hidden: no AMX known */
  }
  const amx = cpuHasAmx(cpuinfo);
  const version = gdb && amx ? await runHelper(gdb, ["--version"], env, 10_000) : undefined;
  return chooseDebugger({
    gdb,
    gdbMajor: version ? gdbMajor(version.stdout) : undefined,
    amx,
    lldb,
    lldbPython: lldb ? lldbPythonPath() : undefined,
  });
}
