/**
 * argv → what to do, without running anything: a pure function, testable without spawning.
 * commander is told never to exit or print by itself; its output and errors come back in the result. The options are
 * the table's (options.ts); every value is read through its row's parser here, so a malformed size or duration is a
 * usage error (exit 2) before anything starts. What is left here is the commands and the checks across options.
 */
import { Command, CommanderError } from "commander";
import { addOptions, optionReader, type OptionReader } from "./commander-options.js";
import { parsePid } from "./pid-argument.js";
import { refuseXdist } from "./pytest-args.js";
import type { PytestFlags } from "../commands/pytest.js";
import { VERSION } from "../base/version.js";
import { MemleakError, usageError } from "../base/errors.js";
import type { GateOptions } from "../gates/spec.js";
import type { ListenAddress } from "./option-values.js";
import { helpAfter } from "./help-text.js";
import type { SettingRequest } from "../trial/setting-text.js";

export interface SessionFlags {
  interval: number;
  duration: number | undefined;
  record: string | undefined;
  /** Replace an existing --record file (refused otherwise: two runs must not overwrite each other silently). */
  overwrite: boolean;
  json: boolean;
  warmup: number | undefined;
  gates: GateOptions;
  smapsBudget: number;
  /** Target age of PSS/USS, seconds (--pss-every). */
  pssEvery: number;
  html: string | undefined;
  /** --metrics: where to serve /metrics while sampling. */
  metrics: ListenAddress | undefined;
}

/**
 * --try and its gate: the gate alone is a mistake to say, not a switch to ignore. `intervalGiven`: whether --interval
 * was typed, for the trials' own default (run-trials.ts trialInterval).
 */
function trialFlags(tries: SettingRequest[], failUnlessHelps: boolean, intervalGiven: boolean) {
  if (failUnlessHelps && tries.length === 0)
    throw usageError(
      "--fail-unless-helps judges the settings --try compares: give --try SETTING (jemalloc, MALLOC_ARENA_MAX=2, …)",
    );
  return { tries, failUnlessHelps, intervalGiven };
}

/** `analyze --prometheus URL --query PROMQL`: range data from a Prometheus server instead of a recording. */
export interface PrometheusSource {
  url: URL;
  query: string;
  /** Seconds back from now. */
  range: number;
  /** Seconds between points. */
  step: number;
}

export type Invocation =
  | { kind: "snapshot"; pid: number; json: boolean; root: string | undefined }
  | ({
      kind: "watch";
      pid: number;
      root: string | undefined;
      inject: boolean;
      /** --all: inject into processes of other sessions or users of the tree too. */
      all: boolean;
      /** --max-agents: agents at once. */
      maxAgents: number;
      /** --agent-in: processes that get an agent whatever they do. */
      agentIn: number[] | undefined;
      tracePython: boolean;
      traceWindow: number;
    } & SessionFlags)
  | ({
      kind: "run";
      command: string[];
      isolate: boolean;
      agent: boolean;
      /** --max-agents: agents reporting at once (the others quiet). */
      maxAgents: number;
      tracePython: boolean;
      trimProbe: boolean;
      traceNative: boolean;
      /** --try: the settings to compare the command with (none: one run, as usual). */
      tries: SettingRequest[];
      failUnlessHelps: boolean;
      /** Whether --interval was typed (not its default). */
      intervalGiven: boolean;
    } & SessionFlags)
  | ({
      kind: "pytest";
      pytestArgs: string[];
      python: string;
      isolate: boolean;
      tracePython: boolean;
      trimProbe: boolean;
    } & PytestFlags &
      SessionFlags)
  | {
      kind: "analyze";
      file: string | undefined;
      prometheus: PrometheusSource | undefined;
      json: boolean;
      warmup: number | undefined;
      gates: GateOptions;
      html: string | undefined;
    }
  | { kind: "print"; text: string; exitCode: 0 }
  | { kind: "error"; message: string; exitCode: 2 };

/** What commander hands an action: the options' values as it collected them, by attribute name. */
type Collected = Record<string, unknown>;

/**
 * The order of the reads is the order in which errors are found: --smaps-budget first, then the durations, the gates
 * and --pss-every last (kept as it was when each option was validated by hand).
 */
function sessionFlags(read: OptionReader<"run" | "watch" | "pytest">): SessionFlags {
  const smapsBudget = read("smapsBudget");
  return {
    interval: read("interval"),
    duration: read("duration"),
    record: read("record"),
    overwrite: read("overwrite"),
    json: read("json"),
    warmup: read("warmup"),
    gates: gateOptions(read, read("failFast")),
    smapsBudget,
    pssEvery: read("pssEvery"),
    html: read("html"),
    metrics: read("metrics"),
  };
}

