/**
 * Is this process a CPython the agent can be loaded into, and which version? Decided from what /proc shows without
 * touching the process: the executable's name (/proc/PID/exe) and the libraries it maps (/proc/PID/maps). A Python
 * embedded in another program (uwsgi, a C++ server) maps libpython3.N; a statically linked one (Debian's
 * /usr/bin/python3.11) is named python3.N; a pyenv or venv python3 maps libpython or is named python3.
 */
export type Interpreter =
  | { kind: "cpython"; version: [number, number] | undefined }
  | { kind: "other-python"; name: string }
  | { kind: "not-python" };

/** The agent is plain Python 3.8+ (os.register_at_fork, mallinfo2 through ctypes, PEP 578-era stdlib). */
export const MIN_VERSION: [number, number] = [3, 8];
/** From 3.14, sys.remote_exec (PEP 768) runs a script in another interpreter at a safe point, without a debugger. */
export const REMOTE_EXEC_VERSION: [number, number] = [3, 14];

export function versionAtLeast(v: [number, number], min: [number, number]): boolean {
  return v[0] > min[0] || (v[0] === min[0] && v[1] >= min[1]);
}

function baseName(path: string): string {
  return (
    path
      .replace(/ \(deleted\)$/, "")
      .split("/")
      .pop() ?? ""
  );
}

/** The first file mapped is the executable: its path, for when /proc/PID/exe may not be read but maps may. */
function exeFromMaps(maps: string | undefined): string | undefined {
  return maps ? /^\S+ \S+ \S+ \S+ \S+\s+(\/.*)$/m.exec(maps)?.[1] : undefined;
}

export function identifyInterpreter(exePath: string | undefined, maps: string | undefined): Interpreter {
  const path = exePath ?? exeFromMaps(maps);
  const exe = path ? baseName(path) : "";
  if (/pypy/i.test(exe) || (maps && /\/libpypy[\w.-]*\.so/.test(maps))) return { kind: "other-python", name: "PyPy" };
  if (/^(graalpy|jython)/i.test(exe)) return { kind: "other-python", name: exe.startsWith("j") ? "Jython" : "GraalPy" };
  const lib = maps ? /\/libpython(\d)\.(\d{1,2})[a-z]*\.so/.exec(maps) : null;
  if (lib && lib[1] === "3") return { kind: "cpython", version: [3, Number(lib[2])] };
  const named = /^python(\d)(?:\.(\d{1,2}))?[a-z]*$/.exec(exe);
  if (named && named[1] === "3")
    return { kind: "cpython", version: named[2] !== undefined ? [3, Number(named[2])] : undefined };
  if (exe === "python" || (named && named[1] === "2") || (lib && lib[1] === "2")) {
    return named?.[1] === "2" || lib?.[1] === "2"
      ? { kind: "other-python", name: "Python 2" }
      : { kind: "cpython", version: undefined };
  }
  return { kind: "not-python" };
}
