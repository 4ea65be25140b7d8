/**
 * Every option of every command, said once: its flag, its value's placeholder, what --help says, how its text is
 * read, its default, and the commands that take it. parse.ts declares them to commander from here and builds the
 * Invocation from the values, and a unit test walks the table against --help and the parsers.
 * The rows' order is --help's order in every command; the keys are the Invocation's field names.
 */
import { GATE_METRICS } from "../gates/spec.js";
import { DEFAULT_MAX_AGENTS, DEFAULT_PSS_EVERY, DEFAULT_SMAPS_BUDGET } from "../sampling/defaults.js";
import { usageError } from "../base/errors.js";
import type { OptionSpec } from "./option-spec.js";
import {
  bytes,
  count,
  durationText,
  gateMetric,
  httpUrl,
  listenAddress,
  nonEmpty,
  path,
  percentOfCore,
  rate,
  seconds,
  size,
  trialSetting,
  verdictKinds,
} from "./option-values.js";

/** --agent-in: comma-separated PIDs, each a positive whole number (a usage error naming the option for anything else). */
function pidList(text: string, flag: string): number[] {
  return text.split(",").map((p) => {
    if (!/^\s*\d+\s*$/.test(p) || Number(p) <= 0 || !Number.isSafeInteger(Number(p)))
      throw usageError(`${flag}: "${p}" is not a PID: expected positive whole numbers separated by commas`);
    return Number(p);
  });
}

/** The commands that sample: run launches what it watches (pytest is run with a plugin), watch attaches to it. */
const SAMPLING = ["run", "watch", "pytest"] as const;
/** The commands that give a verdict, and so take gates: the sampling ones and analyze, which replays a recording. */
const JUDGING = ["run", "watch", "analyze", "pytest"] as const;

