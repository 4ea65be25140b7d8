/**
 * Samples → one set of columns per subject: each process (by pid and starttime), the tree, and the cgroup.
 * Built incrementally (add one sample at a time), so a recording can be streamed and a live watch can analyze as it
 * goes. Times are seconds since the first sample.
 *
 * PSS/USS arrive only on the ticks where the smaps budget allowed a read. Per process they are stored as read. For the
 * tree total the last known value of each process is carried forward, and a total is emitted only when every live
 * process has one — so the sum never mixes in a silent 0.
 */
import type { CgroupSample, ProcessSample, Sample } from "../system/sample.js";
import type { MappedFile } from "../probes/smaps-files.js";
import { Column, DEFAULT_CAPACITY } from "./column.js";
import type { MetricName } from "./metric-name.js";
import type { AgentColumns, AgentNumberField, AgentTextField, AgentTexts } from "../agent/report-fields.js";
import { tooShortForShapes } from "./enough-samples.js";
import { processKey as key } from "../sampling/process-key.js";

export interface ProcessSeries {
  pid: number;
  starttime: number;
  ppid: number;
  comm: string;
  firstSeen: number;
  /**
   * When memleak saw the process's name change (seconds): an exec (a pyenv shim's bash becoming python, seconds
   * after the process was born on a busy machine) or, rarely, a program renaming itself. Its program's start-up
   * counts from there, not from firstSeen: the bash's 0.3 MiB is not the level the program grew from.
   */
  execAt?: number;
  lastSeen: number;
  /** Samples this process appeared in. */
  seenCount: number;
  metrics: Partial<Record<MetricName, Column>>;
  /** Shared_Clean + Shared_Dirty from smaps: falls as forked children copy-on-write the parent's pages. */
  shared: Column;
  /** The parent's anon at the moment this process first appeared (the bound on copy-on-write growth). */
  parentAnonAtStart: number | undefined;
  /** Agent data per sample, when the in-process agent reported: its fields are declared in agent/report-fields.ts. */
  agent: AgentColumns<Column>;
  /** The agent's last words by field ("malloc.allocator": "jemalloc", "census.growing": "list of bytes"). */
  agentText: AgentTexts;
  /** Files this process had resident, by path: the most seen of each (sampling/mapped-files.ts reads them as RssFile grows). */
  files: Map<string, MappedFile>;
  /** `watch`: when memleak began injecting the agent (seconds), if it did; its memory rises before its first report. */
  injectionStarted?: number;
  /** When the agent first reported for this process (seconds), as it arrived: columns may be compacted since. */
  firstReport?: number;
  /** The driver's count of the process's GPU memory, by GPU index (ProcessSample.gpu), when nvidia-smi was read. */
  gpuUsed: Record<string, Column>;
}

export interface SeriesSet {
  t0: number | undefined;
  /** Seconds covered. */
  duration: number;
  samples: number;
  rootPid: number | undefined;
  processes: Map<string, ProcessSeries>;
  tree: Partial<Record<MetricName, Column>>;
  treeCount: Column;
  cgroup: Partial<Record<MetricName, Column>>;
  cgroupLimit: number | null | undefined;
  cgroupOomKills: Column;
  /** v2 memory.high as last read; null = not set; undefined = never read (v1, or no cgroup). */
  cgroupHigh?: number | null | undefined;
  /** The machine's MemAvailable and MemTotal as last read (/proc/meminfo); undefined in recordings made before it. */
  machineAvailable?: number | undefined;
  machineTotal?: number | undefined;
  /** Processes that exited too young to be judged, dropped to keep a long watch's memory bounded. */
  shortLivedDropped: number;
}

const PROCESS_METRICS: [MetricName, keyof ProcessSample][] = [
  ["rss", "rss"],
  ["anon", "anon"],
  ["file", "file"],
  ["swap", "swap"],
  ["pss", "pss"],
  ["uss", "uss"],
];

