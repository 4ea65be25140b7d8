/**
 * The gauges `--metrics` serves, kept up to date from each sample and the verdict so far (prom-client writes the
 * exposition format). Label sets stay bounded however long the watch: each update replaces every per-process series
 * with those of the processes alive now, at most MAX_EXPORTED_PROCESSES of them (the root, then the largest), so a pool
 * that starts a worker a second does not grow Prometheus's series without end.
 */
import { Counter, Gauge, Registry } from "prom-client";
import type { Finding, VerdictDocument } from "../analysis/types.js";
import type { ProcessSample, Sample } from "../system/sample.js";
import { VERDICT_KINDS } from "../base/verdict-kinds.js";
import { processKey } from "../sampling/process-key.js";
import { CGROUP_GAUGES, PROCESS_GAUGES, type AgentReport } from "./metric-table.js";
import { GPU_GAUGES, gpuReadings } from "./gpu-gauges.js";

/**
 * The most processes exported: a few hundred series (13 gauges each) per memleak, within what a Prometheus scrape of
 * one target comfortably takes; the rest are counted in memleak_unexported_processes.
 */
export const MAX_EXPORTED_PROCESSES = 50;

const PROCESS_LABELS = ["pid", "comm"] as const;
const SUBJECT_LABELS = ["subject", "pid", "device"] as const;

/** Which processes get series: the root first, then the largest by RSS, MAX_EXPORTED_PROCESSES at most. */
export function exportedProcesses(
  processes: readonly ProcessSample[],
  rootPid: number,
  max = MAX_EXPORTED_PROCESSES,
): ProcessSample[] {
  const rank = (p: ProcessSample) => (p.pid === rootPid ? Infinity : (p.rss ?? 0));
  return [...processes].sort((a, b) => rank(b) - rank(a)).slice(0, max);
}

/** The labels a finding is exported under: its subject's type, and the pid when it is a process ("" otherwise). */
const subjectLabels = (f: Finding) => ({
  subject: f.subject.type,
  pid: f.subject.type === "process" || f.subject.type === "gpu" ? String(f.subject.pid) : "",
  // A process's GPU findings are one per device: the device tells them apart.
  ...(f.subject.type === "gpu" && { device: f.subject.device }),
});

export class SessionMetrics {
  /** Prometheus's text format (0.0.4), and OpenMetrics 1.0 for scrapers that ask for it: the same gauges in both. */
  readonly prometheus = new Registry();
  readonly openMetrics = new Registry<"application/openmetrics-text; version=1.0.0; charset=utf-8">();
  private readonly processGauges: Gauge<(typeof PROCESS_LABELS)[number]>[];
  private readonly gpuGauges: Gauge<(typeof PROCESS_LABELS)[number] | "device">[];
  private readonly cgroupGauges: Gauge<"cgroup">[];
  private readonly verdict: Gauge<"kind" | (typeof SUBJECT_LABELS)[number]>;
  private readonly confidence: Gauge<(typeof SUBJECT_LABELS)[number]>;
  private readonly rate: Gauge<(typeof SUBJECT_LABELS)[number] | "metric">;
  private readonly findings: Gauge<"kind" | (typeof SUBJECT_LABELS)[number]>;
  /** Time to the memory limit of each leaking subject: the estimate, and the range's two ends (time-to-limit.ts). */
  private readonly toLimit: Gauge<(typeof SUBJECT_LABELS)[number] | "limit">[];
  private readonly samples: Counter;
  private readonly watched: Gauge;
  private readonly unexported: Gauge;
  /** The pids exported at the last sample. */
  private exported: ReadonlySet<number> = new Set();
  /**
   * Each process's PSS and USS as last read: smaps_rollup is read under a budget, on some ticks only, and a gauge set
   * only on those would vanish from every other scrape (a gappy series for Prometheus and for analyze --prometheus).
   */
  private readonly lastSmaps = new Map<string, { pss: number; uss: number | undefined }>();

  /** The memory cgroup read, once known (`run` chooses it after the server is listening). */
  cgroupPath: string | undefined;
  /** `watch` of a container: host pid → its pid inside (the attacher's, kept up to date as processes appear). */
  pidsInside: ReadonlyMap<number, number> | undefined;
  private readonly pidInside: Gauge<(typeof PROCESS_LABELS)[number]>;

