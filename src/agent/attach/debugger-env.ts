/**
 * The environment gdb and lldb run in when they load the agent. Both embed the system's Python, and that interpreter
 * takes what it finds as its own: every PYTHON* setting of the user's shell (a PYTHONHOME or a PYTHONPATH meant for
 * another Python stopped gdb's with "No module named 'encodings'" or "SRE module mismatch"), and — where the debugger
 * does not set its home, as lldb does not — the standard library of the first `python3` on PATH: a pyenv version, a
 * conda environment or a virtualenv first on PATH gave lldb's Python that installation's library, and lldb's own
 * package then failed ("No module named 'six'") in every process memleak tried. So none of the user's PYTHON*
 * settings, and the debugger's own directory first on PATH (where the distribution's python3 sits beside it).
 */
import { delimiter, dirname } from "node:path";

export function debuggerEnv(env: NodeJS.ProcessEnv, debuggerPath: string, pythonPath?: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!name.startsWith("PYTHON")) out[name] = value;
  out.PATH = [dirname(debuggerPath), env.PATH].filter((p) => p).join(delimiter);
  // lldb's package (lldb -P): the only path its Python is given.
  if (pythonPath !== undefined) out.PYTHONPATH = pythonPath;
  return out;
}