const CGROUP_METRICS: [MetricName, (c: CgroupSample) => number | undefined][] = [
  ["cgroup", (c) => c.usage],
  ["working-set", (c) => c.workingSet],
  ["cgroup-anon", (c) => c.stat?.anon],
  ["cgroup-file", (c) => c.stat?.file],
  ["cgroup-active-file", (c) => c.stat?.activeFile],
  ["cgroup-inactive-file", (c) => c.stat?.inactiveFile],
  ["cgroup-shmem", (c) => c.stat?.shmem],
  ["cgroup-dirty", (c) => c.stat?.fileDirty],
  ["cgroup-kernel", (c) => c.kernel],
  ["cgroup-unreclaimable", (c) => unreclaimable(c)],
];

/**
 * What the kernel cannot give back before it OOM-kills: anon + shmem (tmpfs, shared memory: in `file` but not
 * droppable without swap), plus kernel memory where it is read (v2: less its reclaimable slab; v1's kmem usage has no
 * split and is counted whole). Never page cache: clean cache is reclaimed first, so it does not bring the OOM nearer.
 * Undefined without anon. Shmem and kernel memory are added where they were read (cAdvisor's series have no shmem):
 * the time to the limit says what it counted (limit-countdowns.ts `cgroupCounted`), so a part left out is said.
 */
export function unreclaimable(c: CgroupSample): number | undefined {
  const anon = c.stat?.anon;
  if (anon === undefined) return undefined;
  const kernel = c.kernel === undefined ? 0 : Math.max(0, c.kernel - (c.stat?.slabReclaimable ?? 0));
  return anon + (c.stat?.shmem ?? 0) + kernel;
}

/**
 * How long a process too short-lived to judge is kept after its last sample: longer than the window a run's last
 * level is read from (its last tenth, 3 samples at least: 3 s at 1 Hz), and short enough that a pool starting a
 * worker a second keeps about 30 of them.
 */
export const KEEP_EXITED_SECONDS = 30;

/**
 * The points all of a set's columns may hold together (16 bytes each: ~61 MiB). A column holds up to `capacity`
 * points (20,000 by default) while the set has few; a big tree has many (6–7 a process from /proc, one more per
 * numeric field of its agent's reports: 64 agents' processes held 291 MiB after four hours at 1 Hz, BENCHMARKS §g⁵), so
 * past POINTS_BUDGET ÷ capacity columns each holds its share, never under MIN_CAPACITY. A tree of a few processes keeps
 * 20,000 (section d's 72-hour watch); 64 processes with agents keep ~3,300 each, 256 keep MIN_CAPACITY.
 */
export const POINTS_BUDGET = 4_000_000;
/**
 * The fewest points a column is brought down to, whatever the tree: the interim verdicts judge on 120–240 (their coarse
 * twins: session/interim/verdicts.ts says how 120 kept every verdict of fixtures/ and 42 synthetic watches).
 */
export const MIN_CAPACITY = 1_000;

export class SeriesBuilder {
  /**
   * Each process's last report and the columns its numbers went to, in order. A report repeated is pushed again
   * without being flattened (no names looked up, no garbage): memleak repeats an agent's latest report in every sample
   * until another comes (agent/channel.ts snapshot, the same object), and an agent does not send one that did not
   * change, so on an idle tree most ticks repeat (BENCHMARKS.md §g⁶).
   */
  private readonly lastPushed = new WeakMap<ProcessSeries, { report: object; columns: Column[]; values: number[] }>();
  readonly set: SeriesSet;
  private readonly lastSmaps = new Map<string, { pss: number; uss: number | undefined; pssAnon: number | undefined }>();
  /** The capacity the columns were last given. */
  private applied: number;
  /** Columns were added or dropped since the capacity was last settled (once a sample: settleCapacity). */
  private columnsMoved = false;

  /**
   * @param coarseCapacity keep every column also at this coarser resolution, for interimView (`run` and `watch`)
   * @param pointsBudget the points all columns may hold together (tests compare with a budget that never binds)
   */
  constructor(
    private readonly capacity = DEFAULT_CAPACITY,
    private readonly coarseCapacity?: number,
    private readonly pointsBudget = POINTS_BUDGET,
  ) {
    this.applied = capacity;
    this.set = {
      t0: undefined,
      duration: 0,
      samples: 0,
      rootPid: undefined,
      processes: new Map(),
      tree: {},
      treeCount: this.newColumn(),
      cgroup: {},
      cgroupLimit: undefined,
      cgroupOomKills: this.newColumn(),
      shortLivedDropped: 0,
    };
  }

