/**
 * What --help shows beyond each option's line: the options in groups (what to watch, gates, output, sampling, agent),
 * the short flags peers' users expect (py-spy and memray: -d duration, -i interval, -o output file), the units every
 * option reads, and examples for each command. The examples are run as they are written by test/e2e/help.test.ts.
 */
import type { CommandName } from "./option-spec.js";
import type { OptionName } from "./options.js";

const SAMPLING = "Sampling:";
const GATES = "Gates (exit code 1 when one fails):";
const OUTPUT = "Output:";
const AGENT = "Python agent:";
const TARGET = "What to watch:";
const PROMETHEUS = "Prometheus (analyze --prometheus):";
const PYTEST = "Per test (the pytest plugin):";
const TRIALS = "Allocator settings, measured (run --try):";

/** Each option's group in --help; one not named here stays under commander's "Options:". */
export const HELP_GROUP: Partial<Record<OptionName, string>> = {
  root: TARGET,
  isolate: TARGET,
  python: PYTEST,
  repeat: PYTEST,
  warmupCalls: PYTEST,
  maxTestGrowth: PYTEST,
  maxLeakPerCall: PYTEST,
  interval: SAMPLING,
  duration: SAMPLING,
  warmup: SAMPLING,
  pssEvery: SAMPLING,
  smapsBudget: SAMPLING,
  failOn: GATES,
  maxGrowth: GATES,
  maxRate: GATES,
  minTimeToLimit: GATES,
  metric: GATES,
  perProcess: GATES,
  strict: GATES,
  failFast: GATES,
  json: OUTPUT,
  record: OUTPUT,
  overwrite: OUTPUT,
  html: OUTPUT,
  metrics: OUTPUT,
  agent: AGENT,
  inject: AGENT,
  all: AGENT,
  maxAgents: AGENT,
  agentIn: AGENT,
  tracePython: AGENT,
  trimProbe: AGENT,
  try: TRIALS,
  failUnlessHelps: TRIALS,
  prometheus: PROMETHEUS,
  query: PROMETHEUS,
  range: PROMETHEUS,
  step: PROMETHEUS,
};

/** Short flags, as py-spy record (-d duration, -o output) and top/vmstat users (-i interval) know them; no clashes with -h/-V. */
export const SHORT_FLAG: Partial<Record<OptionName, string>> = {
  interval: "-i",
  duration: "-d",
  record: "-o",
};

/** How every duration, size and rate option reads its value: the same units for each. */
const UNITS = `Units:
  durations  500ms, 30s, 10m, 1h30m; a bare number is seconds (--interval 2 = 2s)
  sizes      512KiB, 50MiB, 1.5GB (--max-growth also 10%)
  rates      10MiB/h, 1MB/min`;

/** Examples, one command a line with what it does above it; each runs as written from the repository's root. */
export const EXAMPLES: Record<CommandName, { what: string; argv: string }[]> = {
  run: [
    {
      what: "Follow a script and its children until it exits, then give the verdict",
      argv: "memleak run -- python3 fixtures/scenarios/leak_main.py 5",
    },
    {
      what: "Fail a CI step on a leak, keep the samples and an HTML report",
      argv: "memleak run --fail-on leak -o run.jsonl --html report.html -- python3 fixtures/scenarios/steady_noisy.py 5",
    },
    {
      what: "Run it as it is, then with MALLOC_ARENA_MAX=2, then with malloc_trim every 5 s, 4 s each; compare",
      argv: "memleak run --try MALLOC_ARENA_MAX=2 --try trim -d 4s -- python3 fixtures/scenarios/thread_arenas.py 4",
    },
    {
      what: "Stop the command after 3 seconds (SIGTERM; memleak exits with its status), sampling twice a second",
      argv: "memleak run -d 3s -i 500ms -- sleep 10",
    },
  ],
  watch: [
    { what: "Watch a running process and its children for 3 seconds", argv: "memleak watch -d 3s $PID" },
    { what: "Until Ctrl-C, failing on a leak, the verdict as JSON", argv: "memleak watch --fail-on leak --json $PID" },
  ],
  snapshot: [
    { what: "One reading of a process tree and its memory cgroup", argv: "memleak snapshot $PID" },
    { what: "The same as JSON", argv: "memleak snapshot --json $PID" },
  ],
  pytest: [
    {
      what: "Each test's memory growth, five calls each",
      argv: "memleak pytest --repeat 5 -- -q fixtures/pytest-suite/test_growth.py",
    },
    {
      what: "Fail a test whose memory grows by more than 10 MiB",
      argv: "memleak pytest --max-test-growth 10MiB -- fixtures/pytest-suite/test_steady.py",
    },
  ],
  analyze: [
    { what: "Analyze a recording again, offline", argv: "memleak analyze fixtures/recordings/leak_main.jsonl" },
    {
      what: "With a gate and an HTML report",
      argv: "memleak analyze --fail-on leak --html report.html fixtures/recordings/fork_cow.jsonl",
    },
    {
      what: "Judge a container's memory from Prometheus",
      argv: "memleak analyze --prometheus http://prometheus:9090 --query 'container_memory_working_set_bytes{pod=\"x\"}'",
    },
  ],
};

/** The text --help shows after a command's options: its examples, and the units where it takes durations or sizes. */
export function helpAfter(command: CommandName): string {
  const examples = EXAMPLES[command].map((e) => `  # ${e.what}\n  ${e.argv}`).join("\n\n");
  return `\nExamples:\n${examples}\n${command === "snapshot" ? "" : `\n${UNITS}\n`}`;
}
