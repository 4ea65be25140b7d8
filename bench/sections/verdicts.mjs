/**
 * c. Verdicts: how soon memleak gives the right answer, and how often it cries wolf.
 *   - time to verdict of the leak scenarios (real processes, replayed from their recordings);
 *   - the synthetic figure: a 1 MB/s leak on a 10 MB baseline with ±5 MB Gaussian noise at 1 Hz, judged by
 *     classify() after every sample: when it says `leak` for the process and keeps saying it, over 10 seeds;
 *   - false positives: the steady scenarios run for minutes, their interim verdicts (every 5 s) counted.
 */
import { classify } from "../../dist/analysis/classify.js";
import { SeriesBuilder } from "../../dist/analysis/series.js";
import { discoverScenarios, runScenario } from "../lib/scenarios.mjs";
import { MB } from "../../build/support/test/support/synthetic.js";
import { synthesize } from "../../build/support/test/support/synthetic-samples.js";
import { median, pool } from "../lib/util.mjs";

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
    processes: [{ pid: LEAK_PID, ppid: 1, anon: { baseline: 10 * MB, noise: 5 * MB, shape: { kind: "linear", bytesPerSecond: 1 * MB } } }],
  });
  const builder = new SeriesBuilder();
  let since;
  let lastJudged = -Infinity;
  for (const s of samples) {
    builder.add(s);
    const t = builder.set.duration;
    if (t > denseS && t - lastJudged < 5 && s !== samples.at(-1)) continue;
    lastJudged = t;
    const doc = classify({ set: builder.set, options: {}, cgroup: { path: "/synthetic", version: 2 }, target: { pid: LEAK_PID } });
    const leak = doc.verdict.kind === "leak" && doc.verdict.pid === LEAK_PID;
    if (leak) since ??= t;
    else since = undefined;
  }
  return since;
}

export async function verdicts({ fpSeconds, seeds = 10, log = () => {} }) {
  const all = discoverScenarios();
  const leaks = all.filter((s) => s.expect === "leak");
  const steady = all.filter((s) => s.expect === "stable");

  log(`verdicts: synthetic 1 MB/s leak, ${seeds} seeds`);
  const synthetic = Array.from({ length: seeds }, (_, i) => syntheticTimeToLeak(i + 1));
  const found = synthetic.filter((t) => t !== undefined);

  log(`verdicts: leak scenarios (${leaks.map((s) => s.name).join(", ")})`);
  const leakRuns = await pool(leaks, 2, (sc) => runScenario(sc));

  log(`verdicts: ${fpSeconds} s of the steady scenarios (${steady.map((s) => s.name).join(", ")})`);
  const steadyRuns = await pool(steady, 2, (sc) => runScenario(sc, { args: [String(fpSeconds)], every: 5 }));

  return {
    synthetic: { seeds, found: found.length, median: median(found), max: found.length === seeds ? Math.max(...found) : undefined, each: synthetic },
    leakRuns,
    falsePositives: steadyRuns.map((r) => ({
      name: r.sc.name,
      final: r.got,
      ok: r.ok,
      duration: r.duration,
      interim: r.interim?.length ?? 0,
      leak: r.interim?.filter((i) => i.kind === "leak").length ?? 0,
      other: r.interim?.filter((i) => i.kind !== "leak" && i.kind !== r.sc.expect).length ?? 0,
      error: r.error,
    })),
  };
}