  /** Each column's share of POINTS_BUDGET with `columns` columns: `capacity` while there are few. */
  private share(columns: number): number {
    // Even: a column compacts by pairs.
    const share = Math.floor(this.pointsBudget / Math.max(1, columns) / 2) * 2;
    return Math.min(this.capacity, Math.max(MIN_CAPACITY, share));
  }

  /** A new column, at the capacity the set's columns have now (settled again once the sample is in). */
  private newColumn(): Column {
    this.columnsMoved = true;
    return new Column(this.applied, this.coarseCapacity);
  }

  /**
   * Once a sample is in: if columns came or went, every column is given its share (lowered: compacted at once; raised,
   * after processes were dropped: grown into). Once a sample, not once a column: a new process brings 7–30 at once.
   */
  private settleCapacity(): void {
    if (!this.columnsMoved) return;
    this.columnsMoved = false;
    const all = columnsIn(this.set);
    const share = this.share(all.length);
    if (share === this.applied) return;
    this.applied = share;
    for (const c of all) c.setCapacity(share);
  }

  /** How many columns the set holds (what their share of POINTS_BUDGET is worked out from). */
  get columnCount(): number {
    return columnsIn(this.set).length;
  }

  private column(into: Partial<Record<MetricName, Column>>, name: MetricName): Column {
    return (into[name] ??= this.newColumn());
  }

  add(sample: Sample): void {
    const s = this.set;
    s.t0 ??= sample.t;
    const t = (sample.t - s.t0) / 1000;
    s.duration = t;
    s.samples++;
    if (s.rootPid === undefined && sample.processes[0]) s.rootPid = sample.processes[0].pid;
    // Each process's key is made once a sample: it is looked up in three maps.
    const keys = sample.processes.map(key);
    const live = new Set(keys);
    for (let i = 0; i < keys.length; i++) this.addProcess(sample.processes[i]!, keys[i]!, t, sample);
    for (const k of this.lastSmaps.keys()) if (!live.has(k)) this.lastSmaps.delete(k);
    this.dropShortLived(live, t);
    this.addTree(sample.processes, keys, t);
    if (sample.cgroup) this.addCgroup(sample.cgroup, t);
    if (sample.machine) {
      this.set.machineTotal = sample.machine.memTotal;
      this.set.machineAvailable = sample.machine.memAvailable;
    }
    this.addAgent(sample, keys, t);
    this.settleCapacity();
  }

  /**
   * A reading of a cgroup with no process in it (a container's series from Prometheus): add() less the tree's sums,
   * which over no process are 0 at every point (7 columns a sample, 13% of analyze --prometheus with the rest of the
   * builder: BENCHMARKS §i″) and are not the tree's figures but its absence, so the tree stays empty. The count of
   * processes is still pushed (0), as add() does. A sample with a process, a machine or an agent reading goes to add().
   */
  addCgroupReading(sample: Sample): void {
    if (sample.processes.length > 0 || sample.machine || sample.agent) {
      this.add(sample);
      return;
    }
    const s = this.set;
    s.t0 ??= sample.t;
    const t = (sample.t - s.t0) / 1000;
    s.duration = t;
    s.samples++;
    // add()'s other steps have nothing to do without a process: no keys, no smaps, none to drop, no agent.
    s.treeCount.push(t, 0);
    if (sample.cgroup) this.addCgroup(sample.cgroup, t);
    this.settleCapacity();
  }

  /**
   * A pool that starts a worker a second would otherwise pile up 260,000 process series in 72 hours. A process that
   * exited before it could be judged (MIN_SAMPLES samples over MIN_SECONDS) never gets a finding, so its series
   * goes, and only the count stays — once it has been gone for KEEP_EXITED_SECONDS: until then what it did still
   * explains the tree's and the cgroup's last levels (a 10 s CI job's forked workers copy their parent's pages and
   * exit just before it: without them the cgroup's growth was a leak nobody accounted for). The root always stays.
   */
  private dropShortLived(live: Set<string>, t: number): void {
    for (const [k, ps] of this.set.processes) {
      if (live.has(k) || ps.pid === this.set.rootPid || t - ps.lastSeen < KEEP_EXITED_SECONDS) continue;
      if (tooShortForShapes(ps.seenCount, ps.lastSeen - ps.firstSeen)) {
        this.set.processes.delete(k);
        this.set.shortLivedDropped++;
        this.columnsMoved = true;
      }
    }
  }

