/**
 * `memleak run --try SETTING … -- <command>`: the command run as it is, then once per setting, one after another,
 * each for --duration or to its exit and each judged as `run` judges; then the trials side by side (trial/compare.ts)
 * and the setting to use, or, for a leak, that no setting helps. One after another, not side by side: two copies of
 * a program compete for the same cores and page cache, and each would slow the other's growth.
 *
 * Ctrl-C stops the trial under way and the ones after it: the trials that ran are compared.
 */
import { hostname, release } from "node:os";
import { HostFs } from "../system/host-fs.js";
import { requireLinux } from "../system/target.js";
import { resolveCommand } from "../system/launch.js";
import { checkOutputPath } from "../session/output-paths.js";
import { runCommand, type RunOptions } from "./run.js";
import type { CommandIO, CommandResult } from "../base/command-io.js";
import { EXIT, usageError } from "../base/errors.js";
import { shellExitCode } from "../gates/exit-policy.js";
import {
  BASELINE,
  resolveSettings,
  settingEnv,
  settingHow,
  type SettingRequest,
  type TrialSetting,
} from "../trial/settings.js";
import { EffectWatch } from "../trial/in-effect.js";
import { compareRuns, failedOnItsOwn, type TrialResult, type TrialRun } from "../trial/compare.js";
import { helpsGate, trialsDocument } from "../trial/trials-document.js";
import { renderTrials } from "../report/trials/trials-text.js";
import { trialsStepSummary } from "../report/trials/trials-summary.js";
import { gateAnnotations } from "../report/github.js";
import { renderTrialsHtml } from "../report/html/trials-page.js";
import { appendStepSummary, jsonText, writeHtmlFile } from "../session/finish.js";
import { safeText } from "../base/safe-text.js";
import { formatDuration } from "../base/units.js";

export interface TrialOptions extends RunOptions {
  tries: SettingRequest[];
  /** --fail-unless-helps: exit 1 when no setting tried helps. */
  failUnlessHelps: boolean;
  /** Whether --interval was typed: if not, trialInterval chooses it. */
  intervalGiven?: boolean;
}

/** Samples a trial of known duration is given when --interval was not typed. */
export const TRIAL_SAMPLES = 80;
/** …but never more often than this, seconds. */
export const TRIAL_MIN_INTERVAL = 0.25;

/**
 * Each trial's sampling interval: --interval where it was typed; else, for trials of a known duration, TRIAL_SAMPLES
 * readings a trial (never under TRIAL_MIN_INTERVAL nor over the default). Each trial is judged as `run` judges, which
 * needs 20 samples after the warm-up: 20 s trials at the 1 s default judged both remedies of thread_arenas.py
 * "insufficient-data 0%" (15 samples after its 4.8 s warm-up), in the table beside their effect. Pure.
 */
export function trialInterval(duration: number | undefined, interval: number, given: boolean): number {
  if (given || duration === undefined) return interval;
  return Math.min(interval, Math.max(TRIAL_MIN_INTERVAL, duration / TRIAL_SAMPLES));
}

/** Options that judge or shape one run: with --try there are several, compared instead. */
function refuseSingleRunOptions(o: TrialOptions): void {
  const g = o.gates;
  const gate = g.failOn
    ? "--fail-on"
    : g.maxGrowth
      ? "--max-growth"
      : g.maxRate
        ? "--max-rate"
        : g.minTimeToLimit
          ? "--min-time-to-limit"
          : g.failFast
            ? "--fail-fast"
            : undefined;
  if (gate) throw usageError(`${gate} judges one run: with --try the gate is --fail-unless-helps (or drop --try)`);
  if (o.traceNative)
    throw usageError("--trace-native preloads heaptrack, which --try's allocators would replace: not with --try");
  if (o.metrics) throw usageError("--metrics serves one run's series: not with --try");
}

/** run.jsonl → run.as-it-is.jsonl, run.jemalloc.jsonl, run.MALLOC_ARENA_MAX-2.jsonl. */
export function trialRecordPath(path: string, setting: string): string {
  const slug = setting.replace(/[^A-Za-z0-9_.]+/g, "-").replace(/^-|-$/g, "");
  const dot = path.endsWith(".jsonl") ? path.length - ".jsonl".length : path.length;
  return `${path.slice(0, dot)}.${slug}${path.slice(dot) || ".jsonl"}`;
}