export const OPTIONS = {
  interval: {
    flag: "--interval",
    placeholder: "<duration>",
    description: "time between samples",
    default: "1s",
    commands: SAMPLING,
    parse: seconds({ atLeast: 0.05 }),
  },
  record: {
    flag: "--record",
    placeholder: "<file.jsonl>",
    description: "write every sample to this file as it is taken (JSON lines)",
    commands: SAMPLING,
    parse: path,
  },
  overwrite: {
    flag: "--overwrite",
    description: "replace the --record file if it exists (refused otherwise)",
    commands: SAMPLING,
  },
  pssEvery: {
    flag: "--pss-every",
    placeholder: "<duration>",
    description:
      "how old PSS/USS may get: each process's smaps_rollup is read again after this long, as far as --smaps-budget allows",
    default: `${DEFAULT_PSS_EVERY}s`,
    commands: SAMPLING,
    parse: seconds({ atLeast: 0.05 }),
  },
  smapsBudget: {
    flag: "--smaps-budget",
    placeholder: "<percent>",
    description:
      "most of one core that PSS/USS reads (smaps_rollup) may use; a big tree gets older PSS rather than more CPU",
    // A percentage, as the user types it (3, not 0.03); toFixed drops the float noise of 0.03 * 100.
    default: String(Number((DEFAULT_SMAPS_BUDGET * 100).toFixed(3))) + "%",
    commands: SAMPLING,
    parse: percentOfCore,
  },
  failFast: {
    flag: "--fail-fast",
    description: "stop as soon as a gate has failed and kept failing for 8 s, still writing every report",
    descriptionIn: {
      run: "stop the command (SIGTERM, then SIGKILL) as soon as a gate has failed and kept failing for 8 s, still writing every report",
      pytest:
        "stop pytest (SIGTERM, then SIGKILL) as soon as a gate has failed and kept failing for 8 s, still writing every report",
    },
    // Not analyze's: a recording cannot be stopped.
    commands: SAMPLING,
  },
  json: {
    flag: "--json",
    description: "print only the verdict document (memleak.verdict/1) on stdout",
    descriptionIn: { snapshot: "print JSON instead of tables" },
    commands: [...JUDGING, "snapshot"],
  },
  warmup: {
    flag: "--warmup",
    placeholder: "<duration>",
    // No commander default: the analysis detects the warm-up when none is given, and --help says so.
    description: "leave this much of the start out of trends and gates (default: detected)",
    commands: JUDGING,
    parse: seconds(),
  },
  maxGrowth: {
    flag: "--max-growth",
    placeholder: "<size>",
    description: "gate: fail if --metric grows by more than this after warm-up (50MiB, 1.5GB, 10%)",
    commands: JUDGING,
    parse: size,
  },
  maxRate: {
    flag: "--max-rate",
    placeholder: "<size/time>",
    description: "gate: fail if --metric grows faster than this (10MiB/h, 1MB/min)",
    commands: JUDGING,
    parse: rate,
  },
  failOn: {
    flag: "--fail-on",
    placeholder: "<kinds>",
    description: "gate: fail if any finding is of these kinds (e.g. leak,fragmentation)",
    commands: JUDGING,
    parse: verdictKinds,
  },
  minTimeToLimit: {
    flag: "--min-time-to-limit",
    placeholder: "<duration>",
    description:
      "gate: fail if a leak would reach its memory limit sooner than this, even at the slow end of its range (30m, 2h)",
    commands: JUDGING,
    parse: durationText,
  },
  metric: {
    flag: "--metric",
    placeholder: "<metric>",
    description: "what the growth and rate gates measure",
    default: "pss",
    choices: GATE_METRICS,
    commands: JUDGING,
    parse: gateMetric,
  },
  perProcess: {
    flag: "--per-process",
    description: "apply --max-growth/--max-rate to each process instead of the tree total",
    commands: JUDGING,
  },
  strict: {
    flag: "--strict",
    description: "a gate the data cannot decide (too short a run, no readings) fails the step instead of warning",
    commands: JUDGING,
  },
  html: {
    flag: "--html",
    placeholder: "<report.html>",
    description: "also write a self-contained HTML report with charts",
    commands: JUDGING,
    parse: path,
  },
  duration: {
    flag: "--duration",
    placeholder: "<duration>",
    description: "stop after this long (e.g. 10m)",
    descriptionIn: {
      run: "stop the command (SIGTERM) after this long",
      pytest: "stop pytest (SIGTERM) after this long",
    },
    commands: SAMPLING,
    parse: seconds({ atLeast: 0.1 }),
  },
  metrics: {
    flag: "--metrics",
    placeholder: "<[host:]port>",
    description:
      "serve Prometheus/OpenMetrics text on http://host:port/metrics while sampling (127.0.0.1 unless a host is given: 0.0.0.0:9464 for a scraper on another machine or pod)",
    commands: SAMPLING,
    parse: listenAddress,
  },
  prometheus: {
    flag: "--prometheus",
    placeholder: "<url>",
    description:
      "judge series from this Prometheus server instead of a recording (http://prometheus:9090; needs --query)",
    commands: ["analyze"],
    parse: httpUrl,
  },
  query: {
    flag: "--query",
    placeholder: "<promql>",
    description:
      'with --prometheus: the PromQL whose series to judge, one finding each (container_memory_working_set_bytes{namespace="ml"})',
    commands: ["analyze"],
    parse: nonEmpty,
  },
  range: {
    flag: "--range",
    placeholder: "<duration>",
    description: "with --prometheus: how far back from now to read",
    default: "1h",
    commands: ["analyze"],
    parse: seconds({ atLeast: 1 }),
  },
  step: {
    flag: "--step",
    placeholder: "<duration>",
    description: "with --prometheus: time between the points read (raised to keep 2,000 points per series)",
    default: "15s",
    commands: ["analyze"],
    parse: seconds({ atLeast: 0.001 }),
  },
  inject: {
    flag: "--no-inject",
    description: "do not load memleak's agent into the running Python processes (gdb / sys.remote_exec)",
    commands: ["watch"],
  },
  all: {
    flag: "--all",
    description:
      "load the agent into every Python of the tree, also those of other sessions or users (watch refuses such a tree without it, e.g. PID 1)",
    commands: ["watch"],
  },
  maxAgents: {
    flag: "--max-agents",
    placeholder: "<count>",
    description:
      "agents at once: where they tell something (the watched or launched process, one that grows, one per group of idle siblings); the others are read from /proc only (run: their agents stay quiet)",
    default: String(DEFAULT_MAX_AGENTS),
    commands: ["watch", "run"],
    parse: count({ atLeast: 1, atMost: 1024 }),
  },
  agentIn: {
    flag: "--agent-in",
    placeholder: "<pids>",
    description: "also load the agent into these processes of the tree, whatever they do (comma-separated PIDs)",
    commands: ["watch"],
    parse: pidList,
  },
  isolate: {
    flag: "--no-isolate",
    description: "do not put the command in a memory cgroup of its own",
    commands: ["run", "pytest"],
  },
  agent: {
    flag: "--no-agent",
    description: "do not load memleak's agent into the command's Python processes",
    commands: ["run", "pytest"],
  },
  tracePython: {
    flag: "--trace-python",
    description:
      "agent: tracemalloc from the start, report the allocation sites that grew after warm-up (slows allocation-heavy code)",
    descriptionIn: {
      watch:
        "agent: start tracemalloc in the running program for --trace-window, report the sites that grew, then stop it and free what it used (slows allocation-heavy code meanwhile)",
    },
    commands: ["run", "watch", "pytest"],
  },
  traceWindow: {
    flag: "--trace-window",
    placeholder: "<duration>",
    description:
      "with --trace-python: how long tracemalloc runs in the watched program (cut to end before --duration does)",
    default: "60s",
    commands: ["watch"],
    parse: seconds({ atLeast: 1 }),
  },
  trimProbe: {
    flag: "--trim-probe",
    description: "agent: at interpreter exit, call malloc_trim(0) and report how much memory came back",
    commands: ["run", "pytest"],
  },
  try: {
    flag: "--try",
    placeholder: "<setting>",
    description:
      "run the command as it is, then once with each setting (give --try once per setting), and compare: jemalloc, mimalloc, trim (malloc_trim every 5 s), or NAME=value (MALLOC_ARENA_MAX=2); each for --duration or to its exit",
    commands: ["run"],
    parse: trialSetting,
    repeatable: true,
  },
  failUnlessHelps: {
    flag: "--fail-unless-helps",
    description: "with --try: exit 1 when no setting tried cuts the memory past the noise",
    commands: ["run"],
  },
  traceNative: {
    flag: "--trace-native",
    description:
      "run the command under heaptrack (must be installed) and report the C/C++ call stacks that leaked (slows allocation-heavy code; run only)",
    commands: ["run"],
  },
  python: {
    flag: "--python",
    placeholder: "<interpreter>",
    description: "the Python that runs pytest (python -m pytest)",
    default: "python3",
    commands: ["pytest"],
    parse: path,
  },
  repeat: {
    flag: "--repeat",
    placeholder: "<count>",
    description:
      "call each test function this many times after the warm-up calls: a leak grows on every one, a cache filled once does not",
    default: "1",
    commands: ["pytest"],
    parse: count({ atLeast: 1, atMost: 1000 }),
  },
  warmupCalls: {
    flag: "--warmup-calls",
    placeholder: "<count>",
    description: "calls of each test before the repeats are measured (caches, imports, first-call setup)",
    default: "0",
    commands: ["pytest"],
    parse: count({ atLeast: 0, atMost: 1000 }),
  },
  maxTestGrowth: {
    flag: "--max-test-growth",
    placeholder: "<size>",
    description:
      "per-test limit: a test whose memory grows by more fails (@pytest.mark.memleak(max_growth=...) overrides it)",
    commands: ["pytest"],
    parse: bytes,
  },
  maxLeakPerCall: {
    flag: "--max-leak-per-call",
    placeholder: "<size>",
    description:
      "per-test limit: a test that leaks more per call fails (repeats it if --repeat does not; marker: max_leak_per_call)",
    commands: ["pytest"],
    parse: bytes,
  },
  root: {
    flag: "--root",
    placeholder: "<dir>",
    description: "read /proc and /sys under this directory (captured trees)",
    commands: ["snapshot", "watch"],
    hidden: true,
    parse: path,
  },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;