  private addProcess(p: ProcessSample, k: string, t: number, sample: Sample): void {
    let ps = this.set.processes.get(k);
    if (!ps) {
      const parent = sample.processes.find((q) => q.pid === p.ppid);
      ps = {
        pid: p.pid,
        starttime: p.starttime,
        ppid: p.ppid,
        comm: p.comm,
        firstSeen: t,
        lastSeen: t,
        seenCount: 0,
        metrics: {},
        shared: this.newColumn(),
        parentAnonAtStart: parent?.anon,
        agent: {},
        agentText: {},
        files: new Map(),
        gpuUsed: {},
      };
      this.set.processes.set(k, ps);
    }
    if (ps.comm !== p.comm) {
      ps.comm = p.comm;
      ps.execAt = t;
    }
    ps.lastSeen = t;
    ps.seenCount++;
    for (const [name, field] of PROCESS_METRICS) {
      const v = p[field];
      if (typeof v === "number") this.column(ps.metrics, name).push(t, v);
    }
    if (p.sharedClean !== undefined && p.sharedDirty !== undefined) ps.shared.push(t, p.sharedClean + p.sharedDirty);
    if (p.pss !== undefined) this.lastSmaps.set(k, { pss: p.pss, uss: p.uss, pssAnon: p.pssAnon });
    for (const [gpu, used] of Object.entries(p.gpu ?? {})) (ps.gpuUsed[gpu] ??= this.newColumn()).push(t, used);
    for (const f of p.files ?? []) {
      if ((ps.files.get(f.path)?.rss ?? -1) < f.rss) ps.files.set(f.path, f);
    }
  }

  private addTree(processes: ProcessSample[], keys: string[], t: number): void {
    this.set.treeCount.push(t, processes.length);
    for (const name of ["rss", "anon", "file", "swap"] as const) {
      if (processes.every((p) => p[name] !== undefined)) {
        this.column(this.set.tree, name).push(
          t,
          processes.reduce((sum, p) => sum + p[name]!, 0),
        );
      }
    }
    const known = keys.map((k) => this.lastSmaps.get(k));
    if (known.every((k) => k !== undefined)) {
      this.column(this.set.tree, "pss").push(
        t,
        known.reduce((sum, k) => sum + k!.pss, 0),
      );
      if (known.every((k) => k!.uss !== undefined)) {
        this.column(this.set.tree, "uss").push(
          t,
          known.reduce((sum, k) => sum + k!.uss!, 0),
        );
      }
      if (known.every((k) => k!.pssAnon !== undefined)) {
        this.column(this.set.tree, "pss-anon").push(
          t,
          known.reduce((sum, k) => sum + k!.pssAnon!, 0),
        );
      }
    }
  }

  private addCgroup(c: CgroupSample, t: number): void {
    for (const [name, get] of CGROUP_METRICS) {
      const v = get(c);
      if (v !== undefined) this.column(this.set.cgroup, name).push(t, v);
    }
    if (c.limit !== undefined) this.set.cgroupLimit = c.limit;
    if (c.high !== undefined) this.set.cgroupHigh = c.high;
    if (c.oomKills !== undefined) this.set.cgroupOomKills.push(t, c.oomKills);
  }

  /**
   * The agents' last words (reports made as their interpreters exited, after the last sample: see
   * AgentChannel.reportsSince), added to the processes' agent columns at `tMs` (epoch ms) — the malloc reading the
   * rules judge retention on is then the one taken at exit, not one up to 10 s older.
   */
  addLastWords(tMs: number, agent: Record<string, unknown>): void {
    const t0 = this.set.t0;
    if (t0 === undefined) return;
    const t = Math.max(this.set.duration, (tMs - t0) / 1000);
    const byPid = new Map<string, ProcessSeries>();
    for (const ps of this.set.processes.values())
      if ((byPid.get(String(ps.pid))?.lastSeen ?? -1) < ps.lastSeen) byPid.set(String(ps.pid), ps);
    const reports: Record<string, unknown> = {};
    for (const [pid, words] of Object.entries(agent)) {
      if (typeof words !== "object" || words === null) continue;
      const { sentAt, ...report } = words as Record<string, unknown>;
      reports[pid] = report;
      const ps = byPid.get(pid);
      if (ps && typeof sentAt === "number") this.endProgramAt(ps, (sentAt * 1000 - t0) / 1000);
    }
    this.addAgentReports(reports, t, (pid) => byPid.get(pid));
    this.settleCapacity();
  }

