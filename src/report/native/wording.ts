/**
 * The words every report uses for `run --trace-native`'s stacks (terminal, HTML, step summary): what a stack's site
 * is, how a frame reads, and the sentence that says the run was traced and what was not claimed. Pure.
 */
import type { NativeFrame, NativeLeakStack, NativeTrace } from "../../native/native-trace.js";
import { formatBytes } from "../../base/units.js";

const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** "leaky_fn (leaky.c:6, leaky.cpython-311-x86_64-linux-gnu.so)"; a ctypes/cffi call says so. */
export function siteText(s: NativeLeakStack): string {
  if (s.viaFfi)
    return `an allocation function called from Python through ctypes/cffi (${basename(s.site.module ?? "libffi")})`;
  return frameText(s.site);
}

/** "leaky_fn (leaky.c:6, leaky.cpython-311-x86_64-linux-gnu.so)": the source file and library by their names. */
export function frameText(f: NativeFrame): string {
  const where = [
    f.file !== undefined ? `${basename(f.file)}${f.line !== undefined ? `:${f.line}` : ""}` : undefined,
    f.module !== undefined ? basename(f.module) : undefined,
  ].filter(Boolean);
  return where.length ? `${f.function} (${where.join(", ")})` : f.function;
}

/** "21.0 MiB allocated after warm-up and never freed, over 336 calls, PID 18699" */
export function amountText(s: NativeLeakStack): string {
  return `${formatBytes(s.bytes)} allocated after warm-up and never freed, over ${s.count.toLocaleString("en-US")} calls, PID ${s.pid}`;
}

/** The frames left out above those shown: CPython running Python code, which heaptrack can only name as C. */
export function leftOutText(s: NativeLeakStack): string {
  return `… ${s.framesLeftOut} more frame${s.framesLeftOut === 1 ? "" : "s"} above: the interpreter running Python code (heaptrack sees C frames only; --trace-python names the Python lines)`;
}

/** Says the run was traced, with what, and what was seen but not claimed. */
export function tracedText(t: NativeTrace): string {
  const seen = `traced with ${t.tool} (--trace-native): ${t.processes} process${t.processes === 1 ? "" : "es"}, the command slowed by the tracing`;
  const rest = `${formatBytes(t.neverFreedBytes)} never freed by exit, ${formatBytes(t.runtimeBytes)} of it the C library's and the interpreter's own or allocated before the end of warm-up (not a leak)`;
  return `${seen}; ${rest}`;
}

/** When nothing is claimed: no stack named. */
export function noStacksText(t: NativeTrace): string {
  return t.processes === 0
    ? "no traced process left a trace (a static or setuid program ignores LD_PRELOAD; python -I/-S skips memleak's sitecustomize)"
    : "no C/C++ stack kept leaking after warm-up: what was never freed is the runtime's own or was allocated once at start-up";
}
