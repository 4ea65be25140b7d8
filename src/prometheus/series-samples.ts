/**
 * Prometheus series → memleak's Samples, one stream per subject, so that the verdict engine judges them as it judges
 * a recording. Series that differ only in their metric's name describe one subject (cAdvisor's
 * container_memory_usage_bytes, _working_set_bytes, _rss and _cache of one container; memleak's own
 * memleak_process_*_bytes of one pid): they become the fields of one subject's samples, so the cgroup rules can weigh
 * usage against rss and cache as they do memory.stat.
 */
import type { CgroupSample, ProcessSample, Sample } from "../system/sample.js";
import type { RangeSeries } from "./range-response.js";
import { cudaIndex, GPU_METRICS, gpuFieldName } from "../sampling/gpu-fields.js";
import { fieldPath, type AgentNumberField } from "../agent/report-fields.js";

type Put = (s: SubjectSample, v: number) => void;
interface SubjectSample {
  process?: ProcessSample;
  cgroup?: CgroupSample;
  agent?: Record<string, Record<string, number>>;
}

const cg = (s: SubjectSample) => (s.cgroup ??= {});
const stat = (s: SubjectSample) => (cg(s).stat ??= {});
const proc = (s: SubjectSample) => (s.process ??= { pid: 0, ppid: 0, starttime: 0, comm: "" });
/** A declared field of the agent's report (agent/report-fields.ts), put where the agent would have sent it. */
const agent = (s: SubjectSample, name: AgentNumberField, v: number) => {
  const [group, key] = fieldPath(name);
  if (group !== undefined) ((s.agent ??= {})[group] ??= {})[key] = v;
};

/**
 * What each known metric is in a Sample. cAdvisor's (google/cadvisor metrics/prometheus.go): usage is the cgroup's
 * memory.current / usage_in_bytes, rss its anon, cache its page cache (shmem included on v1), working set usage −
 * inactive_file. memleak's own are what `--metrics` serves (src/export/metric-table.ts).
 */
export const KNOWN_METRICS: Record<string, Put> = {
  container_memory_usage_bytes: (s, v) => (cg(s).usage = v),
  container_memory_working_set_bytes: (s, v) => (cg(s).workingSet = v),
  container_memory_rss: (s, v) => (stat(s).anon = v),
  container_memory_cache: (s, v) => (stat(s).file = v),
  container_memory_kernel_usage: (s, v) => (cg(s).kernel = v),
  container_spec_memory_limit_bytes: (s, v) => (cg(s).limit = v > 0 ? v : null),
  memleak_cgroup_usage_bytes: (s, v) => (cg(s).usage = v),
  memleak_cgroup_working_set_bytes: (s, v) => (cg(s).workingSet = v),
  memleak_cgroup_anon_bytes: (s, v) => (stat(s).anon = v),
  memleak_cgroup_file_bytes: (s, v) => (stat(s).file = v),
  memleak_cgroup_shmem_bytes: (s, v) => (stat(s).shmem = v),
  memleak_cgroup_kernel_bytes: (s, v) => (cg(s).kernel = v),
  memleak_cgroup_limit_bytes: (s, v) => (cg(s).limit = v),
  memleak_process_rss_bytes: (s, v) => (proc(s).rss = v),
  memleak_process_pss_bytes: (s, v) => (proc(s).pss = v),
  memleak_process_uss_bytes: (s, v) => (proc(s).uss = v),
  memleak_process_anon_bytes: (s, v) => (proc(s).anon = v),
  memleak_process_file_bytes: (s, v) => (proc(s).file = v),
  memleak_process_shmem_bytes: (s, v) => (proc(s).shmem = v),
  memleak_process_swap_bytes: (s, v) => (proc(s).swap = v),
  memleak_process_malloc_in_use_bytes: (s, v) => agent(s, "malloc.inUse", v),
  memleak_process_malloc_free_bytes: (s, v) => agent(s, "malloc.free", v),
  memleak_process_malloc_arenas: (s, v) => agent(s, "malloc.arenas", v),
  memleak_process_python_blocks: (s, v) => agent(s, "py.allocatedBlocks", v),
  memleak_process_torch_cuda_allocated_bytes: (s, v) => agent(s, "torch.cudaAllocated", v),
  memleak_process_torch_cuda_reserved_bytes: (s, v) => agent(s, "torch.cudaReserved", v),
};

