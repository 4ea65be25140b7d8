/**
 * `memleak analyze --prometheus URL --query PROMQL [--range 6h] [--step 15s]`: read the query's series over the range
 * from Prometheus, judge each subject with the same engine as a recording, and report the verdict per subject and the
 * most serious one, with the same gates and exit codes as `analyze` of a recording.
 */
import { EXIT, MemleakError } from "../base/errors.js";
import { gateVerdict } from "../gates/gate-verdict.js";
import type { GateOptions } from "../gates/spec.js";
import { chooseStep, queryRange, serverText } from "../prometheus/query-range.js";
import { isOwnBookkeeping } from "../prometheus/series-samples.js";
import { renderSeriesVerdicts } from "../report/terminal/series-verdicts.js";
import { safeText } from "../base/safe-text.js";
import { formatDuration } from "../base/units.js";
import type { VerdictDocument } from "../analysis/types.js";
import { analyzePrometheus, MAX_SUBJECTS } from "../prometheus/verdicts.js";
import { gatesExitCode } from "../gates/exit-policy.js";
import { report } from "../session/finish.js";
import type { CommandIO, CommandResult } from "../base/command-io.js";

export interface AnalyzePrometheusOptions {
  prometheus: { url: URL; query: string; range: number; step: number };
  json: boolean;
  warmup?: number | undefined;
  gates: GateOptions;
}

export async function analyzePrometheusCommand(
  o: AnalyzePrometheusOptions,
  io: CommandIO,
  now = Date.now(),
  fetchImpl?: typeof fetch,
): Promise<CommandResult & { doc: VerdictDocument }> {
  const { url, query, range } = o.prometheus;
  const where = serverText(url);
  const step = chooseStep(range, o.prometheus.step);
  if (step.raised) {
    io.stderr(
      `memleak: --range ${formatDuration(range)} at --step ${formatDuration(o.prometheus.step)} would be ${Math.floor(range / o.prometheus.step) + 1} points per series; reading one every ${formatDuration(step.step)} instead (downsampled by Prometheus)\n`,
    );
  }
  const end = now / 1000;
  const result = await queryRange({ url, query, start: end - range, end, step: step.step }, fetchImpl);
  for (const w of result.warnings) io.stderr(`memleak: warning: Prometheus: ${w}\n`);
  const bookkeeping = result.series.filter(isOwnBookkeeping);
  if (bookkeeping.length > 0) {
    const names = [...new Set(bookkeeping.map((s) => s.labels.__name__))];
    io.stderr(
      `memleak: left out ${bookkeeping.length} series of memleak's own that are not memory figures (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""})\n`,
    );
  }
  const series = result.series.filter((s) => s.ts.length > 0 && !isOwnBookkeeping(s));
  if (series.length === 0) {
    throw new MemleakError(
      `Prometheus at ${where} has no data for ${safeText(query)} over the last ${formatDuration(range)} (check the query in Prometheus's own UI)`,
      EXIT.cannotObserve,
    );
  }
  const { doc, subjects, omitted } = analyzePrometheus(series, { warmup: o.warmup });
  if (omitted > 0) {
    io.stderr(
      `memleak: warning: judged the first ${MAX_SUBJECTS} of ${MAX_SUBJECTS + omitted} subjects the query returned; narrow it (a namespace, a pod regex) or aggregate (sum by (pod)) to judge the rest\n`,
    );
  }
  // Growth and rate gates measure the headline subject's series; --fail-on reads every finding.
  const headline = subjects.find((s) => s.verdict === doc.verdict) ?? subjects[0]!;
  const set = headline.set;
  // A container's series have no processes to sum: its growth and rate gates measure its usage (the gate's message
  // says "cgroup usage"), never an empty Σ that would pass as 0 B.
  const onContainer =
    headline.subject.kind === "cgroup" && o.gates.metric !== "cgroup" && o.gates.metric !== "working-set";
  gateVerdict(doc, set, onContainer ? { ...o.gates, metric: "cgroup" } : o.gates);
  if (!o.json)
    io.stdout(
      renderSeriesVerdicts(
        subjects.map((s) => ({ name: s.subject.name, verdict: s.verdict })),
        io.color,
        Math.max(60, io.columns ?? 80),
      ),
    );
  // Then the headline's report, about its own subject (the table has the rest), drawn from its series; the gate lines
  // and GitHub's notes as for a recording. --json prints every finding.
  report(o.json ? doc : { ...doc, findings: [doc.verdict] }, o.json, io, { set });
  return { exitCode: gatesExitCode(doc), doc };
}
