/**
 * c. Verdicts: how soon memleak gives the right answer, and how often it cries wolf.
 *   - time to verdict of the leak scenarios (real processes, replayed from their recordings);
 *   - the synthetic figure: a 1 MB/s leak on a 10 MB baseline with ±5 MB Gaussian noise at 1 Hz, judged by
 *     classify() after every sample: when it says `leak` for the process and keeps saying it, over 10 seeds;
 *   - false positives: the steady scenarios run for minutes, their recordings judged after every sample;
 *   - a CI step: a 1 MiB/s leak under `memleak run --fail-on leak --fail-fast` at the default 1 s interval, 10 runs:
 *     when the leak was first called (after its warm-up) and when the job was stopped.
 */
import { classify } from "../../dist/report/verdict.js";
import { SeriesBuilder } from "../../dist/series/series.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discoverScenarios, runScenario } from "../lib/scenarios.mjs";
import { replay, timeToVerdict } from "../lib/replay.mjs";
import { MB } from "../../build/support/test/helpers/synthetic.js";
import { synthesize } from "../../build/support/test/helpers/synthetic-samples.js";
import { exec, median, MEMLEAK, pool } from "../lib/util.mjs";

const LEAK_PID = 100;

/**
 * Seconds after which every judgement said "leak, PID 100" until the end of the window; undefined if never.
 * Judged after every sample for the first `denseS` seconds (where the answer lies, to the second), then every 5 s
 * as a live session does: the trend tests are O(n²) in the samples, and 600 judgements of up to 600 samples per
 * seed would take minutes.
 */
export function syntheticTimeToLeak(seed, seconds = 600, denseS = 120) {
  const samples = synthesize({
    seconds,
    seed,
    processes: [
      {
        pid: LEAK_PID,
        ppid: 1,
        anon: { baseline: 10 * MB, noise: 5 * MB, shape: { kind: "linear", bytesPerSecond: 1 * MB } },
      },
    ],
  });
  const builder = new SeriesBuilder();
  let since;
  let lastJudged = -Infinity;
  for (const s of samples) {
    builder.add(s);
    const t = builder.set.duration;
    if (t > denseS && t - lastJudged < 5 && s !== samples.at(-1)) continue;
    lastJudged = t;
    const doc = classify({
      set: builder.set,
      options: {},
      cgroup: { path: "/synthetic", version: 2 },
      target: { pid: LEAK_PID },
    });
    const leak = doc.verdict.kind === "leak" && doc.verdict.pid === LEAK_PID;
    if (leak) since ??= t;
    else since = undefined;
  }
  return since;
}

/** A Python program keeping 1 MiB a second, in tenths, for `seconds`: the "clean 1 MiB/s leak". */
const LEAK_1MIB = (seconds) =>
  `import time\nkeep = []\nend = time.time() + ${seconds}\nwhile time.time() < end:\n    keep.append(bytearray(104858))\n    time.sleep(0.1)`;

/**
 * One CI step: `memleak run --fail-on leak --fail-fast --json --record` on a 120 s 1 MiB/s leak, at the default
 * interval. Returns when the leak was first called for good (its recording judged after every sample, as the live
 * session does in its first 30 s), less the warm-up, and the job's wall time to exit.
 */
export async function ciStep() {
  const dir = mkdtempSync(join(tmpdir(), "memleak-bench-ci-"));
  try {
    const rec = join(dir, "r.jsonl");
    const r = await exec([
      process.execPath,
      MEMLEAK,
      "run",
      "--fail-on",
      "leak",
      "--fail-fast",
      "--json",
      "--record",
      rec,
      "--",
      "python3",
      "-c",
      LEAK_1MIB(120),
    ]);
    const doc = JSON.parse(r.stdout);
    const rp = await replay(rec, { from: 0, every: 0 });
    const called = timeToVerdict(rp.interim, `leak:${doc.verdict.pid}`);
    return {
      code: r.code,
      stopped: r.wallMs / 1000,
      calledAfterWarmup: called === undefined ? undefined : called - doc.window.warmup,
      warmup: doc.window.warmup,
      stopReason: doc.target.stopReason,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function verdicts({ fpSeconds, seeds = 10, ciRuns = 10, log = () => {} }) {
  const all = discoverScenarios();
  const leaks = all.filter((s) => s.expect === "leak");
  // Steady programs: those that end stable, and those still settling in a short recording (gc_cycles_raised).
  const steady = all.filter((s) => s.expect === "stable" || s.expect === "insufficient-data");

  log(`verdicts: synthetic 1 MB/s leak, ${seeds} seeds`);
  const synthetic = Array.from({ length: seeds }, (_, i) => syntheticTimeToLeak(i + 1));
  const found = synthetic.filter((t) => t !== undefined);

  log(`verdicts: leak scenarios (${leaks.map((s) => s.name).join(", ")})`);
  const leakRuns = await pool(leaks, 2, (sc) => runScenario(sc));

  log(`verdicts: ${ciRuns} CI steps, a 1 MiB/s leak under --fail-on leak --fail-fast`);
  const ci = [];
  for (let i = 0; i < ciRuns; i++) ci.push(await ciStep());

  log(
    `verdicts: ${fpSeconds} s of the steady scenarios (${steady.map((s) => s.name).join(", ")}), judged after every sample`,
  );
  // MEMLEAK_BENCH_KEEP=dir keeps these recordings (10 minutes each): a false call is looked into on the recording that made it.
  const keep = process.env.MEMLEAK_BENCH_KEEP;
  const steadyRuns = await pool(steady, 2, (sc) =>
    runScenario(sc, {
      args: [String(fpSeconds)],
      from: 0,
      every: 0,
      ...(keep && { record: join(keep, `${sc.name}.jsonl`) }),
    }),
  );

  return {
    synthetic: {
      seeds,
      found: found.length,
      median: median(found),
      max: found.length === seeds ? Math.max(...found) : undefined,
      each: synthetic,
    },
    leakRuns,
    ci: {
      runs: ci,
      called: {
        median: median(ci.map((c) => c.calledAfterWarmup).filter((t) => t !== undefined)),
        max: Math.max(...ci.map((c) => c.calledAfterWarmup ?? Infinity)),
      },
      stopped: { median: median(ci.map((c) => c.stopped)), max: Math.max(...ci.map((c) => c.stopped)) },
      allFailed: ci.every((c) => c.code === 1 && c.stopReason === "gate-failed"),
    },
    falsePositives: steadyRuns.map((r) => ({
      name: r.sc.name,
      final: r.got,
      ok: r.ok,
      duration: r.duration,
      interim: r.interim?.length ?? 0,
      leak: r.interim?.filter((i) => i.kind === "leak").length ?? 0,
      earlyLeak: r.interim?.filter((i) => i.kind === "leak" && i.early).length ?? 0,
      other: r.interim?.filter((i) => i.kind !== "leak" && i.kind !== r.sc.expect).length ?? 0,
      error: r.error,
    })),
  };
}