/**
 * memleak's own series that are not memory figures (its verdict, its cost, its counts): a query such as
 * `{__name__=~"memleak_.*"}` returns them too, and judged as a level they would be subjects of their own.
 */
export const isOwnBookkeeping = (s: RangeSeries) =>
  s.labels.__name__?.startsWith("memleak_") === true &&
  !(s.labels.__name__ in KNOWN_METRICS) &&
  !(s.labels.__name__ in GPU_METRICS);

/**
 * memleak's GPU series (`device`-labelled: sampling/gpu-fields.ts GPU_METRICS) into its process's sample: the agent's, by the
 * device's index ("cuda:0"), as the agent reports them; the driver's, by GPU index, as the sampler records them.
 */
function putGpu(s: SubjectSample, name: string, device: string | undefined, v: number): void {
  const from = GPU_METRICS[name];
  if (from === undefined || device === undefined) return;
  if (from === "driver") {
    (proc(s).gpu ??= {})[device] = v;
    return;
  }
  const index = cudaIndex(device);
  if (index !== undefined) agent(s, `gpu.${gpuFieldName(index, from)}`, v);
}

/** One subject's series, as samples, and what it is called. */
export interface SubjectSamples {
  /** The labels its series share (all but `__name__`). */
  labels: Record<string, string>;
  /** What a person calls it: namespace/pod/container, a cgroup path, or the labels. */
  name: string;
  /** A process (memleak's per-pid series), or a cgroup (a container's, or one aggregated by the query). */
  kind: "process" | "cgroup";
  pid: number;
  /** Metric names of its series, as they came ("" for a series the query aggregated the name away from). */
  metrics: string[];
  /** Its samples in time order, made on first use (judging reads them through eachSample instead). */
  readonly samples: Sample[];
  /** Hands f each of `samples` in turn; a container's are made one at a time and not kept. */
  eachSample(f: (s: Sample) => void): void;
}

/** `{a="1", b="x"}`, sorted: the key that groups series of one subject, and its name when nothing better is found. */
export function labelText(labels: Record<string, string>): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return `{${parts.join(", ")}}`;
}

function subjectName(labels: Record<string, string>): string {
  const { namespace, pod, container, cgroup, id, pid, comm, instance } = labels;
  if (pod !== undefined) return [namespace, pod, container].filter((x) => x).join("/");
  if (pid !== undefined) return `${comm ?? "pid"} ${pid}${instance ? ` on ${instance}` : ""}`;
  if (cgroup !== undefined) return `${cgroup}${instance ? ` on ${instance}` : ""}`;
  if (id !== undefined) return id;
  return Object.keys(labels).length > 0 ? labelText(labels) : "the query's result";
}

/**
 * @returns one SubjectSamples per subject, in the order their first series came. A series whose name is none of
 * KNOWN_METRICS (or was aggregated away: `sum by (pod) (…)`) is read as its subject's usage: the level a dashboard
 * plots, judged as the cgroup's.
 */
export function subjectsOf(series: RangeSeries[]): SubjectSamples[] {
  const groups = new Map<string, { labels: Record<string, string>; series: RangeSeries[] }>();
  for (const s of series) {
    const { __name__: name, ...labels } = s.labels;
    // A process's GPU series are its own, one per device: they join its subject, the device told in the field.
    if (name !== undefined && name in GPU_METRICS) delete labels.device;
    const key = labelText(labels);
    const g = groups.get(key) ?? { labels, series: [] };
    g.series.push(s);
    groups.set(key, g);
  }
  return [...groups.values()].map(({ labels, series: group }) => toSamples(labels, group));
}

/** How a series' values go into a subject's sample: by its metric's name (and a GPU series' device). */
function putOf(s: RangeSeries): Put {
  const name = s.labels.__name__ ?? "";
  const device = s.labels.device;
  return name in GPU_METRICS
    ? (x: SubjectSample, v: number) => putGpu(x, name, device, v)
    : (KNOWN_METRICS[name] ?? ((x: SubjectSample, v: number) => (cg(x).usage = v)));
}

