/**
 * Series read from Prometheus → one verdict document: each subject (a container, a pod, one of memleak's watched
 * processes) judged on its own by the same engine as a recording (classify), then its findings gathered, most serious
 * first. Pure: the series come in, nothing is printed (the command, analyze-prometheus.ts, fetches and reports).
 */
import { compareFindings } from "../analysis/classify.js";
import { classify } from "../report/verdict.js";
import { warmupFor } from "../analysis/context.js";
import { SeriesBuilder, type SeriesSet } from "../series/series.js";
import type { Finding, MemoryLimit, VerdictDocument } from "../analysis/types.js";
import { subjectsOf, labelText, type SubjectSamples } from "./series-samples.js";
import type { RangeSeries } from "./range-response.js";

/** One subject's verdict, beside what it was read from: for the per-subject table. */
export interface JudgedSubject {
  subject: SubjectSamples;
  /** Its most serious finding. */
  verdict: Finding;
  samples: number;
  /** The series it was judged on (a container's with no process sums): what its gates measure. */
  set: SeriesSet;
}

export interface PrometheusAnalysis {
  doc: VerdictDocument;
  subjects: JudgedSubject[];
  /** Subjects past MAX_SUBJECTS, not judged. */
  omitted: number;
}

/**
 * The most subjects (containers, pods, processes) judged from one query: each costs ~14 ms of CPU over 6 hours at 15 s
 * beyond fetching the answer (bench §i″: 250 containers × 4 series in ~6 s of CPU, the fetch ~2.7 s of it), so a
 * cluster-wide query of tens of thousands would run for minutes. The rest are counted and said, with how to narrow the query.
 */
export const MAX_SUBJECTS = 1000;

/** Metric names that say where a cgroup's memory is (anon against page cache): without them the rules cannot tell. */
const BREAKDOWN = /^(container_memory_(rss|cache)|memleak_cgroup_(anon|file)_bytes)$/;

/** Said of every cgroup read from Prometheus: the rules weigh its anon against its cache, not its processes. */
const NO_PROCESSES =
  "read from Prometheus: the container's processes are not in these series, so the cgroup rules weigh its anonymous memory (rss) against its page cache and kernel memory, not its processes' PSS";

/**
 * A cgroup judged on its level alone (working set or usage, no rss and cache beside it): the rules then read all
 * growth as anonymous, and page cache could be it. Said, with the query that would decide it.
 */
function levelOnlyCaveat(s: SubjectSamples): string | undefined {
  if (s.kind !== "cgroup" || s.metrics.some((m) => BREAKDOWN.test(m))) return undefined;
  return "only the level was read (no container_memory_rss and container_memory_cache beside it): page cache cannot be told from anonymous memory here; query them together, by container, to apply the cgroup-artefact rule";
}

/** Everything a finding says about where it came from: the series' labels, and which of its metrics were read. */
function tagged(f: Finding, s: SubjectSamples): Finding {
  const subject = f.subject.type === "cgroup" ? { ...f.subject, path: s.name } : f.subject;
  const judged = f.subject.type === "cgroup" && f.kind !== "stable" && f.kind !== "insufficient-data";
  const caveats = judged ? [NO_PROCESSES, levelOnlyCaveat(s)].filter((c): c is string => c !== undefined) : [];
  // The limit came from a series, not a cgroup file: its countdown names the series (the version is not known).
  const limitSeries = s.metrics.find((m) => LIMIT_SERIES.has(m));
  const timeToLimit =
    f.timeToLimit && limitSeries && f.timeToLimit.limit.kind === "container"
      ? { ...f.timeToLimit, limit: { ...f.timeToLimit.limit, source: limitSeries as MemoryLimit["source"] } }
      : f.timeToLimit;
  return {
    ...f,
    ...(timeToLimit && { timeToLimit }),
    subject,
    evidence: {
      ...f.evidence,
      source: "prometheus",
      series: labelText(s.labels),
      metrics: s.metrics.map((m) => m || "(aggregated)").join(","),
    },
    caveats: [...f.caveats, ...caveats],
  };
}

/** The series a container's limit is read from (series-samples.ts KNOWN_METRICS). */
const LIMIT_SERIES = new Set(["container_spec_memory_limit_bytes", "memleak_cgroup_limit_bytes"]);

/** What a watched process is called in its finding: its command's name, and the memleak that exported it. */
const processName = (labels: Record<string, string>) =>
  `${labels.comm ?? "process"}${labels.instance ? ` on ${labels.instance}` : ""}`;

function judge(s: SubjectSamples, warmup: number | undefined): { doc: VerdictDocument; set: SeriesSet } {
  const builder = new SeriesBuilder();
  // A container's series carry no process: the tree's sums over none would be 0 at every point, which the cgroup
  // rules would read as "its processes did not grow (0 B)". Unknown is what they are: the builder does not sum them.
  if (s.kind === "cgroup") s.eachSample((sample) => builder.addCgroupReading(sample));
  else s.eachSample((sample) => builder.add(sample));
  const set = builder.set;
  // And where a sample with a process went to add() all the same, its sums go too.
  if (s.kind === "cgroup") set.tree = {};
  // A container has no process to find the warm-up on: it is found on the level judged, the cgroup's usage.
  const options = { warmup: s.kind === "cgroup" ? warmupFor(set.cgroup.cgroup, { warmup }) : warmup };
  const doc = classify({
    set,
    options,
    commands: s.kind === "process" ? new Map([[s.pid, [processName(s.labels)]]]) : undefined,
    // The cgroup version is not in cAdvisor's series; the rules read the figures, not the version.
    cgroup: s.kind === "cgroup" ? { path: s.name, version: 2 } : undefined,
    target: { pid: s.pid },
  });
  return { doc, set };
}

export function analyzePrometheus(
  series: RangeSeries[],
  options: { warmup?: number | undefined } = {},
): PrometheusAnalysis {
  const subjects: JudgedSubject[] = [];
  const findings: Finding[] = [];
  let windowDoc: VerdictDocument | undefined;
  const all = subjectsOf(series);
  for (const s of all.slice(0, MAX_SUBJECTS)) {
    const { doc, set } = judge(s, options.warmup);
    const own = doc.findings.filter((f) => !f.outsideWatchedTree).map((f) => tagged(f, s));
    const verdict = own[0] ?? tagged(doc.verdict, s);
    findings.push(...(own.length > 0 ? own : [verdict]));
    subjects.push({ subject: s, verdict, samples: set.samples, set });
    if (!windowDoc || doc.window.samples > windowDoc.window.samples) windowDoc = doc;
  }
  findings.sort(compareFindings);
  const verdict = findings[0];
  if (!verdict || !windowDoc)
    throw new Error("analyzePrometheus: no series (the command checks for an empty result first)");
  return {
    doc: {
      schema: "memleak.verdict/1",
      verdict,
      findings,
      target: { pid: verdict.pid ?? 0 },
      window: windowDoc.window,
    },
    subjects,
    omitted: Math.max(0, all.length - MAX_SUBJECTS),
  };
}
