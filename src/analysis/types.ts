/**
 * The verdict contract (docs/formats.md, schema/): kinds, findings, and the JSON document `--json` prints and a recording ends with.
 * Versioned as memleak.verdict/1: add fields freely, never change the meaning of one.
 */

export { VERDICT_KINDS, type VerdictKind } from "../base/verdict-kinds.js";
import type { MetricName } from "../series/metric-name.js";
import type { VerdictKind } from "../base/verdict-kinds.js";
import type { TestResult } from "../agent/pytest-results.js";
import type { NativeTrace } from "../native/native-trace.js";

/** Most serious first: the verdict of a run is its most serious finding. */
export const SEVERITY: Record<VerdictKind, number> = {
  leak: 6,
  fragmentation: 5,
  cow: 4,
  "cgroup-artefact": 3,
  plateau: 2,
  stable: 1,
  "insufficient-data": 0,
};

export type Subject =
  | {
      type: "process";
      pid: number;
      starttime: number;
      command: string;
      ppid: number;
      isRoot: boolean;
      pidInside?: number;
    }
  | { type: "tree"; processes: number }
  | { type: "cgroup"; path: string; version: 1 | 2 }
  /**
   * One CUDA device's memory of one process (signals/gpu.ts): from the agent's torch.cuda.memory_stats (`torch`,
   * the device as the process numbers it), or from the driver's per-process accounting (`driver`, nvidia-smi's).
   */
  | { type: "gpu"; pid: number; starttime: number; command: string; device: string; source: "torch" | "driver" };

export interface Rate {
  bytesPerSecond: number;
  /** Growth per hour as a percentage of the level at the start of the analyzed window. */
  percentPerHour: number;
}

export interface Finding {
  kind: VerdictKind;
  /**
   * 0–1: how sure. The rule's own score (evidence.ts), or, where a calibration curve is shipped for its family
   * (analysis/calibration.ts; none is today), how often such verdicts were right on the labelled corpus — the rule's
   * score then kept as `rawConfidence`.
   */
  confidence: number;
  subject: Subject;
  /** Present when subject is a process (or a process's GPU): the pid, at top level, as the contract promises. */
  pid?: number;
  /** The metric that decided it, and its robust growth rate over the analyzed window. */
  metric: MetricName;
  rate?: Rate;
  /** One sentence a person reads first. */
  summary: string;
  /** The numbers that prove it, by name (bytes, seconds, ratios, p-values). */
  evidence: Record<string, number | string | boolean>;
  /** Markdown from src/advice/<kind>.md, filled in with this finding's numbers. */
  advice: string;
  /** What could not be decided and why (e.g. fragmentation without the agent's numbers). */
  caveats: string[];
  /**
   * Set on the cgroup's finding when the cgroup grows but the watched processes do not explain it (other processes
   * share the cgroup): it is reported, but it is never the verdict, and so never what the gates judge.
   */
  outsideWatchedTree?: boolean;
  /**
   * The rule's own score, before calibration: the strength of its trend test and how much data it had (evidence.ts).
   * Ordered like the calibrated one, but not a probability.
   */
  rawConfidence?: number;
  /**
   * The other findings of the same subject, most serious first: a state (fragmentation, copy-on-write) beside a trend
   * (leak, plateau), each with its own evidence. This finding is the most serious of them. Absent when there is none.
   */
  alsoFound?: Finding[];
  /** With --trace-python: the Python allocation sites that grew most after warm-up (tracemalloc). */
  sites?: {
    file: string;
    line: number;
    sizeDiff: number;
    countDiff: number;
    size: number;
    function?: string;
    via?: string;
  }[];
  /** The sites are the agent's last periodic ones (run --trace-python): the process ended without its final trace. */
  sitesInterim?: true;
  /**
   * Where the sites come from when not tracemalloc: "cuda-history", the agent's window of PyTorch's caching allocator
   * history on a GPU's leak (signals/gpu-sites.ts). Each site then also has its `function`, and `via` where the
   * innermost frame is a library's.
   */
  sitesFrom?: "cuda-history";
  /**
   * On a leak of Python objects or tensors: what holds the container the agent saw grow — the chain of references
   * from a root (module global, class, thread's running frame) to it, or why the bounded search found none — and what
   * the search cost the program (signals/holder.ts).
   */
  holder?: {
    container: string;
    length: number;
    found: boolean;
    /** Items it gained a second between the two census walks that saw it grow. */
    itemsPerSecond?: number;
    /** The length is a floor (a graph's nodes counted up to the agent's bound). */
    lengthCapped?: boolean;
    /** Where its newest items keep tensors off the host ("cuda:0") and the bytes each keeps there (a GPU's leak). */
    device?: string;
    deviceBytesPerItem?: number;
    path?: string;
    root?: string;
    hops?: { kind: string; name: string }[];
    /** Where the root is assigned in its module's source (a module global, a class attribute): file and line. */
    where?: { file: string; line: number };
    why?: string;
    search: { levels: number; calls: number; objects: number; ms: number; longestPauseMs: number };
  };
  /** A leak under a limit: when the subject reaches it at the measured trend, with the range (analysis/time-to-limit.ts). */
  timeToLimit?: TimeToLimit;
  /**
   * On copy-on-write: which of the parent's containers the process holds private copies of, from its agent's look at
   * its own page flags (memleak_cow.py, signals/copied.ts), largest first, and what the look cost.
   */
  copied?: CopiedField;
}

