/**
 * argv → what to do, without running anything: a pure function, testable without spawning.
 * commander is told never to exit or print by itself; its output and errors come back in the result. Every value is
 * validated here, so a malformed size or duration is a usage error (exit 2) before anything starts.
 */
import { Command, CommanderError, Option } from "commander";
import { parsePid } from "./pid-argument.js";
import { VERSION } from "../version.js";
import { MemleakError, usageError } from "../errors.js";
import { parseDuration, parseRate, parseSize } from "../units.js";
import { GATE_METRICS, parseKinds, type GateMetric, type GateOptions } from "../gate-spec.js";
import { DEFAULT_PSS_EVERY, DEFAULT_SMAPS_BUDGET } from "../sampling-defaults.js";

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
}

export type Invocation =
  | { kind: "snapshot"; pid: number; json: boolean; root: string | undefined }
  | ({ kind: "watch"; pid: number; root: string | undefined; inject: boolean } & SessionFlags)
  | ({ kind: "run"; command: string[]; isolate: boolean; agent: boolean; tracePython: boolean; trimProbe: boolean } & SessionFlags)
  | { kind: "analyze"; file: string; json: boolean; warmup: number | undefined; gates: GateOptions; html: string | undefined }
  | { kind: "print"; text: string; exitCode: 0 }
  | { kind: "error"; message: string; exitCode: 2 };

interface RawSession {
  interval: string;
  duration?: string;
  record?: string;
  overwrite?: boolean;
  json?: boolean;
  warmup?: string;
  maxGrowth?: string;
  maxRate?: string;
  failOn?: string;
  metric: string;
  perProcess?: boolean;
  smapsBudget: string;
  pssEvery: string;
  html?: string;
  strict?: boolean;
  failFast?: boolean;
}

function orThrow<T>(r: { ok: true; value: T } | { ok: false; message: string }, option: string): T {
  if (!r.ok) throw usageError(`${option}: ${r.message}`);
  return r.value;
}

function seconds(text: string | undefined, option: string, min = 0): number | undefined {
  if (text === undefined) return undefined;
  const v = orThrow(parseDuration(text), option);
  if (v < min) throw usageError(`${option}: must be at least ${min}s`);
  return v;
}

function gateOptions(o: Omit<RawSession, "interval" | "smapsBudget" | "pssEvery" | "duration" | "record">): GateOptions {
  if (!(GATE_METRICS as readonly string[]).includes(o.metric)) {
    throw usageError(`--metric: "${o.metric}" is not a metric: choose from ${GATE_METRICS.join(", ")}`);
  }
  const g: GateOptions = { metric: o.metric as GateMetric, perProcess: Boolean(o.perProcess) };
  if (o.maxGrowth !== undefined) g.maxGrowth = orThrow(parseSize(o.maxGrowth), "--max-growth");
  if (o.maxRate !== undefined) g.maxRate = { bytesPerSecond: orThrow(parseRate(o.maxRate), "--max-rate"), text: o.maxRate };
  if (o.failOn !== undefined) g.failOn = orThrow(parseKinds(o.failOn), "--fail-on");
  const w = seconds(o.warmup, "--warmup");
  if (w !== undefined) g.warmup = w;
  if (o.strict) g.strict = true;
  if (o.failFast) {
    if (!g.maxGrowth && !g.maxRate && !g.failOn) throw usageError("--fail-fast stops at the first failed gate: give one (--fail-on, --max-growth or --max-rate)");
    g.failFast = true;
  }
  if (o.perProcess && (o.metric === "cgroup" || o.metric === "working-set")) {
    throw usageError(`--per-process: the ${o.metric} metric belongs to the cgroup, not to a process`);
  }
  return g;
}

function sessionFlags(o: RawSession): SessionFlags {
  const budgetPercent = Number(String(o.smapsBudget).replace(/%$/, ""));
  if (!Number.isFinite(budgetPercent) || budgetPercent <= 0 || budgetPercent > 100) {
    throw usageError(`--smaps-budget: "${o.smapsBudget}" is not a percentage of one core between 0 and 100`);
  }
  return {
    interval: seconds(o.interval, "--interval", 0.05)!,
    duration: seconds(o.duration, "--duration", 0.1),
    record: o.record,
    overwrite: Boolean(o.overwrite),
    json: Boolean(o.json),
    warmup: seconds(o.warmup, "--warmup"),
    gates: gateOptions(o),
    smapsBudget: budgetPercent / 100,
    pssEvery: seconds(o.pssEvery, "--pss-every", 0.05)!,
    html: o.html,
  };
}