/** A recording or a Prometheus query, exactly one of them. */
function analyzeSource(file: string | undefined, read: OptionReader<"analyze">): PrometheusSource | undefined {
  const url = read("prometheus");
  const query = read("query");
  const range = read("range");
  const step = read("step");
  if (url === undefined) {
    if (query !== undefined) throw usageError("--query needs --prometheus <url>: the server to ask");
    if (file === undefined)
      throw usageError("analyze needs a recording (memleak analyze run.jsonl) or --prometheus <url> --query <promql>");
    return undefined;
  }
  if (file !== undefined)
    throw usageError(`analyze reads a recording or --prometheus, not both: drop ${file} or --prometheus`);
  if (query === undefined) throw usageError("--prometheus needs --query <promql>: the series to judge");
  if (step > range) throw usageError(`--step ${step}s is longer than --range ${range}s: no two points to judge`);
  return { url, query, range, step };
}

/** `failFast`: only the sampling commands have --fail-fast (a recording cannot be stopped). */
function gateOptions(read: OptionReader<"run" | "watch" | "analyze" | "pytest">, failFast = false): GateOptions {
  const metric = read("metric");
  const perProcess = read("perProcess");
  const g: GateOptions = { metric, perProcess };
  // A gate not asked for is an absent key, not an undefined one, as GateOptions has always been built.
  const maxGrowth = read("maxGrowth");
  if (maxGrowth !== undefined) g.maxGrowth = maxGrowth;
  const maxRate = read("maxRate");
  if (maxRate !== undefined) g.maxRate = maxRate;
  const failOn = read("failOn");
  if (failOn !== undefined) g.failOn = failOn;
  const minTimeToLimit = read("minTimeToLimit");
  if (minTimeToLimit !== undefined) g.minTimeToLimit = minTimeToLimit;
  const warmup = read("warmup");
  if (warmup !== undefined) g.warmup = warmup;
  if (read("strict")) g.strict = true;
  if (failFast) {
    if (!g.maxGrowth && !g.maxRate && !g.failOn && !g.minTimeToLimit)
      throw usageError(
        "--fail-fast stops at the first failed gate: give one (--fail-on, --max-growth, --max-rate or --min-time-to-limit)",
      );
    g.failFast = true;
  }
  if (perProcess && (metric === "cgroup" || metric === "working-set")) {
    throw usageError(`--per-process: the ${metric} metric belongs to the cgroup, not to a process`);
  }
  return g;
}

function quiet(cmd: Command, output: { text: string }): Command {
  return cmd.exitOverride().configureOutput({
    writeOut: (s) => (output.text += s),
    writeErr: (s) => (output.text += s),
    outputError: () => {},
  });
}

type OnAction = (inv: Invocation) => void;
type Output = { text: string };

export function buildProgram(onAction: OnAction, output: Output): Command {
  const program = quiet(
    new Command("memleak")
      .description("Why does the memory of your Python/PyTorch process or container keep growing?")
      .version(VERSION)
      .showSuggestionAfterError(true)
      // The command list shows each command's own usage: `run [options] -- <command> [args...]`, with the -- it needs.
      .configureHelp({ subcommandTerm: (cmd) => `${cmd.name()} ${cmd.usage().replace("[options] ", "")}` })
      .enablePositionalOptions(),
    output,
  );
  // The order of the commands is the order of the help's command list.
  addSnapshotCommand(program, onAction, output);
  addWatchCommand(program, onAction, output);
  addRunCommand(program, onAction, output);
  addPytestCommand(program, onAction, output);
  addAnalyzeCommand(program, onAction, output);
  return program;
}

function addSnapshotCommand(program: Command, onAction: OnAction, output: Output): void {
  addOptions(quiet(program.command("snapshot"), output), "snapshot")
    .addHelpText("after", helpAfter("snapshot"))
    .description("one reading of a process tree: RSS/PSS/USS/anon/file/shmem/swap per process, and its memory cgroup")
    .argument("<pid>", "the process to read (its descendants are included)")
    .action((pidText: string, o: Collected) => {
      const read = optionReader<"snapshot">(o);
      onAction({ kind: "snapshot", pid: parsePid(pidText), json: read("json"), root: read("root") });
    });
}

function addWatchCommand(program: Command, onAction: OnAction, output: Output): void {
  addOptions(quiet(program.command("watch"), output), "watch")
    .addHelpText("after", helpAfter("watch"))
    .description(
      "attach to a running process and its descendants; sample until Ctrl-C, --duration or exit; give the verdict",
    )
    .argument("<pid>", "the process to watch")
    // heaptrack's own --help calls attaching to a running process UNSTABLE ("can lead to CRASHES"): not offered here.
    .addHelpText(
      "after",
      "\nNative (C/C++) leak stacks: `memleak run --trace-native -- <command>` only; watch does not offer them, because\nattaching heaptrack to a running process can crash it (heaptrack's own warning).",
    )
    .action((pidText: string, o: Collected) => onAction(watchInvocation(pidText, optionReader<"watch">(o))));
}

function watchInvocation(pidText: string, read: OptionReader<"watch">): Invocation {
  const inject = read("inject");
  const tracePython = read("tracePython");
  if (!inject && tracePython) throw usageError("--trace-python needs the agent in the program: drop --no-inject");
  const all = read("all");
  if (!inject && all) throw usageError("--all chooses where the agent goes: drop it or --no-inject");
  const agentIn = read("agentIn");
  if (!inject && agentIn) throw usageError("--agent-in chooses where the agent goes: drop it or --no-inject");
  return {
    kind: "watch",
    pid: parsePid(pidText),
    root: read("root"),
    inject,
    all,
    maxAgents: read("maxAgents"),
    agentIn,
    tracePython,
    traceWindow: read("traceWindow"),
    ...sessionFlags(read),
  };
}