  constructor() {
    this.openMetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const registers = [this.prometheus, this.openMetrics];
    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Gauge<L>({ name, help, labelNames, registers });
    this.processGauges = PROCESS_GAUGES.map((g) => gauge(g.name, g.help, PROCESS_LABELS));
    this.gpuGauges = GPU_GAUGES.map((g) => gauge(g.name, g.help, [...PROCESS_LABELS, "device"] as const));
    this.cgroupGauges = CGROUP_GAUGES.map((g) => gauge(g.name, g.help, ["cgroup"] as const));
    this.verdict = gauge(
      "memleak_verdict",
      "The verdict so far: 1 for its kind, 0 for the others, about its subject (process with its pid, tree, cgroup)",
      ["kind", ...SUBJECT_LABELS],
    );
    this.confidence = gauge("memleak_verdict_confidence", "How sure the verdict so far is, 0-1", SUBJECT_LABELS);
    this.rate = gauge(
      "memleak_verdict_growth_rate_bytes_per_second",
      "Robust growth rate of the metric that decided the verdict so far",
      [...SUBJECT_LABELS, "metric"],
    );
    this.findings = gauge(
      "memleak_finding",
      "Each finding so far (one per judged process, the tree and the cgroup): 1 for its kind",
      ["kind", ...SUBJECT_LABELS],
    );
    this.toLimit = [
      gauge(
        "memleak_seconds_to_limit",
        "Seconds until a leaking subject reaches its memory limit at its trend (limit: memory.max, memory.high, memory.limit_in_bytes or MemAvailable), counted on what the kernel cannot reclaim",
        [...SUBJECT_LABELS, "limit"],
      ),
      gauge(
        "memleak_seconds_to_limit_soonest",
        "The soonest end of memleak_seconds_to_limit's range (the slope's confidence interval, the highest peaks)",
        [...SUBJECT_LABELS, "limit"],
      ),
      gauge(
        "memleak_seconds_to_limit_latest",
        "The latest end of memleak_seconds_to_limit's range; absent when that end does not grow",
        [...SUBJECT_LABELS, "limit"],
      ),
    ];
    this.samples = new Counter({ name: "memleak_samples_total", help: "Samples memleak has taken", registers });
    this.watched = gauge("memleak_watched_processes", "Processes in the watched tree at the last sample");
    this.pidInside = gauge(
      "memleak_process_pid_inside",
      "For a process in a container (another PID namespace): its pid there; the pid label is the host's",
      PROCESS_LABELS,
    );
    this.unexported = gauge(
      "memleak_unexported_processes",
      `Processes alive but not exported (only the root and the ${MAX_EXPORTED_PROCESSES - 1} largest are)`,
    );
    // memleak's own cost, read when scraped.
    new Counter({
      name: "memleak_self_cpu_seconds_total",
      help: "CPU time memleak itself has used (user + system)",
      registers,
      collect() {
        const u = process.cpuUsage();
        this.reset();
        this.inc((u.user + u.system) / 1e6);
      },
    });
    new Gauge({
      name: "memleak_self_resident_bytes",
      help: "memleak's own resident memory",
      registers,
      collect() {
        this.set(process.memoryUsage.rss());
      },
    });
  }

  /** Called every tick with the sample taken and the verdict so far (none yet in the first seconds). */
  update(sample: Sample, soFar: VerdictDocument | undefined): void {
    this.samples.inc();
    // The sampler lists the root first.
    const chosen = exportedProcesses(sample.processes, sample.processes[0]?.pid ?? -1);
    this.watched.set(sample.processes.length);
    this.unexported.set(sample.processes.length - chosen.length);
    this.processGauges.forEach((g) => g.reset());
    this.gpuGauges.forEach((g) => g.reset());
    this.pidInside.reset();
    this.rememberSmaps(sample.processes);
    for (const read of chosen) {
      const last = read.pss === undefined ? this.lastSmaps.get(processKey(read)) : undefined;
      const p = last ? { ...read, pss: last.pss, ...(last.uss !== undefined && { uss: last.uss }) } : read;
      const agent = sample.agent?.[String(p.pid)] as AgentReport | undefined;
      const labels = { pid: String(p.pid), comm: p.comm };
      PROCESS_GAUGES.forEach((row, i) => {
        const v = row.value(p, agent);
        if (v !== undefined) this.processGauges[i]!.set(labels, v);
      });
      GPU_GAUGES.forEach((row, i) => {
        for (const { device, value } of gpuReadings(p, agent, row))
          this.gpuGauges[i]!.set({ ...labels, device }, value);
      });
      const inside = this.pidsInside?.get(p.pid);
      if (inside !== undefined) this.pidInside.set(labels, inside);
    }
    this.cgroupGauges.forEach((g) => g.reset());
    const path = this.cgroupPath;
    if (sample.cgroup && path !== undefined) {
      const c = sample.cgroup;
      CGROUP_GAUGES.forEach((row, i) => {
        const v = row.value(c);
        if (v !== undefined) this.cgroupGauges[i]!.set({ cgroup: path }, v);
      });
    }
    this.exported = new Set(chosen.map((p) => p.pid));
    if (soFar) this.setVerdict(soFar);
  }

  /** Keeps the PSS/USS of the processes read this tick, and forgets the processes gone. */
  private rememberSmaps(processes: readonly ProcessSample[]): void {
    const live = new Set<string>();
    for (const p of processes) {
      const key = processKey(p);
      live.add(key);
      if (p.pss !== undefined) this.lastSmaps.set(key, { pss: p.pss, uss: p.uss });
    }
    for (const key of this.lastSmaps.keys()) if (!live.has(key)) this.lastSmaps.delete(key);
  }

  /** The verdict document's figures (the final one too, once sampling is over); process findings only for the processes exported. */
  setVerdict(doc: VerdictDocument): void {
    const exported = this.exported;
    const v = doc.verdict;
    const at = subjectLabels(v);
    this.verdict.reset();
    for (const kind of VERDICT_KINDS) this.verdict.set({ kind, ...at }, kind === v.kind ? 1 : 0);
    this.confidence.reset();
    this.confidence.set(at, v.confidence);
    this.rate.reset();
    if (v.rate) this.rate.set({ ...at, metric: v.metric }, v.rate.bytesPerSecond);
    this.findings.reset();
    for (const f of doc.findings) {
      if ((f.subject.type === "process" || f.subject.type === "gpu") && !exported.has(f.subject.pid)) continue;
      this.findings.set({ kind: f.kind, ...subjectLabels(f) }, 1);
    }
    this.toLimit.forEach((g) => g.reset());
    for (const f of doc.findings) {
      const t = f.timeToLimit;
      if (!t || (f.subject.type === "process" && !exported.has(f.subject.pid))) continue;
      const labels = { ...subjectLabels(f), limit: t.limit.source };
      this.toLimit[0]!.set(labels, t.seconds);
      this.toLimit[1]!.set(labels, t.secondsMin);
      if (t.secondsMax !== null) this.toLimit[2]!.set(labels, t.secondsMax);
    }
  }
}