/** How a container's pages came to be copied (signals/copied.ts `copyHow`). */
export type CopyHow = "reads" | "collector" | "writes" | "none";

export interface CopiedField {
  /** The process that looked (the finding's own, or for a tree the worker that copied most). */
  pid: number;
  objects: {
    name: string;
    what: string;
    length: number;
    bytes: number;
    /** Its bytes private to the process: items on private pages, and its own buffer's private pages. */
    private: number;
    /** Of those, in objects the garbage collector tracks and the program had not frozen. */
    tracked: number;
    how: CopyHow;
    sampled: boolean;
    /** Its items are mostly another container's of the list (`keys = list(TABLE)`): counted there. */
    sharedWith?: string;
  }[];
  /** Σ private of the objects named when it looked; the process's copying in all (its USS growth) by the end. */
  named: number;
  copied: number;
  /**
   * Its private memory (Private_Dirty) when it looked, less what the look itself made: what `named` is part of. A
   * worker copies from its fork, before memleak's first reading: USS growth alone can be a fraction of it.
   */
  privateAtLook?: number;
  /** gc.get_freeze_count() in the process. */
  frozen?: number;
  /** What the look cost: wall and CPU time, and the private memory it made itself (its own, not the program's). */
  walk: { ms?: number; cpuMs?: number; bytes?: number };
  /** Why it could not look (an interpreter whose layout memleak does not read, pagemap unreadable). */
  why?: string;
}

/** Which limit a subject's memory grows towards: the cgroup's, or the machine's memory when none is nearer. */
export interface MemoryLimit {
  kind: "container" | "machine";
  /** Where it was read: memory.max / memory.high (v2), memory.limit_in_bytes (v1), MemAvailable, or the Prometheus series. */
  source:
    | "memory.max"
    | "memory.high"
    | "memory.limit_in_bytes"
    | "MemAvailable"
    | "container_spec_memory_limit_bytes"
    | "memleak_cgroup_limit_bytes";
  /** The level of the counted memory at which it is reached, bytes (for the machine: the level now + MemAvailable). */
  bytes: number;
}

/**
 * The time until the nearest limit at the trend measured on what the kernel cannot reclaim, with the range the
 * slope's confidence interval gives. Only for a leak: a plateau, bounded growth or page cache gets none.
 */
