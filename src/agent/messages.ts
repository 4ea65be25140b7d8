/**
 * What the agent may send, checked field by field. Anything else is dropped: the agent runs inside someone else's
 * program, so its messages are data to validate, never to trust. The end-of-run results are the analysis's inputs and
 * are declared there (agent/agent-results.ts).
 */
import type {
  CowResult,
  GpuOomResult,
  GpuSitesResult,
  HolderResult,
  TraceResult,
  TraceSite,
  TrimResult,
} from "./agent-results.js";
import { parseCow } from "./cow-message.js";
import { parseGpuOom, parseGpuSites } from "./gpu-sites-message.js";
import { parseHolder } from "./holder-message.js";
import type { TestMark } from "./pytest-results.js";
import { isNum, parseTestMark } from "./pytest-messages.js";
import { GPU_MAX_FIELDS } from "../sampling/gpu-fields.js";

export interface AgentReport {
  type: "report";
  pid: number;
  t: number;
  /** Numbers (and the allocator's name) as recorded in Sample.agent[pid]. */
  data: {
    threads?: number;
    py?: Record<string, number>;
    malloc?: Record<string, number | string>;
    torch?: Record<string, number | string>;
    /** The agent's walk over the objects the GC tracks: container items, the largest container, live CPU tensors. */
    census?: Record<string, number | string>;
    /** The CUDA caching allocator's bytes and counters per device the process uses ("cuda0Allocated"): src/sampling/gpu-fields.ts. */
    gpu?: Record<string, number>;
  };
}

export type AgentMessage =
  | {
      type: "hello";
      pid: number;
      python?: string;
      /** A worker forked under `run`: its agent waits, quiet, for memleak's word before it reports (run-agents.ts). */
      quiet?: true;
      /**
       * Under `run`: the signal whose handler this process installed before forking (memleak_lifecycle.py _install_wake);
       * its forked workers' agents sleep, unconnected, until memleak sends it to them (run-agents.ts).
       */
      wake?: number;
    }
  | AgentReport
  | TraceResult
  | TrimResult
  | TestMark
  | HolderResult
  | CowResult
  | GpuSitesResult
  | GpuOomResult;

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9]{0,39}$/;
/** Field names already found well-formed: agents send the same few dozen every second (bounded: names are data). */
const knownNames = new Set<string>();

function wellFormed(name: string): boolean {
  if (knownNames.has(name)) return true;
  if (!FIELD_NAME.test(name)) return false;
  if (knownNames.size < 4096) knownNames.add(name);
  return true;
}

/** A flat object of numbers (and short strings where allowed), nothing nested, bounded in size. */
function flat(v: unknown, allowStrings: boolean, maxFields = 40): Record<string, number | string> | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  // A well-formed object (nearly every report's) is kept as JSON.parse made it; only one with a field to drop is
  // copied: the copies of 64 reports a second were garbage to collect (BENCHMARKS §g‴).
  if (allWell(o, allowStrings, maxFields)) return o as Record<string, number | string>;
  const out: Record<string, number | string> = {};
  let fields = 0;
  // for…in, not Object.entries(…).slice: the same fields in the same order (JSON.parse's objects have only their own),
  // without two arrays per object of every report.
  for (const k in o) {
    if (fields++ >= maxFields) break;
    if (!wellFormed(k)) continue;
    const x = o[k];
    if (allowed(x, allowStrings)) out[k] = x as number | string;
  }
  return out;
}

function allowed(x: unknown, allowStrings: boolean): boolean {
  return isNum(x) || (allowStrings && typeof x === "string" && x.length <= 200);
}

/** Every field of `o` is one flat() keeps, and there are at most `maxFields`. */
function allWell(o: Record<string, unknown>, allowStrings: boolean, maxFields: number): boolean {
  let fields = 0;
  for (const k in o) if (++fields > maxFields || !wellFormed(k) || !allowed(o[k], allowStrings)) return false;
  return true;
}

function site(v: unknown): TraceSite | undefined {
  const s = v as Record<string, unknown>;
  if (
    !s ||
    typeof s.file !== "string" ||
    s.file.length > 500 ||
    !isNum(s.line) ||
    !isNum(s.sizeDiff) ||
    !isNum(s.countDiff) ||
    !isNum(s.size)
  )
    return undefined;
  return { file: s.file, line: s.line, sizeDiff: s.sizeDiff, countDiff: s.countDiff, size: s.size };
}

/** watch --trace-python's window: four numbers, or nothing. */
function traceWindow(v: unknown): TraceResult["window"] {
  const w = v as Record<string, unknown> | null;
  if (!w || typeof w !== "object") return undefined;
  const { seconds, cpuShare, cpuShareBefore, overheadBytes } = w;
  return isNum(seconds) && isNum(cpuShare) && isNum(cpuShareBefore) && isNum(overheadBytes)
    ? { seconds, cpuShare, cpuShareBefore, overheadBytes }
    : undefined;
}

export function parseAgentMessage(line: string): AgentMessage | undefined {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!m || typeof m !== "object" || !isNum(m.pid) || m.pid <= 0 || !Number.isInteger(m.pid)) return undefined;
  const pid = m.pid;
  const t = isNum(m.t) ? m.t : 0;
  switch (m.type) {
    case "hello":
      return {
        type: "hello",
        pid,
        ...(typeof m.python === "string" && { python: m.python.slice(0, 40) }),
        ...(m.quiet === true && { quiet: true as const }),
        // A real-time signal's number (Linux: 34-64): nothing else is ever sent to a program's process.
        ...(Number.isInteger(m.wake) &&
          (m.wake as number) >= 34 &&
          (m.wake as number) <= 64 && { wake: m.wake as number }),
      };
    case "report": {
      const data: AgentReport["data"] = {};
      if (isNum(m.threads)) data.threads = m.threads;
      const py = flat(m.py, false);
      if (py) data.py = py as Record<string, number>;
      const malloc = flat(m.malloc, true);
      if (malloc) data.malloc = malloc;
      const torch = flat(m.torch, true);
      if (torch) data.torch = torch;
      const census = flat(m.census, true);
      if (census) data.census = census;
      const gpu = flat(m.gpu, false, GPU_MAX_FIELDS);
      if (gpu) data.gpu = gpu as Record<string, number>;
      return { type: "report", pid, t, data };
    }
    case "trace": {
      if (!Array.isArray(m.sites) || !isNum(m.traced) || !isNum(m.tracedPeak)) return undefined;
      const sites = m.sites
        .slice(0, 20)
        .map(site)
        .filter((s): s is TraceSite => s !== undefined);
      const window = traceWindow(m.window);
      return {
        type: "trace",
        pid,
        t,
        sites,
        traced: m.traced,
        tracedPeak: m.tracedPeak,
        ...(window && { window }),
        ...(m.interim === true && { interim: true }),
      };
    }
    case "trim":
      if (!isNum(m.anonBefore) || !isNum(m.anonAfter)) return undefined;
      return { type: "trim", pid, t, anonBefore: m.anonBefore, anonAfter: m.anonAfter };
    case "test-start":
    case "test-end":
      return parseTestMark(m, pid, t);
    case "holder":
      return parseHolder(m, pid, t);
    case "cow":
      return parseCow(m, pid, t);
    case "gpu-sites":
      return parseGpuSites(m, pid, t);
    case "gpu-oom":
      return parseGpuOom(m, pid, t);
    default:
      return undefined;
  }
}