function addGateOptions(cmd: Command): Command {
  return cmd
    .option("--json", "print only the verdict document (memleak.verdict/1) on stdout")
    .option("--warmup <duration>", "leave this much of the start out of trends and gates (default: detected)")
    .option("--max-growth <size>", "gate: fail if --metric grows by more than this after warm-up (50MiB, 1.5GB, 10%)")
    .option("--max-rate <size/time>", "gate: fail if --metric grows faster than this (10MiB/h, 1MB/min)")
    .option("--fail-on <kinds>", "gate: fail if any finding is of these kinds (e.g. leak,fragmentation)")
    .addOption(new Option("--metric <metric>", "what the growth and rate gates measure").choices([...GATE_METRICS]).default("pss"))
    .option("--per-process", "apply --max-growth/--max-rate to each process instead of the tree total")
    .option("--strict", "a gate the data cannot decide (too short a run, no readings) fails the step instead of warning")
    .option("--html <report.html>", "also write a self-contained HTML report with charts");
}

function addSessionOptions(cmd: Command): Command {
  return addGateOptions(
    cmd
      .option("--interval <duration>", "time between samples", "1s")
      .option("--record <file.jsonl>", "write every sample to this file as it is taken (JSON lines)")
      .option("--overwrite", "replace the --record file if it exists (refused otherwise)")
      .option("--pss-every <duration>", "how old PSS/USS may get: each process's smaps_rollup is read again after this long, as far as --smaps-budget allows", `${DEFAULT_PSS_EVERY}s`)
      .option("--smaps-budget <percent>", "most of one core that PSS/USS reads (smaps_rollup) may use; a big tree gets older PSS rather than more CPU", String(Number((DEFAULT_SMAPS_BUDGET * 100).toFixed(3))))
      .option("--fail-fast", "stop as soon as a gate has failed and kept failing for 8 s (run: the command gets SIGTERM, then SIGKILL), still writing every report"),
  );
}

function quiet(cmd: Command, output: { text: string }): Command {
  return cmd.exitOverride().configureOutput({ writeOut: (s) => (output.text += s), writeErr: (s) => (output.text += s), outputError: () => {} });
}

function buildProgram(onAction: (inv: Invocation) => void, output: { text: string }): Command {
  const program = quiet(
    new Command("memleak")
      .description("Why does the memory of your Python/PyTorch process or container keep growing?")
      .version(VERSION)
      .showSuggestionAfterError(true)
      .enablePositionalOptions(),
    output,
  );

  quiet(program.command("snapshot"), output)
    .description("one reading of a process tree: RSS/PSS/USS/anon/file/shmem/swap per process, and its memory cgroup")
    .argument("<pid>", "the process to read (its descendants are included)")
    .option("--json", "print JSON instead of tables")
    .addOption(new Option("--root <dir>", "read /proc and /sys under this directory (captured trees)").hideHelp())
    .action((pidText: string, o: { json?: boolean; root?: string }) => {
      onAction({ kind: "snapshot", pid: parsePid(pidText), json: Boolean(o.json), root: o.root });
    });

  addSessionOptions(
    quiet(program.command("watch"), output)
      .description("attach to a running process and its descendants; sample until Ctrl-C, --duration or exit; give the verdict")
      .argument("<pid>", "the process to watch"),
  )
    .option("--duration <duration>", "stop after this long (e.g. 10m)")
    .option("--no-inject", "do not load memleak's agent into the running Python processes (gdb / sys.remote_exec)")
    .addOption(new Option("--root <dir>").hideHelp())
    .action((pidText: string, o: RawSession & { root?: string; inject: boolean }) => {
      onAction({ kind: "watch", pid: parsePid(pidText), root: o.root, inject: o.inject !== false, ...sessionFlags(o) });
    });

  addSessionOptions(
    quiet(program.command("run"), output)
      .description("launch a command, follow it and its children until it exits, give the verdict; exit 1 when a gate fails")
      .usage("[options] -- <command> [args...]")
      .argument("<command...>", "the command and its arguments (after --)")
      .passThroughOptions(),
  )
    .option("--duration <duration>", "stop the command (SIGTERM) after this long")
    .option("--no-isolate", "do not put the command in a memory cgroup of its own")
    .option("--no-agent", "do not load memleak's agent into the command's Python processes")
    .option("--trace-python", "agent: tracemalloc from the start, report the allocation sites that grew after warm-up (slows allocation-heavy code)")
    .option("--trim-probe", "agent: at interpreter exit, call malloc_trim(0) and report how much memory came back")
    .action((command: string[], o: RawSession & { isolate: boolean; agent: boolean; tracePython?: boolean; trimProbe?: boolean }) => {
      if (!o.agent && (o.tracePython || o.trimProbe)) throw usageError("--trace-python and --trim-probe need the agent: drop --no-agent");
      onAction({ kind: "run", command, isolate: o.isolate, agent: o.agent, tracePython: Boolean(o.tracePython), trimProbe: Boolean(o.trimProbe), ...sessionFlags(o) });
    });

  addGateOptions(
    quiet(program.command("analyze"), output)
      .description("re-analyse a recording made with --record, offline")
      .argument("<recording.jsonl>", "the recording"),
  ).action((file: string, o: Omit<RawSession, "interval" | "smapsBudget" | "pssEvery">) => {
    onAction({ kind: "analyze", file, json: Boolean(o.json), warmup: seconds(o.warmup, "--warmup"), gates: gateOptions(o), html: o.html });
  });

  return program;
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