export async function runTrials(o: TrialOptions, io: CommandIO): Promise<CommandResult> {
  requireLinux("run", io.platform);
  refuseSingleRunOptions(o);
  resolveCommand(o.command[0] ?? "", io.env);
  const settings = [BASELINE, ...resolveSettings(o.tries)];
  if (settings.some((s) => s.kind === "trim") && !o.agent)
    throw usageError("--try trim: the agent calls malloc_trim: drop --no-agent");
  const records = settings.map((s) => (o.record ? trialRecordPath(o.record, s.text) : undefined));
  for (const r of records) checkOutputPath(r, "--record", !o.overwrite);
  checkOutputPath(o.html, "--html");
  if (o.duration === undefined)
    io.stderr("memleak: no --duration: each trial runs until the command exits (Ctrl-C stops the trials)\n");
  const interval = trialInterval(o.duration, o.interval, o.intervalGiven ?? true);
  if (interval !== o.interval)
    io.stderr(
      `memleak: each trial sampled every ${formatDuration(interval)}, enough readings in ${formatDuration(o.duration!)} to judge it (--interval sets it)\n`,
    );

  const fs = new HostFs();
  // run forwards the signal to the command; here it also means: no trial after this one.
  let interrupted = false;
  const unsubscribe = io.onSignal(() => (interrupted = true));
  try {
    return await trialsFrom({ ...o, interval }, io, fs, settings, records, () => interrupted);
  } finally {
    unsubscribe();
  }
}

async function trialsFrom(
  o: TrialOptions,
  io: CommandIO,
  fs: HostFs,
  settings: TrialSetting[],
  records: (string | undefined)[],
  interrupted: () => boolean,
): Promise<CommandResult> {
  const ran: TrialRun[] = [];
  for (const [i, setting] of settings.entries()) {
    io.stderr(
      `memleak: trial ${i + 1} of ${settings.length}: ${safeText(setting.text)} (${safeText(settingHow(setting))})\n`,
    );
    const effect = new EffectWatch(fs, setting);
    const r = await runCommand(
      {
        ...o,
        record: records[i],
        html: undefined,
        extraEnv: { ...o.extraEnv, ...settingEnv(setting, { ...io.env, ...o.extraEnv }) },
        onStarted: (pid) => effect.start(pid),
        silentReport: true,
      },
      io,
    );
    const v = r.doc.verdict;
    io.stderr(
      `memleak: ${safeText(setting.text)}: ${v.kind} (${Math.round(v.confidence * 100)}%): ${safeText(v.summary)}\n`,
    );
    ran.push({ setting, doc: r.doc, set: r.set, exit: r.targetExit, inEffect: effect.finish(r.set) });
    if (interrupted()) {
      if (i + 1 < settings.length)
        io.stderr(`memleak: interrupted: the ${settings.length - i - 1} trial(s) after it not run\n`);
      break;
    }
  }
  const cmp = compareRuns(ran);
  const gates = o.failUnlessHelps ? [helpsGate(cmp)] : undefined;
  const doc = trialsDocument(cmp, o.command, records, gates);
  const command = safeText(o.command.join(" "));
  if (o.json) io.stdout(jsonText(doc) + "\n");
  else io.stdout(renderTrials(cmp, command, io.color, Math.max(60, io.columns ?? 80)));
  for (const g of gates ?? []) if (!g.passed) io.stderr(`memleak: gate ${g.name} failed: ${safeText(g.message)}\n`);
  if (io.env.GITHUB_ACTIONS === "true" && gates) {
    // As run's and watch's failed gates (session/finish.ts): on stderr under --json, whose stdout is the document.
    const notes = gateAnnotations(gates)
      .map((l) => l + "\n")
      .join("");
    if (o.json) io.stderr(notes);
    else io.stdout(notes);
  }
  appendStepSummary(io, () => trialsStepSummary(cmp, doc, command));
  if (o.html)
    writeHtmlFile(o.html, () =>
      renderTrialsHtml(
        cmp,
        command,
        ran.map((t) => t.set),
        { hostname: hostname(), kernel: release() },
      ),
    );
  return { exitCode: trialsExitCode(gates, cmp.trials) };
}

/** A failed gate wins; else a trial whose command failed on its own passes its status on, as `run` does. */
function trialsExitCode(gates: { passed: boolean }[] | undefined, results: TrialResult[]): number {
  if (gates?.some((g) => !g.passed)) return EXIT.gateFailed;
  const failed = results.find(failedOnItsOwn);
  return failed ? shellExitCode(failed.exit) : EXIT.ok;
}