function addRunCommand(program: Command, onAction: OnAction, output: Output): void {
  addOptions(quiet(program.command("run"), output), "run")
    .addHelpText("after", helpAfter("run"))
    .description(
      "launch a command, follow it and its children until it exits, give the verdict; exit 1 when a gate fails",
    )
    .usage("[options] -- <command> [args...]")
    .argument("<command...>", "the command and its arguments (after --)")
    .passThroughOptions()
    .action((command: string[], o: Collected, cmd: Command) =>
      onAction(runInvocation(command, optionReader<"run">(o), cmd.getOptionValueSource("interval") === "cli")),
    );
}

/** `intervalGiven`: whether --interval was typed (trialFlags). */
function runInvocation(command: string[], read: OptionReader<"run">, intervalGiven: boolean): Invocation {
  const agent = read("agent");
  const tracePython = read("tracePython");
  const trimProbe = read("trimProbe");
  if (!agent && (tracePython || trimProbe))
    throw usageError("--trace-python and --trim-probe need the agent: drop --no-agent");
  return {
    kind: "run",
    command,
    isolate: read("isolate"),
    agent,
    maxAgents: read("maxAgents"),
    tracePython,
    trimProbe,
    traceNative: read("traceNative"),
    ...trialFlags(read("try"), read("failUnlessHelps"), intervalGiven),
    ...sessionFlags(read),
  };
}

function addPytestCommand(program: Command, onAction: OnAction, output: Output): void {
  addOptions(quiet(program.command("pytest"), output), "pytest")
    .addHelpText("after", helpAfter("pytest"))
    .description(
      "run pytest with memleak's plugin: each test's memory growth, per call with --repeat, per-test limits; the run's verdict too",
    )
    .usage("[options] -- [pytest arguments...]")
    .argument("[pytest-args...]", "pytest's arguments (after --)")
    .passThroughOptions()
    .action((pytestArgs: string[], o: Collected) => onAction(pytestInvocation(pytestArgs, optionReader<"pytest">(o))));
}

function pytestInvocation(pytestArgs: string[], read: OptionReader<"pytest">): Invocation {
  const flags: PytestFlags = {
    repeat: read("repeat"),
    warmupCalls: read("warmupCalls"),
    maxTestGrowth: read("maxTestGrowth"),
    maxLeakPerCall: read("maxLeakPerCall"),
  };
  refuseXdist(pytestArgs);
  // The plugin is loaded from the agent's directory and reports each test through the agent's socket.
  if (!read("agent"))
    throw usageError(
      "memleak pytest needs the agent (its plugin reports each test through it): drop --no-agent, or use memleak run --no-agent -- python -m pytest … for the run's verdict alone",
    );
  return {
    kind: "pytest",
    pytestArgs,
    python: read("python"),
    isolate: read("isolate"),
    tracePython: read("tracePython"),
    trimProbe: read("trimProbe"),
    ...flags,
    ...sessionFlags(read),
  };
}

function addAnalyzeCommand(program: Command, onAction: OnAction, output: Output): void {
  addOptions(quiet(program.command("analyze"), output), "analyze")
    .addHelpText("after", helpAfter("analyze"))
    .description("re-analyze a recording made with --record, offline; or judge series from Prometheus (--prometheus)")
    .argument("[recording.jsonl]", "the recording (not with --prometheus)")
    .action((file: string | undefined, o: Collected) => onAction(analyzeInvocation(file, optionReader<"analyze">(o))));
}

function analyzeInvocation(file: string | undefined, read: OptionReader<"analyze">): Invocation {
  const prometheus = analyzeSource(file, read);
  if (prometheus && read("html") !== undefined)
    throw usageError("--html draws a recording's series: not with --prometheus (Grafana draws those)");
  return {
    kind: "analyze",
    file,
    prometheus,
    json: read("json"),
    warmup: read("warmup"),
    gates: gateOptions(read),
    html: read("html"),
  };
}

/** argv without the node and script entries (process.argv.slice(2)). */
export function parseCLI(args: string[]): Invocation {
  let invocation: Invocation | undefined;
  const output = { text: "" };
  const program = buildProgram((inv) => (invocation = inv), output);
  try {
    program.parse(args, { from: "user" });
  } catch (err) {
    if (err instanceof MemleakError) return { kind: "error", message: err.message, exitCode: 2 };
    if (err instanceof CommanderError) {
      // Help and version (asked for, or shown because no command was given) are output, not errors.
      if (err.exitCode === 0 || err.code === "commander.help") return { kind: "print", text: output.text, exitCode: 0 };
      return { kind: "error", message: err.message.replace(/^error: /, ""), exitCode: 2 };
    }
    throw err;
  }
  if (invocation) return invocation;
  return { kind: "print", text: program.helpInformation(), exitCode: 0 };
}