export interface TimeToLimit {
  limit: MemoryLimit;
  /** The other limits considered, nearest first (memory.max when memory.high is nearer; the machine's memory). */
  otherLimits: MemoryLimit[];
  /** The series it is counted on, and in words ("anon + shmem + kernel", "anon"). */
  metric: MetricName;
  counted: string;
  /** The counted memory now (the trend line at the last reading), and the limit less it, bytes. */
  level: number;
  headroom: number;
  /** How far the readings rise above the trend line (95th percentile), bytes: the OOM comes at a peak. */
  swing: number;
  /** Theil–Sen slope of the counted memory and its confidence interval, bytes per second. */
  bytesPerSecond: number;
  slopeLow: number;
  slopeHigh: number;
  confidence: number;
  /** Seconds from `at` to the limit at the slope; the range from the interval (max null: the slow end may not grow). */
  seconds: number;
  secondsMin: number;
  secondsMax: number | null;
  /** The reading the projection starts from: seconds since the first sample, and Unix time in seconds when known. */
  at: number;
  atUnix?: number;
  /** One sentence: "container limit 2.00 GiB, anon + shmem 1.41 GiB, growing 1.9 MiB/s: ~5 min (4–7 min)". */
  summary: string;
}

export interface AnalysisWindow {
  /** Seconds since the start of the recording. */
  start: number;
  end: number;
  /** Seconds at the start left out of trend fitting. */
  warmup: number;
  samples: number;
  /** Mean seconds between samples. */
  interval: number;
}

export interface VerdictDocument {
  schema: "memleak.verdict/1";
  verdict: Finding;
  findings: Finding[];
  target: {
    pid: number;
    command?: string[];
    /** For `run`: how the command ended. */
    exitCode?: number | null;
    signal?: string | null;
    /** Why sampling stopped: the target exited, --duration passed, or memleak was interrupted. */
    stopReason?: "exited" | "duration" | "interrupted" | "gate-failed";
    /** The memory cgroup read, and whether it was created for this run alone. */
    cgroup?: { path: string; version: 1 | 2; isolated: boolean; container?: true } | { error: string };
    /** `watch` of a process in a container (another PID namespace): its pid inside; `pid` is always the host's. */
    pidInside?: number;
  };
  window: AnalysisWindow;
  /**
   * Set by run/watch/analyze: each gate checked, its result (pass, fail, or inconclusive when the data could not
   * decide it), and whether it lets the step pass (an inconclusive gate does, unless --strict).
   */
  gates?: {
    name: string;
    subject?: string;
    result: "pass" | "fail" | "inconclusive";
    passed: boolean;
    message: string;
  }[];
  /** Set by run/watch: how the sampling went — what memleak's numbers are worth, and what they cost. */
  sampling?: SamplingFacts;
  /** Set when the pytest plugin ran (`memleak pytest`): each test's growth, per call, kind and limit. */
  tests?: TestResult[];
  /** Set by `run --trace-native`: the C/C++ stacks heaptrack saw leak (the run was traced, so slower). */
  nativeTrace?: NativeTrace;
}

export interface SamplingFacts {
  /** Seconds between samples asked for (--interval). */
  interval: number;
  ticks: number;
  /** Ticks that started half an interval or more behind their schedule (the machine, or memleak, was busy). */
  lateTicks: number;
  /** Target age of PSS/USS (--pss-every), seconds. */
  pssEvery: number;
  /** How old PSS/USS were at the ticks, seconds (median and maximum over every process at every tick). */
  pssAge?: { median: number; max: number };
  /** memleak's own CPU over the session (user + system), as a share of one core. */
  cpuShare: number;
  /**
   * The driver's per-process GPU memory (nvidia-smi, system/gpu-driver.ts): read, or why not, in one line. A machine
   * without an NVIDIA driver says so here and nowhere else.
   */
  gpu?: { driver: "read" | "unavailable"; note: string; reads: number };
  /**
   * `watch`: where its agents were at the end and why (analysis/agent-placement.ts), at most `max` at once, and
   * how many Python processes were read from /proc only.
   */
  agents?: {
    max: number;
    in: {
      pid: number;
      reason: "watched" | "grows" | "copies" | "larger" | "alone" | "represents" | "sibling";
      siblings: number;
    }[];
    readFromProc: number;
  };
}

export type { MetricName };