function toSamples(labels: Record<string, string>, group: RangeSeries[]): SubjectSamples {
  const metrics = group.map((s) => s.labels.__name__ ?? "");
  const pid = Number(labels.pid);
  const isProcess = group.some((s) => s.labels.__name__?.startsWith("memleak_process_"));
  const comm = labels.comm ?? "";
  let samples: Sample[] | undefined;
  const all = () => (samples ??= samplesOf(group, Number.isSafeInteger(pid) ? pid : 0, comm));
  return {
    labels,
    name: subjectName(labels),
    kind: isProcess ? "process" : "cgroup",
    pid: Number.isSafeInteger(pid) ? pid : 0,
    metrics,
    get samples() {
      return all();
    },
    eachSample(f) {
      if (isProcess || !eachCgroupSample(group, f)) for (const s of all()) f(s);
    },
  };
}

/** Every time any of the group's series has a point, in time order: one sample each, its fields from each series. */
function samplesOf(group: RangeSeries[], pid: number, comm: string): Sample[] {
  const byTime = new Map<number, SubjectSample>();
  for (const s of group) {
    const put = putOf(s);
    for (let i = 0; i < s.ts.length; i++) {
      const t = s.ts[i]!;
      let at = byTime.get(t);
      if (!at) byTime.set(t, (at = {}));
      put(at, s.values[i]!);
    }
  }
  return [...byTime.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([t, at]) => {
      const cgroup = at.cgroup && withUsage(at.cgroup);
      const processes = at.process ? [{ ...at.process, pid, comm }] : [];
      const agentData = at.agent && processes[0] ? { [String(processes[0].pid)]: at.agent } : undefined;
      return { t: Math.round(t * 1000), processes, ...(cgroup && { cgroup }), ...(agentData && { agent: agentData }) };
    });
}

/**
 * A container's samples, the same as samplesOf's, made one at a time from its series side by side (each ascending,
 * as Prometheus gives them) and handed to f without being kept: 250 containers × 1,441 samples held at once were
 * 360,000 objects for the collector to promote and trace (BENCHMARKS §i″). False, with nothing handed, where a series
 * is not strictly ascending: samplesOf then orders the points.
 */
function eachCgroupSample(group: RangeSeries[], f: (s: Sample) => void): boolean {
  if (!group.every((s) => isAscending(s.ts))) return false;
  const puts = group.map(putOf);
  const next = new Int32Array(group.length);
  for (;;) {
    // The earliest time not yet taken; among equal times, the first series' (samplesOf's map keeps the first key).
    let t = Infinity;
    let any = false;
    for (let k = 0; k < group.length; k++) {
      const ts = group[k]!.ts;
      if (next[k]! < ts.length && (!any || ts[next[k]!]! < t)) {
        t = ts[next[k]!]!;
        any = true;
      }
    }
    if (!any) return true;
    const at: SubjectSample = {};
    for (let k = 0; k < group.length; k++) {
      const s = group[k]!;
      const i = next[k]!;
      if (i < s.ts.length && s.ts[i] === t) {
        puts[k]!(at, s.values[i]!);
        next[k] = i + 1;
      }
    }
    const cgroup = at.cgroup && withUsage(at.cgroup);
    f(cgroup ? { t: Math.round(t * 1000), processes: [], cgroup } : { t: Math.round(t * 1000), processes: [] });
  }
}

function isAscending(ts: readonly number[]): boolean {
  for (let i = 1; i < ts.length; i++) if (!(ts[i]! > ts[i - 1]!)) return false;
  return true;
}

/**
 * The cgroup rules judge usage. Without a usage series, the working set is the level judged (what Kubernetes evicts
 * on), and without either, anon (cAdvisor's rss): the level the query gave is the level judged.
 */
function withUsage(c: CgroupSample): CgroupSample | undefined {
  const usage = c.usage ?? c.workingSet ?? c.stat?.anon;
  return usage === undefined ? undefined : { ...c, usage };
}