  /**
   * The program of `ps` ended at `t` (seconds): its agent's last words are sent from atexit, before the interpreter
   * tears down its modules and frees what they held. A sample taken after that is the teardown's, not the program's:
   * swing_leak.py's kept list (59 MiB) was freed at exit, its last sample read 11 MiB, and the run was called stable
   * (run.test, 1 run in 4 side by side). Such samples are forgotten: the process's columns, and for the root (whose exit
   * ends a run) the tree's and the cgroup's too.
   */
  private endProgramAt(ps: ProcessSeries, t: number): void {
    if (!(t < ps.lastSeen)) return;
    const drop = (c: Column) => c.dropAfter(t);
    for (const c of Object.values(ps.metrics)) if (c) drop(c);
    drop(ps.shared);
    for (const c of Object.values(ps.agent)) if (c) drop(c);
    ps.lastSeen = Math.max(ps.firstSeen, ps.metrics.anon?.xs.at(-1) ?? ps.metrics.rss?.xs.at(-1) ?? t);
    if (ps.pid !== this.set.rootPid) return;
    for (const c of Object.values(this.set.tree)) if (c) drop(c);
    drop(this.set.treeCount);
    for (const c of Object.values(this.set.cgroup)) if (c) drop(c);
  }

  /**
   * memleak began injecting the agent into `pid` at `startedMs` (epoch ms): the agent's imports raise the process's
   * memory before its first report, so own-footprint.ts dates the injection from here.
   */
  addInjection(pid: number, startedMs: number): void {
    if (this.set.t0 === undefined || !Number.isFinite(startedMs)) return;
    const t = (startedMs - this.set.t0) / 1000;
    // The process of that pid alive then (`analyze` adds injections after every sample: the pid may have been reused).
    let chosen: ProcessSeries | undefined;
    for (const ps of this.set.processes.values()) {
      if (ps.pid !== pid) continue;
      const alive = ps.firstSeen <= t && t <= ps.lastSeen;
      const chosenAlive = chosen !== undefined && chosen.firstSeen <= t && t <= chosen.lastSeen;
      if (!chosen || (alive && !chosenAlive) || (alive === chosenAlive && chosen.lastSeen < ps.lastSeen)) chosen = ps;
    }
    if (chosen) chosen.injectionStarted = t;
  }

  /** Numeric agent fields, flattened one level ("malloc.inUse"), per process. */
  private addAgent(sample: Sample, keys: string[], t: number): void {
    const agent = sample.agent;
    if (!agent) return;
    // Each process's report found by its pid, a number: not a walk of the report's keys (each a string made from an
    // index) and a lookup of each in a table of the processes, which on 64 agents was most of this loop.
    const reports = agent as Record<number, unknown>;
    for (let i = 0; i < keys.length; i++) {
      const report = reports[sample.processes[i]!.pid];
      if (typeof report !== "object" || report === null) continue;
      const ps = this.set.processes.get(keys[i]!);
      if (ps) this.addReportOf(ps, report as Record<string, unknown>, t);
    }
  }

  private addReportOf(ps: ProcessSeries, report: Record<string, unknown>, t: number): void {
    ps.firstReport ??= t;
    const last = this.lastPushed.get(ps);
    if (last?.report === report) {
      for (let i = 0; i < last.columns.length; i++) last.columns[i]!.push(t, last.values[i]!);
      return;
    }
    const columns: Column[] = [];
    const values: number[] = [];
    flatten(report, "", (name, v) => {
      // Kept whatever its name (a recording from another version's agent may carry fields this one does not declare);
      // the analysis reads only declared ones (agent/report-fields.ts).
      if (typeof v === "string") ps.agentText[name as AgentTextField] = v;
      else {
        const c = (ps.agent[name as AgentNumberField] ??= this.newColumn());
        c.push(t, v);
        columns.push(c);
        values.push(v);
      }
    });
    this.lastPushed.set(ps, { report, columns, values });
  }

  private addAgentReports(
    agent: Record<string, unknown>,
    t: number,
    seriesOf: (pid: string) => ProcessSeries | undefined,
  ): void {
    for (const pidText in agent) {
      const report = agent[pidText];
      const ps = seriesOf(pidText);
      if (ps && typeof report === "object" && report !== null)
        this.addReportOf(ps, report as Record<string, unknown>, t);
    }
  }
}

/** Every column of the set, as the one walk that knows where they all are finds them (mapColumns). */
function columnsIn(set: SeriesSet): Column[] {
  const all: Column[] = [];
  mapColumns(set, (c) => {
    all.push(c);
    return c;
  });
  return all;
}

/** "malloc" + "inUse" → "malloc.inUse", made once: every report of every agent names the same fields each tick. */
const dottedNames = new Map<string, Map<string, string>>();
let dottedCount = 0;

function dotted(prefix: string, k: string): string {
  if (prefix === "") return k;
  let names = dottedNames.get(prefix);
  if (names === undefined) dottedNames.set(prefix, (names = new Map()));
  let name = names.get(k);
  if (name === undefined) {
    name = prefix + k;
    // Bounded: the names come from the agents (validated, yet many processes' fields could differ).
    if (dottedCount++ < 10_000) names.set(k, name);
  }
  return name;
}

/** Each numeric (or, nested, text) field of a report, by its flattened name, in the report's order. */
function flatten(obj: Record<string, unknown>, prefix: string, each: (name: string, v: number | string) => void): void {
  for (const k in obj) {
    const v = obj[k];
    if (typeof v === "number" && Number.isFinite(v)) each(dotted(prefix, k), v);
    else if (typeof v === "boolean") each(dotted(prefix, k), v ? 1 : 0);
    else if (typeof v === "string" && prefix !== "") each(dotted(prefix, k), v);
    else if (v && typeof v === "object" && !Array.isArray(v) && prefix === "")
      flatten(v as Record<string, unknown>, `${k}.`, each);
  }
}

export function buildSeries(samples: Iterable<Sample>, capacity?: number): SeriesSet {
  const b = new SeriesBuilder(capacity);
  for (const s of samples) b.add(s);
  return b.set;
}

/** A series set whose columns are of type C: SeriesSet itself is SetOf<Column>; packed-set.ts's is of plain arrays. */
export type SetOf<C> = Omit<SeriesSet, "processes" | "tree" | "treeCount" | "cgroup" | "cgroupOomKills"> & {
  processes: Map<
    string,
    Omit<ProcessSeries, "metrics" | "shared" | "agent" | "gpuUsed"> & {
      metrics: Partial<Record<MetricName, C>>;
      shared: C;
      agent: AgentColumns<C>;
      gpuUsed: Record<string, C>;
    }
  >;
  tree: Partial<Record<MetricName, C>>;
  treeCount: C;
  cgroup: Partial<Record<MetricName, C>>;
  cgroupOomKills: C;
};

/**
 * The set with every column replaced by f(column), everything else shared, not copied: the one walk over all of a
 * set's columns (interimView, packed-set.ts to cross to a worker thread and back, and the points budget's count).
 */
export function mapColumns<A, B>(set: SetOf<A>, f: (col: A) => B): SetOf<B> {
  const each = <K extends string>(r: Partial<Record<K, A>>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, f(v as A)])) as Partial<Record<K, B>>;
  const processes: SetOf<B>["processes"] = new Map();
  for (const [k, ps] of set.processes)
    processes.set(k, {
      ...ps,
      metrics: each(ps.metrics),
      shared: f(ps.shared),
      agent: each(ps.agent) as Record<string, B>,
      gpuUsed: each(ps.gpuUsed) as Record<string, B>,
    });
  return {
    ...set,
    processes,
    tree: each(set.tree),
    treeCount: f(set.treeCount),
    cgroup: each(set.cgroup),
    cgroupOomKills: f(set.cgroupOomKills),
  };
}

/**
 * The set with every column replaced by its coarse twin (when it has one), up to the newest sample: what the interim
 * verdicts of a session are worked out on.
 */
export function interimView(set: SeriesSet): SeriesSet {
  return mapColumns(set, (col: Column) => col.coarse?.withPending() ?? col);
}
